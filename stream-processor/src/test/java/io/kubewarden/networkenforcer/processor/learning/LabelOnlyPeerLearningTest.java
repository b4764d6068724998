package io.kubewarden.networkenforcer.processor.learning;

import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.forwarded;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.selector;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.common.crd.RuleEvidence;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.common.policy.Mode;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.common.workload.WorkloadKind;
import io.kubewarden.networkenforcer.processor.fixtures.Policies;
import io.kubewarden.networkenforcer.processor.fixtures.ProcessorTestDriver;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A peer the ingest knows only by its namespace and labels (no workload could be inferred): the
 * known end's rule selects those labels, the peer has no proposal of its own, its evidence says how
 * it is known; Istio learns nothing from it; the same pods later named as a workload keep one rule.
 */
class LabelOnlyPeerLearningTest {
  private static final String TARGET = "default/Deployment/productpage-v1/Ingress";
  private static final Instant T = Instant.parse("2026-08-03T15:40:01Z");
  private static final Map<String, String> LOADGEN_SELECTOR =
      Map.of("app", "loadgen", "app.kubernetes.io/part-of", "bookinfo");
  private static final String LOADGEN_KEY =
      "default/Labels/app=loadgen,app.kubernetes.io/part-of=bookinfo";

  private static final FlowEndpoint PRODUCTPAGE =
      FlowEndpoint.builder()
          .namespace("default")
          .workload(WorkloadKind.Deployment, "productpage-v1")
          .workloadSelector(selector(Map.of("app", "productpage", "version", "v1")))
          .podLabels(Map.of("app", "productpage", "version", "v1"))
          .podName("productpage-v1-6b746f74dc-kkzzk")
          .ip("10.244.2.9")
          .build();

  /** A pod known only by its labels, as the ingest publishes it. */
  private static FlowEndpoint byLabels(Map<String, String> selectable, String pod, String ip) {
    Map<String, String> labels = new HashMap<>(selectable);
    labels.put("security.istio.io/tlsMode", "istio"); // generated: not in the selector
    return FlowEndpoint.builder()
        .namespace("default")
        .workloadSelector(selector(selectable))
        .podLabels(labels)
        .podName(pod)
        .ip(ip)
        .labelsOnly(true)
        .build();
  }

  private static FlowRecord toProductpage(FlowEndpoint src, Instant time, int port) {
    return forwarded(
        Provider.cilium, time, src, PRODUCTPAGE, Protocol.TCP, port, 1, Reporter.DESTINATION);
  }

  private static void pipeTwoLoadgenPods(ProcessorTestDriver driver) {
    driver
        .pipe(
            toProductpage(byLabels(LOADGEN_SELECTOR, "loadgen-x7k2p", "10.244.1.17"), T, 9080),
            toProductpage(
                byLabels(LOADGEN_SELECTOR, "loadgen-m4n5q", "10.244.3.21"), T.plusSeconds(4), 9080))
        .flushEvidence();
  }

  @Test
  void kubernetesRendersAPodAndNamespaceSelectorAndMarksTheEvidence() throws Exception {
    try (var driver = ProcessorTestDriver.kubernetes()) {
      pipeTwoLoadgenPods(driver);

      Map<String, ProposalSnapshot> proposals = driver.latestProposals();
      // The peer has no workload: no proposal of its own.
      assertThat(proposals).containsOnlyKeys(TARGET);
      ProposalSnapshot proposal = proposals.get(TARGET);
      assertThat(Json.mapper().writeValueAsString(proposal.spec().getKubernetes().getIngress()))
          .isEqualTo(
              "[{\"from\":[{\"namespaceSelector\":{\"matchLabels\":"
                  + "{\"kubernetes.io/metadata.name\":\"default\"}},"
                  + "\"podSelector\":{\"matchLabels\":"
                  + "{\"app\":\"loadgen\",\"app.kubernetes.io/part-of\":\"bookinfo\"}}}],"
                  + "\"ports\":[{\"port\":9080,\"protocol\":\"TCP\"}]}]");
      RuleEvidence evidence = proposal.evidence().get(0);
      assertThat(proposal.evidence()).hasSize(1);
      assertThat(evidence.getPeer()).isEqualTo(LOADGEN_KEY);
      assertThat(evidence.getPeerKnownBy()).isEqualTo("labels");
      assertThat(evidence.getCount()).isEqualTo(2);
      assertThat(evidence.getFirstSeen()).isEqualTo("2026-08-03T15:40:01Z");
      assertThat(evidence.getLastSeen()).isEqualTo("2026-08-03T15:40:05Z");
      assertThat(proposal.inferredWorkloads()).isEmpty();
      assertThat(driver.metrics().count("flows.ignored", "reason", "no-source-workload"))
          .isEqualTo(2);
    }
  }

