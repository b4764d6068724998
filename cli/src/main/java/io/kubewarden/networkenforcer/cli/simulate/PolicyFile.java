package io.kubewarden.networkenforcer.cli.simulate;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.kubewarden.networkenforcer.cli.history.PolicyDocuments;
import io.kubewarden.networkenforcer.common.config.ConfigException;
import io.kubewarden.networkenforcer.common.crd.IstioPolicy;
import io.kubewarden.networkenforcer.common.crd.PolicySpec;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposalSpec;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicySpec;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.common.json.JsonProblem;
import io.kubewarden.networkenforcer.common.policy.Backend;
import io.kubewarden.networkenforcer.common.policy.Direction;
import io.kubewarden.networkenforcer.common.workload.WorkloadRef;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Reads the policies of a YAML file (one or several documents, or a {@code kind: List}):
 * WorkloadNetworkPolicyProposal and WorkloadNetworkPolicy (any backend), NetworkPolicy and Istio
 * ALLOW AuthorizationPolicy. Anything else, or a field the evaluator cannot honour, is refused with
 * a message that names the document and what to fix, rather than simulated wrongly.
 */
public final class PolicyFile {
  static final String KINDS =
      "WorkloadNetworkPolicyProposal, WorkloadNetworkPolicy, NetworkPolicy or "
          + "AuthorizationPolicy";
  private static final Set<String> ISTIO_RULE_FIELDS = Set.of("from", "to");
  private static final Set<String> ISTIO_SOURCE_FIELDS = Set.of("principals");
  private static final Set<String> ISTIO_OPERATION_FIELDS = Set.of("ports");

  private PolicyFile() {}

  static List<CandidatePolicy> load(Path file) {
    List<CandidatePolicy> out = new ArrayList<>();
    for (PolicyDocuments.Document d : PolicyDocuments.read(file, "--policy", KINDS)) {
      out.add(candidate(d.where(), d.node()));
    }
    return out;
  }

  private static CandidatePolicy candidate(String where, JsonNode doc) {
    if (!doc.isObject()) {
      throw new ConfigException(where + " is not a Kubernetes object; --policy takes a " + KINDS);
    }
    String kind = doc.path("kind").asText("");
    String name = doc.path("metadata").path("name").asText("");
    String namespace = doc.path("metadata").path("namespace").asText("");
    if (kind.isEmpty()) {
      throw new ConfigException(where + " has no kind; --policy takes a " + KINDS);
    }
    if (!Set.of(
            "WorkloadNetworkPolicyProposal",
            "WorkloadNetworkPolicy",
            "NetworkPolicy",
            "AuthorizationPolicy")
        .contains(kind)) {
      throw new ConfigException(
          where + " is a " + kind + ", not a policy; --policy takes a " + KINDS);
    }
    if (namespace.isEmpty()) {
      throw new ConfigException(
          where
              + " ("
              + kind
              + " "
              + name
              + ") has no metadata.namespace; a policy applies "
              + "to the pods of one namespace, so set it");
    }
    String label = kind + " " + namespace + "/" + name;
    String path = "spec";
    try {
      return switch (kind) {
        case "WorkloadNetworkPolicyProposal" ->
            workloadPolicy(
                label,
                namespace,
                Json.mapper()
                    .treeToValue(spec(doc, label), WorkloadNetworkPolicyProposalSpec.class));
        case "WorkloadNetworkPolicy" ->
            workloadPolicy(
                label,
                namespace,
                Json.mapper().treeToValue(spec(doc, label), WorkloadNetworkPolicySpec.class));
        case "NetworkPolicy" -> {
          path = "";
          yield networkPolicy(label, namespace, doc);
        }
        default -> authorizationPolicy(label, namespace, doc);
      };
    } catch (PartException e) {
      throw new ConfigException(
          label + " (" + where + ") is not valid " + JsonProblem.describe(e.cause, e.path));
    } catch (JsonProcessingException e) {
      throw new ConfigException(
          label + " (" + where + ") is not valid " + JsonProblem.describe(e, path));
    } catch (ConfigException e) {
      // The checks name the policy; in a directory of files, where it is matters as much.
      throw e.getMessage().contains(where)
          ? e
          : new ConfigException(e.getMessage() + " (" + where + ")");
    }
  }

