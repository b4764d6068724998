package io.kubewarden.networkenforcer.common.evaluation;

import static io.kubewarden.networkenforcer.common.evaluation.Decision.ALLOWED;
import static io.kubewarden.networkenforcer.common.evaluation.Decision.DENIED;
import static io.kubewarden.networkenforcer.common.evaluation.Decision.NOT_SELECTED;
import static io.kubewarden.networkenforcer.common.evaluation.Endpoints.pod;
import static io.kubewarden.networkenforcer.common.evaluation.Endpoints.podWithIdentity;
import static io.kubewarden.networkenforcer.common.flow.Protocol.TCP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.kubewarden.networkenforcer.common.crd.PolicySpec;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicySpec;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.json.Json;
import java.io.UncheckedIOException;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Dispatch on backend and direction of a whole WNP spec, as written by a user. */
class PolicyEvaluationTest {

  static final String KUBERNETES_INGRESS =
      """
      backend: kubernetes
      direction: Ingress
      targetRef: {kind: Deployment, name: web}
      kubernetes:
        podSelector: {matchLabels: {app: web}}
        policyTypes: [Ingress]
        ingress:
        - from:
          - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: prod}}
            podSelector: {matchLabels: {app: frontend}}
          ports:
          - {protocol: TCP, port: 8080}
      """;

  static final String KUBERNETES_EGRESS =
      """
      backend: kubernetes
      direction: Egress
      targetRef: {kind: Deployment, name: frontend}
      kubernetes:
        podSelector: {matchLabels: {app: frontend}}
        policyTypes: [Egress]
        egress:
        - to:
          - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: prod}}
            podSelector: {matchLabels: {app: web}}
          ports:
          - {protocol: TCP, port: 8080}
      """;

  static final String ISTIO_INGRESS =
      """
      backend: istio
      direction: Ingress
      targetRef: {kind: Deployment, name: web}
      istio:
        selector: {matchLabels: {app: web}}
        rules:
        - from:
          - source: {principals: [cluster.local/ns/prod/sa/frontend]}
          to:
          - operation: {ports: ["8080"]}
      """;

  static final FlowEndpoint FRONTEND =
      podWithIdentity("spiffe://cluster.local/ns/prod/sa/frontend", "prod", "app", "frontend");
  static final FlowEndpoint BATCH =
      podWithIdentity("spiffe://cluster.local/ns/prod/sa/batch", "prod", "app", "batch");
  static final FlowEndpoint WEB = pod("prod", "app", "web");

  static Stream<Arguments> cases() {
    return Stream.of(
        c("kubernetes Ingress: allowed peer", KUBERNETES_INGRESS, FRONTEND, WEB, 8080, ALLOWED),
        c("kubernetes Ingress: other peer", KUBERNETES_INGRESS, BATCH, WEB, 8080, DENIED),
        c(
            "kubernetes Ingress: the flow's source is not the policy's pod",
            KUBERNETES_INGRESS,
            WEB,
            FRONTEND,
            8080,
            NOT_SELECTED),
        c(
            "kubernetes Egress: evaluated on the source",
            KUBERNETES_EGRESS,
            FRONTEND,
            WEB,
            8080,
            ALLOWED),
        c("kubernetes Egress: other port", KUBERNETES_EGRESS, FRONTEND, WEB, 9090, DENIED),
        c("istio Ingress: allowed principal", ISTIO_INGRESS, FRONTEND, WEB, 8080, ALLOWED),
        c("istio Ingress: other principal", ISTIO_INGRESS, BATCH, WEB, 8080, DENIED),
        c(
            "istio with direction Egress has no say",
            ISTIO_INGRESS.replace("direction: Ingress", "direction: Egress"),
            FRONTEND,
            WEB,
            9999,
            NOT_SELECTED));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void dispatches(Case c) {
    assertThat(PolicyEvaluation.evaluate(c.spec(), c.src(), c.dst(), TCP, c.port()))
        .as(c.name())
        .isEqualTo(c.expected());
  }

  @Test
  void incompleteSpecsAreRejectedWithTheMissingField() {
    assertThatThrownBy(
            () ->
                PolicyEvaluation.evaluate(
                    spec("backend: kubernetes\ndirection: Ingress"), FRONTEND, WEB, TCP, 80))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("spec.kubernetes");
    assertThatThrownBy(
            () ->
                PolicyEvaluation.evaluate(
                    spec("backend: istio\ndirection: Ingress"), FRONTEND, WEB, TCP, 80))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("spec.istio");
    assertThatThrownBy(
            () -> PolicyEvaluation.evaluate(spec("direction: Ingress"), FRONTEND, WEB, TCP, 80))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("backend");
  }

  record Case(
      String name,
      PolicySpec spec,
      FlowEndpoint src,
      FlowEndpoint dst,
      int port,
      Decision expected) {}

  private static Arguments c(
      String name, String spec, FlowEndpoint src, FlowEndpoint dst, int port, Decision expected) {
    return Arguments.of(Named.of(name, new Case(name, spec(spec), src, dst, port, expected)));
  }

  static PolicySpec spec(String yaml) {
    try {
      return Json.yaml().readValue(yaml, WorkloadNetworkPolicySpec.class);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
