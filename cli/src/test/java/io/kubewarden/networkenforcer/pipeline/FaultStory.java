package io.kubewarden.networkenforcer.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicySpec;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicy;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.common.flow.Verdict;
import io.kubewarden.networkenforcer.common.policy.Labels;
import io.kubewarden.networkenforcer.common.policy.Mode;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.awaitility.core.ConditionTimeoutException;

/**
 * The story both fault tests tell ({@link FaultInjectionTest} in one JVM, {@link CrashFaultTest}
 * with real crashes): the workloads, the seeded flows between them, and what those must leave in
 * the cluster, read back from the API server. One copy, so both tests count against the same
 * expectations.
 */
final class FaultStory {
  static final String NS = "faults";

  /** Targets whose ingress is learned; web and api are then promoted, db stays a proposal. */
  static final List<String> TARGETS = List.of("web", "api", "db");

  static final List<String> CLIENTS = List.of("c1", "c2", "c3");
  static final List<String> INTRUDERS = List.of("x1", "x2");
  private static final List<Integer> PORTS = List.of(8080, 9090);
  static final String MONITORED = "web";
  static final String PROTECTED = "api";

  /**
   * Only there to tell when the processor knows the promoted policies (its count is not scripted).
   */
  static final String PROBE = "probe";

  static final int PROBE_PORT = 7000;

  private final KubernetesClient admin;
  private final Duration wait;

  /**
   * Reads and writes the story's namespace as the cluster's admin, waiting at most {@code wait}.
   */
  FaultStory(KubernetesClient admin, Duration wait) {
    this.admin = admin;
    this.wait = wait;
  }

  // ---- the cluster before and between the phases ----

  /** A Deployment for every workload of the story (targets, clients, intruders, the probe). */
  void deployWorkloads() {
    Stream.of(TARGETS, CLIENTS, INTRUDERS, List.of(PROBE))
        .flatMap(List::stream)
        .forEach(this::deployment);
  }

  private void deployment(String name) {
    TestWorkloads.create(admin, NS, name);
  }

  /** Waits until the proposals of the targets to promote hold what the learning phase taught. */
  void awaitLearned(Script script) {
    for (String target : List.of(MONITORED, PROTECTED, PROBE)) {
      String name = "deployment-" + target + "-ingress";
      await("proposal " + name + " complete")
          .atMost(wait)
          .pollInterval(Duration.ofMillis(500))
          .until(
              () -> allowList(proposal(name)),
              got -> got.equals(script.expectedProposals().get(name)));
    }
  }

