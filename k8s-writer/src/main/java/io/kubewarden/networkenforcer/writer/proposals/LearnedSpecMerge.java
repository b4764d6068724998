package io.kubewarden.networkenforcer.writer.proposals;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposalSpec;
import io.kubewarden.networkenforcer.common.json.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A reviewer's edit to a proposal stands: the writer applies only what the processor learned since
 * it last applied. Given the learned spec it applied last ({@code previous}), the newly learned one
 * ({@code learned}) and the live spec (with the person's edits), the result is the live spec plus
 * every peer, and every port of a peer, that is in {@code learned} and was not in {@code previous}.
 * Rules are matched by their peers; a port a person removed stays removed until the processor
 * learns it anew (it never does: learned ports only grow), a peer a person removed comes back only
 * with a port that is new.
 */
public final class LearnedSpecMerge {
  private static final ObjectMapper JSON = Json.mapper();

  /** Where the rules are, what identifies their peers, and where their ports are. */
  private enum RuleList {
    KUBERNETES_INGRESS("kubernetes", "ingress", "from"),
    KUBERNETES_EGRESS("kubernetes", "egress", "to"),
    ISTIO("istio", "rules", "from"),
    // Cilium: a rule's peers are all its fields but toPorts (toEndpoints, toFQDNs, toCIDR, ...).
    CILIUM_INGRESS("cilium", "ingress", null),
    CILIUM_EGRESS("cilium", "egress", null);

    final String payload;
    final String list;
    final String peers;

    RuleList(String payload, String list, String peers) {
      this.payload = payload;
      this.list = list;
      this.peers = peers;
    }
  }

  private LearnedSpecMerge() {}

  /** The live spec with what was learned since {@code previous} merged in. */
  public static WorkloadNetworkPolicyProposalSpec merge(
      WorkloadNetworkPolicyProposalSpec previous,
      WorkloadNetworkPolicyProposalSpec learned,
      WorkloadNetworkPolicyProposalSpec live) {
    if (live == null || previous != null && previous.equals(live)) {
      // Nobody edited it: the proposal is what was learned, in the learned order (so live learning
      // and
      // `learn` on the same flows give the same object, whatever order the flows came in).
      return learned;
    }
    if (previous == null) {
      // Nothing known of what was learned before: everything learned counts as new.
      previous = new WorkloadNetworkPolicyProposalSpec();
    }
    ObjectNode merged = JSON.valueToTree(live);
    ObjectNode before = JSON.valueToTree(previous);
    ObjectNode now = JSON.valueToTree(learned);
    for (RuleList where : RuleList.values()) {
      for (JsonNode rule : rules(now, where)) {
        JsonNode peers = peersOf(rule, where);
        List<JsonNode> newPorts = new ArrayList<>(ports(rule, where));
        JsonNode old = find(rules(before, where), where, peers);
        if (old != null) {
          newPorts.removeAll(ports(old, where));
          if (newPorts.isEmpty()) {
            continue;
          }
        }
        ArrayNode target = rulesForWrite(merged, where);
        JsonNode existing = find(target, where, peers);
        if (existing == null) {
          target.add(
              cilium(where) && old == null ? rule.deepCopy() : ruleWith(rule, where, newPorts));
        } else if (cilium(where)) {
          if (existing.has("toPorts") && !existing.get("toPorts").isEmpty()) {
            addPorts((ObjectNode) existing, where, newPorts);
          } // else: a rule without toPorts allows every port of its peers already
        } else {
          if (where == RuleList.ISTIO
              || existing.has("ports") && !existing.get("ports").isEmpty()) {
            addPorts((ObjectNode) existing, where, newPorts);
          } // else: a rule without ports allows every port of the peer already
        }
      }
    }
    try {
      return JSON.treeToValue(merged, WorkloadNetworkPolicyProposalSpec.class);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(
          "cannot read a merged proposal spec back: " + e.getMessage(), e);
    }
  }

  private static List<JsonNode> rules(ObjectNode spec, RuleList where) {
    List<JsonNode> out = new ArrayList<>();
    spec.path(where.payload).path(where.list).forEach(out::add);
    return out;
  }

  private static ArrayNode rulesForWrite(ObjectNode spec, RuleList where) {
    ObjectNode payload =
        spec.has(where.payload) && spec.get(where.payload).isObject()
            ? (ObjectNode) spec.get(where.payload)
            : spec.putObject(where.payload);
    return payload.has(where.list) && payload.get(where.list).isArray()
        ? (ArrayNode) payload.get(where.list)
        : payload.putArray(where.list);
  }

  private static boolean cilium(RuleList where) {
    return where == RuleList.CILIUM_INGRESS || where == RuleList.CILIUM_EGRESS;
  }

  /** What identifies a rule: its peer list, or for Cilium every field but its ports. */
  private static JsonNode peersOf(JsonNode rule, RuleList where) {
    if (!cilium(where)) {
      return rule.path(where.peers);
    }
    ObjectNode peers = rule.isObject() ? ((ObjectNode) rule).deepCopy() : JSON.createObjectNode();
    peers.remove("toPorts");
    return peers;
  }

  private static JsonNode find(Iterable<JsonNode> rules, RuleList where, JsonNode peers) {
    for (JsonNode r : rules) {
      if (Objects.equals(peersOf(r, where), peers)) {
        return r;
      }
    }
    return null;
  }

  /**
   * Kubernetes: the {@code ports} entries; Istio: the port strings of {@code to[].operation.ports};
   * Cilium: the entries of {@code toPorts[].ports}.
   */
  private static List<JsonNode> ports(JsonNode rule, RuleList where) {
    List<JsonNode> out = new ArrayList<>();
    if (where == RuleList.ISTIO) {
      rule.path("to").forEach(to -> to.path("operation").path("ports").forEach(out::add));
    } else if (cilium(where)) {
      rule.path("toPorts").forEach(pr -> pr.path("ports").forEach(out::add));
    } else {
      rule.path("ports").forEach(out::add);
    }
    return out;
  }

  private static ObjectNode ruleWith(JsonNode learnedRule, RuleList where, List<JsonNode> ports) {
    if (cilium(where)) {
      ObjectNode r = ((ObjectNode) peersOf(learnedRule, where)).deepCopy();
      r.putArray("toPorts").addObject().putArray("ports");
      addPorts(r, where, ports);
      return r;
    }
    ObjectNode r = JSON.createObjectNode();
    r.set(where.peers, learnedRule.path(where.peers).deepCopy());
    addPorts(r, where, ports);
    return r;
  }

  private static void addPorts(ObjectNode rule, RuleList where, List<JsonNode> ports) {
    ArrayNode list;
    if (where == RuleList.ISTIO) {
      ArrayNode to =
          rule.has("to") && rule.get("to").isArray()
              ? (ArrayNode) rule.get("to")
              : rule.putArray("to");
      ObjectNode first = to.isEmpty() ? to.addObject() : (ObjectNode) to.get(0);
      ObjectNode operation =
          first.has("operation")
              ? (ObjectNode) first.get("operation")
              : first.putObject("operation");
      list =
          operation.has("ports") ? (ArrayNode) operation.get("ports") : operation.putArray("ports");
    } else if (cilium(where)) {
      // The first port rule: learned rules have one (the DNS rule's is never merged into).
      ObjectNode first = (ObjectNode) rule.get("toPorts").get(0);
      list = first.has("ports") ? (ArrayNode) first.get("ports") : first.putArray("ports");
    } else {
      list = rule.has("ports") ? (ArrayNode) rule.get("ports") : rule.putArray("ports");
    }
    for (JsonNode p : ports) {
      boolean present = false;
      for (JsonNode have : list) {
        present |= have.equals(p);
      }
      if (!present) {
        list.add(p.deepCopy());
      }
    }
  }
}