  @Test
  void ciliumRendersFromEndpointsWithTheLabelsAndTheNamespace() throws Exception {
    try (var driver = ProcessorTestDriver.cilium()) {
      pipeTwoLoadgenPods(driver);

      ProposalSnapshot proposal = driver.latestProposals().get(TARGET);
      assertThat(Json.mapper().writeValueAsString(proposal.spec().getCilium().getIngress()))
          .isEqualTo(
              "[{\"fromEndpoints\":[{\"matchLabels\":{\"app\":\"loadgen\","
                  + "\"app.kubernetes.io/part-of\":\"bookinfo\","
                  + "\"k8s:io.kubernetes.pod.namespace\":\"default\"}}],"
                  + "\"toPorts\":[{\"ports\":[{\"port\":\"9080\",\"protocol\":\"TCP\"}]}]}]");
      assertThat(proposal.evidence())
          .extracting(RuleEvidence::getPeer, RuleEvidence::getPeerKnownBy)
          .containsExactly(org.assertj.core.groups.Tuple.tuple(LOADGEN_KEY, "labels"));
    }
  }

  @Test
  void istioNeedsAPrincipalAndCountsThePeerAsNotLearned() {
    try (var driver = ProcessorTestDriver.istio()) {
      FlowEndpoint loadgen = byLabels(LOADGEN_SELECTOR, "loadgen-x7k2p", "10.244.1.17");
      driver
          .pipe(
              forwarded(
                  Provider.istio,
                  T,
                  loadgen,
                  PRODUCTPAGE,
                  Protocol.TCP,
                  9080,
                  1,
                  Reporter.DESTINATION))
          .flushEvidence();

      assertThat(driver.latestProposals()).isEmpty();
      assertThat(driver.metrics().count("learning.skipped", "reason", "peer-known-by-labels"))
          .isEqualTo(1);
    }
  }

  @Test
  void theSamePodsNamedAsAWorkloadLaterKeepOneRuleWithAllTheEvidence() throws Exception {
    Map<String, String> ratings = Map.of("app", "ratings", "version", "v1");
    FlowEndpoint ratingsWorkload =
        FlowEndpoint.builder()
            .namespace("default")
            .workload(WorkloadKind.Deployment, "ratings-v1")
            .workloadSelector(selector(ratings))
            .podLabels(ratings)
            .build();
    try (var driver = ProcessorTestDriver.kubernetes()) {
      driver
          .pipe(
              toProductpage(byLabels(ratings, "ratings-v1-x7k2p", "10.244.1.40"), T, 9080),
              toProductpage(byLabels(ratings, "ratings-v1-x7k2p", "10.244.1.40"), T, 9081),
              // The cluster names the workload now: same selector, so the same pods.
              toProductpage(ratingsWorkload, T.plusSeconds(10), 9080),
              // And the labels alone again (another node's copy without workloads).
              toProductpage(
                  byLabels(ratings, "ratings-v1-q2w4z", "10.244.2.41"), T.plusSeconds(20), 9081))
          .flushEvidence();

      ProposalSnapshot proposal = driver.latestProposals().get(TARGET);
      assertThat(proposal.spec().getKubernetes().getIngress()).hasSize(1);
      assertThat(
              proposal
                  .spec()
                  .getKubernetes()
                  .getIngress()
                  .get(0)
                  .getFrom()
                  .get(0)
                  .getPodSelector()
                  .getMatchLabels())
          .isEqualTo(ratings);
      assertThat(proposal.evidence()).hasSize(1);
      RuleEvidence evidence = proposal.evidence().get(0);
      assertThat(evidence.getPeer()).isEqualTo("default/Deployment/ratings-v1");
      assertThat(evidence.getPeerKnownBy()).isNull();
      assertThat(evidence.getCount()).isEqualTo(4);
      assertThat(evidence.getPorts())
          .extracting(p -> p.getPort() + "x" + p.getCount() + " " + p.getFirstSeen())
          .containsExactly("9080x2 2026-08-03T15:40:01Z", "9081x2 2026-08-03T15:40:01Z");
    }
  }

  @Test
  void monitorModeAllowsTheLabelledPodsTheRuleSelectsAndNoOthers() {
    try (var driver = ProcessorTestDriver.kubernetes()) {
      pipeTwoLoadgenPods(driver);
      driver.policy(Policies.promoted(driver.latestProposals().get(TARGET), Mode.monitor));

      driver.pipe(
          toProductpage(
              byLabels(LOADGEN_SELECTOR, "loadgen-r8t9v", "10.244.3.30"), T.plusSeconds(60), 9080));
      assertThat(driver.newViolations()).as("a third pod with the rule's labels").isEmpty();

      Map<String, String> otherVersion =
          Map.of("app", "loadgen", "app.kubernetes.io/part-of", "other");
      driver.pipe(
          toProductpage(
              byLabels(otherVersion, "loadgen-b5c6d", "10.244.3.31"), T.plusSeconds(61), 9080));
      assertThat(driver.newViolations())
          .singleElement()
          .satisfies(
              kv -> {
                assertThat(kv.key).isEqualTo("default/deployment-productpage-v1-ingress");
                assertThat(kv.value.action()).isEqualTo(Mode.monitor);
                assertThat(kv.value.dstPort()).isEqualTo(9080);
              });
    }
  }
}