  /** Labels the target's proposal for promotion and waits for the policy the writer makes of it. */
  void promote(String target, Mode mode) {
    String name = "deployment-" + target + "-ingress";
    admin
        .resources(WorkloadNetworkPolicyProposal.class)
        .inNamespace(NS)
        .withName(name)
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            admin
                .getKubernetesSerialization()
                .asJson(Map.of("metadata", Map.of("labels", Map.of(Labels.PROMOTE, mode.name())))));
    await(name + " promoted to " + mode).atMost(wait).until(() -> policy(name) != null);
  }

  /**
   * Waits until every proposal and count is as scripted; on a timeout runs {@code explain} (where
   * the run stands) and fails on whichever of the two did not converge.
   */
  void awaitConverged(Script script, Runnable explain) {
    Map<String, Long> expectedCounts = script.expectedViolations();
    try {
      await("converged")
          .atMost(wait)
          .pollInterval(Duration.ofSeconds(1))
          .until(
              () ->
                  allowLists().equals(script.expectedFinalProposals())
                      && actualCounts().equals(expectedCounts));
    } catch (ConditionTimeoutException e) {
      explain.run();
      assertThat(actualCounts())
          .as("violationCount per policy, not converged")
          .isEqualTo(expectedCounts);
      assertThat(allowLists())
          .as("proposals, not converged")
          .isEqualTo(script.expectedFinalProposals());
      throw e;
    }
  }

  // ---- observations of the end state ----

  Map<String, List<Pair>> allowLists() {
    Map<String, List<Pair>> lists = new TreeMap<>();
    for (WorkloadNetworkPolicyProposal p :
        admin.resources(WorkloadNetworkPolicyProposal.class).inNamespace(NS).list().getItems()) {
      lists.put(p.getMetadata().getName(), allowList(p));
    }
    return lists;
  }

  /** The (peer app, port) pairs of a proposal's NetworkPolicy spec, sorted, repeats kept. */
  private static List<Pair> allowList(WorkloadNetworkPolicyProposal proposal) {
    if (proposal == null
        || proposal.getSpec() == null
        || proposal.getSpec().getKubernetes() == null) {
      return List.of();
    }
    NetworkPolicySpec spec = proposal.getSpec().getKubernetes();
    List<Pair> pairs = new ArrayList<>();
    spec.getIngress().forEach(rule -> collect(rule.getFrom(), rule.getPorts(), pairs));
    spec.getEgress().forEach(rule -> collect(rule.getTo(), rule.getPorts(), pairs));
    Collections.sort(pairs);
    return pairs;
  }

  private static void collect(
      List<NetworkPolicyPeer> peers, List<NetworkPolicyPort> ports, List<Pair> pairs) {
    for (NetworkPolicyPeer peer : peers) {
      if (peer.getPodSelector() == null
          || peer.getPodSelector().getMatchLabels() == null
          || !peer.getPodSelector().getMatchLabels().containsKey("app")) {
        continue;
      }
      for (NetworkPolicyPort port : ports) {
        pairs.add(
            new Pair(
                peer.getPodSelector().getMatchLabels().get("app"), port.getPort().getIntVal()));
      }
    }
  }

  Map<String, Long> actualCounts() {
    Map<String, Long> counts = new TreeMap<>();
    for (String target : List.of(MONITORED, PROTECTED)) {
      counts.put("deployment-" + target + "-ingress", violationCount(target));
    }
    return counts;
  }

  long violationCount(String target) {
    WorkloadNetworkPolicy p = policy("deployment-" + target + "-ingress");
    return p == null || p.getStatus() == null ? 0 : p.getStatus().getViolationCount();
  }

  private WorkloadNetworkPolicyProposal proposal(String name) {
    return admin
        .resources(WorkloadNetworkPolicyProposal.class)
        .inNamespace(NS)
        .withName(name)
        .get();
  }

  WorkloadNetworkPolicy policy(String name) {
    return admin.resources(WorkloadNetworkPolicy.class).inNamespace(NS).withName(name).get();
  }

  /**
   * What the cluster lost or holds twice against the script: counts below or above the scripted
   * ones, allow-list pairs missing or repeated.
   */
  record Tally(int lost, int doubled) {
    static Tally of(Script script, Map<String, Long> counts, Map<String, List<Pair>> proposals) {
      int lost = 0;
      int doubled = 0;
      for (var expected : script.expectedViolations().entrySet()) {
        long got = counts.getOrDefault(expected.getKey(), 0L);
        lost += (int) Math.max(0, expected.getValue() - got);
        doubled += (int) Math.max(0, got - expected.getValue());
      }
      for (var expected : script.expectedFinalProposals().entrySet()) {
        List<Pair> got = proposals.getOrDefault(expected.getKey(), List.of());
        lost += (int) expected.getValue().stream().filter(p -> !got.contains(p)).count();
        doubled += got.size() - new HashSet<>(got).size();
      }
      return new Tally(lost, doubled);
    }
  }

  // ---- the script ----

  static FlowRecord flow(String from, String to, int port, Verdict verdict) {
    return new FlowRecord(
        Instant.now(),
        Provider.calico,
        Protocol.TCP,
        port,
        TestWorkloads.endpoint(NS, from),
        TestWorkloads.endpoint(NS, to),
        // A drop is reported where it happened: at the destination, for an ingress policy.
        verdict,
        null,
        1,
        verdict == Verdict.FORWARDED ? Reporter.SOURCE : Reporter.DESTINATION);
  }

  /** A (peer, port) of an allow-list, from the target's side. */
  record Pair(String peer, int port) implements Comparable<Pair> {
    @Override
    public int compareTo(Pair o) {
      int c = peer.compareTo(o.peer);
      return c != 0 ? c : Integer.compare(port, o.port);
    }
  }

  /** The scripted flows and what they must leave in the cluster. */
  static final class Script {
    final List<FlowRecord> learning = new ArrayList<>();
    final List<FlowRecord> enforcement = new ArrayList<>();
    private final Map<String, Set<Pair>> taught = new TreeMap<>();
    private final Map<String, Long> violations = new TreeMap<>();

    static Script generate(Random random, int flows, int violations) {
      Script s = new Script();
      int allowed = Math.max(0, flows - violations) / 4;
      int learning = Math.max(0, flows - violations - allowed);
      // Every target and port is taught once, so the policies have allow-lists to enforce.
      for (String target : TARGETS) {
        for (int port : PORTS) {
          s.learn(CLIENTS.get(random.nextInt(CLIENTS.size())), target, port);
        }
      }
      s.learn("c1", PROBE, PROBE_PORT);
      while (s.learning.size() < learning) {
        s.learn(
            CLIENTS.get(random.nextInt(CLIENTS.size())),
            TARGETS.get(random.nextInt(TARGETS.size())),
            PORTS.get(random.nextInt(PORTS.size())));
      }
      List<FlowRecord> phase = new ArrayList<>();
      for (int i = 0; i < allowed; i++) {
        // A peer and port the policy allows: no violation, nothing new learned.
        String target = random.nextBoolean() ? MONITORED : PROTECTED;
        Pair pair =
            new ArrayList<>(s.taught.get(ingress(target)))
                .get(random.nextInt(s.taught.get(ingress(target)).size()));
        phase.add(flow(pair.peer(), target, pair.port(), Verdict.FORWARDED));
      }
      for (int i = 0; i < violations; i++) {
        String intruder = INTRUDERS.get(random.nextInt(INTRUDERS.size()));
        int port = PORTS.get(random.nextInt(PORTS.size()));
        if (random.nextBoolean()) {
          // Monitor: forwarded, but the policy would deny it; the intruder's egress is learned.
          phase.add(flow(intruder, MONITORED, port, Verdict.FORWARDED));
          s.violations.merge("deployment-" + MONITORED + "-ingress", 1L, Long::sum);
          s.taught
              .computeIfAbsent(egress(intruder), k -> new TreeSet<>())
              .add(new Pair(MONITORED, port));
        } else {
          // Protect: the data plane dropped it.
          phase.add(flow(intruder, PROTECTED, port, Verdict.DENIED));
          s.violations.merge("deployment-" + PROTECTED + "-ingress", 1L, Long::sum);
        }
      }
      Collections.shuffle(phase, random);
      s.enforcement.addAll(phase);
      s.violations.putIfAbsent("deployment-" + MONITORED + "-ingress", 0L);
      s.violations.putIfAbsent("deployment-" + PROTECTED + "-ingress", 0L);
      return s;
    }

    private void learn(String client, String target, int port) {
      learning.add(flow(client, target, port, Verdict.FORWARDED));
      taught.computeIfAbsent(ingress(target), k -> new TreeSet<>()).add(new Pair(client, port));
      taught.computeIfAbsent(egress(client), k -> new TreeSet<>()).add(new Pair(target, port));
    }

    int size() {
      return learning.size() + enforcement.size();
    }

    /** Proposal name → sorted allow-list, before any promotion. */
    Map<String, List<Pair>> expectedProposals() {
      Map<String, List<Pair>> expected = new TreeMap<>();
      taught.forEach((name, pairs) -> expected.put(name, List.copyOf(pairs)));
      return expected;
    }

    /** At the end: the promoted targets' proposals have become policies. */
    Map<String, List<Pair>> expectedFinalProposals() {
      Map<String, List<Pair>> expected = expectedProposals();
      List.of(MONITORED, PROTECTED, PROBE).forEach(target -> expected.remove(ingress(target)));
      return expected;
    }

    Map<String, Long> expectedViolations() {
      return violations;
    }

    private static String ingress(String target) {
      return "deployment-" + target + "-ingress";
    }

    private static String egress(String client) {
      return "deployment-" + client + "-egress";
    }
  }
}
