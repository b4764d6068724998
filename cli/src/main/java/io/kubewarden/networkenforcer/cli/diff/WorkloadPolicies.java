package io.kubewarden.networkenforcer.cli.diff;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.kubewarden.networkenforcer.cli.history.PolicyDocuments;
import io.kubewarden.networkenforcer.common.config.ConfigException;
import io.kubewarden.networkenforcer.common.crd.PolicySpec;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposalSpec;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicySpec;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.common.json.JsonProblem;
import io.kubewarden.networkenforcer.common.policy.Direction;
import io.kubewarden.networkenforcer.common.workload.WorkloadRef;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** Proposals and policies read from files, with the target each one is for. */
final class WorkloadPolicies {
  private WorkloadPolicies() {}

  /**
   * A proposal or policy.
   *
   * @param label {@code <kind> <namespace>/<name>}
   */
  record Named(String label, WorkloadRef target, Direction direction, PolicySpec spec) {
    String targetKey() {
      return target.key() + "/" + direction;
    }
  }

  static List<Named> read(Path file, String option, Set<String> kinds) {
    String expected = String.join(" or ", kinds);
    List<Named> out = new ArrayList<>();
    for (PolicyDocuments.Document d : PolicyDocuments.read(file, option, expected)) {
      JsonNode doc = d.node();
      String kind = doc.path("kind").asText("");
      String where = d.where();
      if (!kinds.contains(kind)) {
        throw new ConfigException(
            where
                + " is "
                + (kind.isEmpty() ? "not a Kubernetes object" : "a " + kind)
                + "; "
                + option
                + " takes a "
                + expected);
      }
      String namespace = doc.path("metadata").path("namespace").asText("");
      String name = doc.path("metadata").path("name").asText("");
      if (namespace.isEmpty()) {
        throw new ConfigException(
            where + " (" + kind + " " + name + ") has no metadata.namespace; set it");
      }
      Class<? extends PolicySpec> type =
          kind.equals("WorkloadNetworkPolicy")
              ? WorkloadNetworkPolicySpec.class
              : WorkloadNetworkPolicyProposalSpec.class;
      PolicySpec spec;
      try {
        spec = Json.mapper().treeToValue(doc.path("spec"), type);
      } catch (JsonProcessingException e) {
        throw new ConfigException(
            where + " is not a valid " + kind + " " + JsonProblem.describe(e, "spec"));
      }
      out.add(named(kind + " " + namespace + "/" + name, namespace, spec, where));
    }
    return out;
  }

  static Named named(String label, String namespace, PolicySpec spec, String where) {
    if (spec == null
        || spec.getTargetRef() == null
        || spec.getTargetRef().getKind() == null
        || spec.getTargetRef().getName() == null
        || spec.getDirection() == null
        || spec.getBackend() == null) {
      throw new ConfigException(
          where
              + " ("
              + label
              + ") needs spec.backend, spec.direction and spec.targetRef "
              + "{kind, name}");
    }
    return new Named(
        label,
        new WorkloadRef(namespace, spec.getTargetRef().getKind(), spec.getTargetRef().getName()),
        spec.getDirection(),
        spec);
  }
}
