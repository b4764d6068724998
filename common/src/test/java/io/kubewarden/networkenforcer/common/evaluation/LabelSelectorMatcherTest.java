package io.kubewarden.networkenforcer.common.evaluation;

import static io.kubewarden.networkenforcer.common.evaluation.Endpoints.labels;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.json.Json;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class LabelSelectorMatcherTest {

  static Stream<Arguments> cases() {
    return Stream.of(
        c("null selector selects nothing", null, labels("app", "web"), false),
        c("empty selector selects everything", "{}", labels("app", "web"), true),
        c("empty selector selects an object without labels", "{}", Map.of(), true),
        c(
            "matchLabels: all pairs present",
            "{matchLabels: {app: web, tier: fe}}",
            labels("app", "web", "tier", "fe", "extra", "x"),
            true),
        c(
            "matchLabels: one pair differs",
            "{matchLabels: {app: web, tier: fe}}",
            labels("app", "web", "tier", "be"),
            false),
        c(
            "matchLabels: one key missing",
            "{matchLabels: {app: web, tier: fe}}",
            labels("app", "web"),
            false),
        c(
            "In: listed value",
            "{matchExpressions: [{key: env, operator: In, values: [prod, staging]}]}",
            labels("env", "staging"),
            true),
        c(
            "In: unlisted value",
            "{matchExpressions: [{key: env, operator: In, values: [prod, staging]}]}",
            labels("env", "dev"),
            false),
        c(
            "In: key absent",
            "{matchExpressions: [{key: env, operator: In, values: [prod]}]}",
            Map.of(),
            false),
        c(
            "In without values selects nothing",
            "{matchExpressions: [{key: env, operator: In, values: []}]}",
            labels("env", ""),
            false),
        c(
            "NotIn: other value",
            "{matchExpressions: [{key: env, operator: NotIn, values: [prod]}]}",
            labels("env", "dev"),
            true),
        c(
            "NotIn: key absent",
            "{matchExpressions: [{key: env, operator: NotIn, values: [prod]}]}",
            Map.of(),
            true),
        c(
            "NotIn: listed value",
            "{matchExpressions: [{key: env, operator: NotIn, values: [prod]}]}",
            labels("env", "prod"),
            false),
        c(
            "Exists: present, empty value",
            "{matchExpressions: [{key: env, operator: Exists}]}",
            labels("env", ""),
            true),
        c(
            "Exists: absent",
            "{matchExpressions: [{key: env, operator: Exists}]}",
            labels("tier", "x"),
            false),
        c(
            "DoesNotExist: absent",
            "{matchExpressions: [{key: env, operator: DoesNotExist}]}",
            labels("tier", "x"),
            true),
        c(
            "DoesNotExist: present",
            "{matchExpressions: [{key: env, operator: DoesNotExist}]}",
            labels("env", "x"),
            false),
        c(
            "unknown operator selects nothing",
            "{matchExpressions: [{key: env, operator: Like, values: [x]}]}",
            labels("env", "x"),
            false),
        c(
            "operators are case-sensitive",
            "{matchExpressions: [{key: env, operator: in, values: [x]}]}",
            labels("env", "x"),
            false),
        c(
            "matchLabels AND matchExpressions: both hold",
            "{matchLabels: {app: web}, matchExpressions: [{key: env, operator: NotIn, values: [dev]}]}",
            labels("app", "web", "env", "prod"),
            true),
        c(
            "matchLabels AND matchExpressions: expression fails",
            "{matchLabels: {app: web}, matchExpressions: [{key: env, operator: NotIn, values: [dev]}]}",
            labels("app", "web", "env", "dev"),
            false),
        c(
            "all expressions must hold",
            "{matchExpressions: [{key: a, operator: Exists}, {key: b, operator: Exists}]}",
            labels("a", "1"),
            false));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void matches(Case c) {
    assertThat(LabelSelectorMatcher.matches(c.selector(), c.labels()))
        .as(c.name())
        .isEqualTo(c.expected());
  }

  static Stream<Arguments> namespaceCases() {
    return Stream.of(
        n(
            "by name through the implicit label",
            "{matchLabels: {kubernetes.io/metadata.name: alice}}",
            "alice",
            Map.of("user", "alice"),
            true),
        n(
            "by name: other namespace",
            "{matchLabels: {kubernetes.io/metadata.name: alice}}",
            "bob",
            Map.of("user", "bob"),
            false),
        n(
            "explicit label wins (it is the same value in a real cluster)",
            "{matchLabels: {kubernetes.io/metadata.name: alice}}",
            "alice",
            Map.of("kubernetes.io/metadata.name", "alice"),
            true),
        n(
            "DoesNotExist on the name label never holds for a namespace",
            "{matchExpressions: [{key: kubernetes.io/metadata.name, operator: DoesNotExist}]}",
            "alice",
            Map.of(),
            false),
        n(
            "NotIn on the name label",
            "{matchExpressions: [{key: kubernetes.io/metadata.name, operator: NotIn,"
                + " values: [kube-system]}]}",
            "alice",
            Map.of(),
            true),
        n(
            "NotIn on the name label: listed",
            "{matchExpressions: [{key: kubernetes.io/metadata.name, operator: NotIn,"
                + " values: [kube-system]}]}",
            "kube-system",
            Map.of(),
            false),
        n(
            "by other labels",
            "{matchLabels: {user: alice}}",
            "alice",
            Map.of("user", "alice"),
            true),
        n("by other labels: missing", "{matchLabels: {user: alice}}", "alice", Map.of(), false),
        n("empty selector: any namespace", "{}", "alice", Map.of(), true),
        n("empty selector: not an endpoint outside the cluster", "{}", null, Map.of(), false));
  }

  /** matchesNamespace must agree with matching FlowEndpoint.effectiveNamespaceLabels(). */
  @ParameterizedTest(name = "{0}")
  @MethodSource("namespaceCases")
  void matchesNamespace(NamespaceCase c) {
    FlowEndpoint endpoint =
        FlowEndpoint.builder().namespace(c.namespace()).namespaceLabels(c.labels()).build();
    assertThat(LabelSelectorMatcher.matchesNamespace(c.selector(), endpoint))
        .as(c.name())
        .isEqualTo(c.expected());
    if (c.namespace() != null) {
      assertThat(LabelSelectorMatcher.matches(c.selector(), endpoint.effectiveNamespaceLabels()))
          .as("same as effectiveNamespaceLabels: " + c.name())
          .isEqualTo(c.expected());
    }
  }

  @Test
  void emptySelectorIsRecognised() {
    assertThat(LabelSelectorMatcher.isEmpty(selector("{}"))).isTrue();
    assertThat(LabelSelectorMatcher.isEmpty(selector("{matchLabels: {}, matchExpressions: []}")))
        .isTrue();
    assertThat(LabelSelectorMatcher.isEmpty(selector("{matchLabels: {app: web}}"))).isFalse();
    assertThat(LabelSelectorMatcher.isEmpty(null)).isFalse();
  }

  record Case(String name, LabelSelector selector, Map<String, String> labels, boolean expected) {}

  record NamespaceCase(
      String name,
      LabelSelector selector,
      String namespace,
      Map<String, String> labels,
      boolean expected) {}

  private static Arguments c(
      String name, String selector, Map<String, String> labels, boolean expected) {
    return Arguments.of(Named.of(name, new Case(name, selector(selector), labels, expected)));
  }

  private static Arguments n(
      String name,
      String selector,
      String namespace,
      Map<String, String> labels,
      boolean expected) {
    return Arguments.of(
        Named.of(name, new NamespaceCase(name, selector(selector), namespace, labels, expected)));
  }

  static LabelSelector selector(String yaml) {
    if (yaml == null) {
      return null;
    }
    try {
      return Json.yaml().readValue(yaml, LabelSelector.class);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