  /** A part of an AuthorizationPolicy that does not read, with where it is. */
  private static final class PartException extends RuntimeException {
    private final JsonProcessingException cause;
    private final String path;

    PartException(JsonProcessingException cause, String path) {
      super(cause);
      this.cause = cause;
      this.path = path;
    }
  }

  private static JsonNode spec(JsonNode doc, String label) {
    JsonNode spec = doc.get("spec");
    if (spec == null || !spec.isObject()) {
      throw new ConfigException(label + " has no spec");
    }
    return spec;
  }

  private static CandidatePolicy workloadPolicy(String label, String namespace, PolicySpec spec) {
    if (spec.getBackend() == null
        || spec.getDirection() == null
        || spec.getTargetRef() == null
        || spec.getTargetRef().getKind() == null
        || spec.getTargetRef().getName() == null) {
      throw new ConfigException(
          label + " needs spec.backend, spec.direction and spec.targetRef {kind, name}");
    }
    WorkloadRef target =
        new WorkloadRef(namespace, spec.getTargetRef().getKind(), spec.getTargetRef().getName());
    if (spec.getBackend() == Backend.cilium) {
      if (spec.getCilium() == null || spec.getKubernetes() != null || spec.getIstio() != null) {
        throw new ConfigException(
            label
                + " has backend cilium, so it needs spec.cilium (and no spec.kubernetes or"
                + " spec.istio)");
      }
      if (spec.getCilium().getEndpointSelector() == null) {
        throw new ConfigException(label + " needs spec.cilium.endpointSelector");
      }
      noEmptyEntry(label, "spec.cilium.ingress", spec.getCilium().getIngress());
      noEmptyEntry(label, "spec.cilium.egress", spec.getCilium().getEgress());
      return CandidatePolicy.cilium(
          label,
          namespace,
          Optional.of(target),
          Optional.of(spec.getDirection()),
          spec.getCilium());
    }
    if (spec.getBackend() == Backend.kubernetes) {
      if (spec.getKubernetes() == null || spec.getIstio() != null) {
        throw new ConfigException(
            label + " has backend kubernetes, so it needs spec.kubernetes (and no spec.istio)");
      }
      return CandidatePolicy.kubernetes(
          label,
          namespace,
          Optional.of(target),
          Optional.of(spec.getDirection()),
          spec.getKubernetes());
    }
    if (spec.getIstio() == null || spec.getKubernetes() != null) {
      throw new ConfigException(
          label + " has backend istio, so it needs spec.istio (and no spec.kubernetes)");
    }
    if (spec.getDirection() != Direction.Ingress) {
      throw new ConfigException(label + ": the istio backend supports direction Ingress only");
    }
    return CandidatePolicy.istio(label, namespace, Optional.of(target), spec.getIstio());
  }

  private static CandidatePolicy networkPolicy(String label, String namespace, JsonNode doc)
      throws JsonProcessingException {
    spec(doc, label);
    NetworkPolicy policy = Json.mapper().treeToValue(doc, NetworkPolicy.class);
    return CandidatePolicy.kubernetes(
        label, namespace, Optional.empty(), Optional.empty(), policy.getSpec());
  }

  private static CandidatePolicy authorizationPolicy(String label, String namespace, JsonNode doc)
      throws JsonProcessingException {
    JsonNode spec = spec(doc, label);
    String action = spec.path("action").asText("ALLOW");
    if (!"ALLOW".equals(action)) {
      throw new ConfigException(
          label
              + " has action "
              + action
              + "; simulate evaluates ALLOW policies only "
              + "(the kind the product renders)");
    }
    for (String field : iterable(spec.fieldNames())) {
      if (!Set.of("selector", "rules", "action").contains(field)) {
        throw unsupported(label, "spec." + field);
      }
    }
    List<JsonNode> rules = listAt(label, "spec.rules", spec.path("rules"));
    List<IstioPolicy.Rule> parsed = new ArrayList<>();
    for (int r = 0; r < rules.size(); r++) {
      JsonNode rule = rules.get(r);
      only(label, "spec.rules[" + r + "]", rule, ISTIO_RULE_FIELDS);
      List<JsonNode> from = listAt(label, "spec.rules[" + r + "].from", rule.path("from"));
      for (int f = 0; f < from.size(); f++) {
        only(
            label,
            "spec.rules[" + r + "].from[" + f + "].source",
            from.get(f).path("source"),
            ISTIO_SOURCE_FIELDS);
      }
      List<JsonNode> to = listAt(label, "spec.rules[" + r + "].to", rule.path("to"));
      for (int t = 0; t < to.size(); t++) {
        only(
            label,
            "spec.rules[" + r + "].to[" + t + "].operation",
            to.get(t).path("operation"),
            ISTIO_OPERATION_FIELDS);
      }
      try {
        parsed.add(Json.mapper().treeToValue(rule, IstioPolicy.Rule.class));
      } catch (JsonProcessingException e) {
        throw new PartException(e, "spec.rules[" + r + "]");
      }
    }
    LabelSelector selector;
    try {
      selector =
          spec.has("selector")
              ? new LabelSelector(
                  null,
                  Json.mapper()
                      .convertValue(
                          spec.path("selector").path("matchLabels"),
                          Json.mapper()
                              .getTypeFactory()
                              .constructMapType(Map.class, String.class, String.class)))
              : null;
    } catch (IllegalArgumentException e) {
      // convertValue wraps what treeToValue throws.
      throw e.getCause() instanceof JsonProcessingException jpe
          ? new PartException(jpe, "spec.selector.matchLabels")
          : e;
    }
    return CandidatePolicy.istio(
        label, namespace, Optional.empty(), new IstioPolicy(selector, parsed));
  }

  /**
   * The elements of a YAML list, an empty entry as an empty object; none when the field is absent,
   * an error when it is not a list.
   */
  private static List<JsonNode> listAt(String label, String path, JsonNode node) {
    if (node.isMissingNode() || node.isNull()) {
      return List.of();
    }
    if (!node.isArray()) {
      throw new ConfigException(label + ": " + path + " must be a list");
    }
    List<JsonNode> elements = new ArrayList<>();
    // An empty entry ("-" alone) decodes as an empty object on the API server (Go's zero value).
    node.forEach(e -> elements.add(e.isNull() ? Json.mapper().createObjectNode() : e));
    return elements;
  }

  /** A bare "-" in a rule list: refused, as an entry that says nothing is a slip, not a rule. */
  private static void noEmptyEntry(String label, String path, List<?> entries) {
    if (entries == null) {
      return;
    }
    for (int i = 0; i < entries.size(); i++) {
      if (entries.get(i) == null) {
        throw new ConfigException(
            label + ": " + path + "[" + i + "] is empty; give it peers and ports or remove it");
      }
    }
  }

  private static void only(String label, String path, JsonNode node, Set<String> allowed) {
    for (String field : iterable(node.fieldNames())) {
      if (!allowed.contains(field)) {
        throw unsupported(label, path + "." + field);
      }
    }
  }

  private static ConfigException unsupported(String label, String field) {
    return new ConfigException(
        label
            + " uses "
            + field
            + ", which simulate cannot evaluate; it evaluates the "
            + "selector, source principals and destination ports of ALLOW rules (remove the field, or simulate "
            + "the policy without it)");
  }

  private static <T> Iterable<T> iterable(Iterator<T> it) {
    return () -> it;
  }
}
