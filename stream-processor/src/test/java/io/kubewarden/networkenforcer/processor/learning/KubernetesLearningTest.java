package io.kubewarden.networkenforcer.processor.learning;

import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.CLIENT;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.CLIENT_EGRESS;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.COREDNS;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.COREDNS_INGRESS;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.SERVER;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.SERVER_EGRESS;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.SERVER_INGRESS;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.forwarded;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.kubewarden.networkenforcer.common.crd.PortEvidence;
import io.kubewarden.networkenforcer.common.crd.RuleEvidence;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.processor.fixtures.BasicFixture;
import io.kubewarden.networkenforcer.processor.fixtures.ProcessorTestDriver;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;

/** Kubernetes backend learning (Calico, Cilium) on the basic fixture and its edge cases. */
class KubernetesLearningTest {

  private static final String CLIENT_EGRESS_SPEC =
      """
      {"backend":"kubernetes",
       "kubernetes":{
         "podSelector":{"matchLabels":{"app":"http-client"}},
         "policyTypes":["Egress"],
         "egress":[
           {"to":[{"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"demo"}},
                   "podSelector":{"matchLabels":{"app":"http-server"}}}],
            "ports":[{"protocol":"TCP","port":18080},{"protocol":"UDP","port":18081}]},
           {"to":[{"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"kube-system"}},
                   "podSelector":{"matchLabels":{"k8s-app":"kube-dns"}}}],
            "ports":[{"protocol":"UDP","port":53}]}]},
       "targetRef":{"kind":"Deployment","name":"http-client"},
       "direction":"Egress"}""";

  private static final String SERVER_INGRESS_SPEC =
      """
      {"backend":"kubernetes",
       "kubernetes":{
         "podSelector":{"matchLabels":{"app":"http-server"}},
         "policyTypes":["Ingress"],
         "ingress":[
           {"from":[{"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"demo"}},
                     "podSelector":{"matchLabels":{"app":"http-client"}}}],
            "ports":[{"protocol":"TCP","port":18080},{"protocol":"UDP","port":18081}]}]},
       "targetRef":{"kind":"Deployment","name":"http-server"},
       "direction":"Ingress"}""";

  private static final String COREDNS_INGRESS_SPEC =
      """
      {"backend":"kubernetes",
       "kubernetes":{
         "podSelector":{"matchLabels":{"k8s-app":"kube-dns"}},
         "policyTypes":["Ingress"],
         "ingress":[
           {"from":[{"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"demo"}},
                     "podSelector":{"matchLabels":{"app":"http-client"}}}],
            "ports":[{"protocol":"UDP","port":53}]}]},
       "targetRef":{"kind":"Deployment","name":"coredns"},
       "direction":"Ingress"}""";

  @Test
  void workloadsInferredFromPodNamesMarkTheProposalsThatUseThem() throws Exception {
    FlowEndpoint inferredClient = CLIENT.toBuilder().inferred(true).build();
    try (var driver = ProcessorTestDriver.kubernetes()) {
      driver
          .pipe(
              forwarded(
                  Provider.cilium,
                  ProcessorTestDriver.START,
                  inferredClient,
                  SERVER,
                  Protocol.TCP,
                  18080,
                  1,
                  Reporter.SOURCE))
          .flushEvidence();
      Map<String, ProposalSnapshot> proposals = driver.latestProposals();
      assertThat(proposals.get(CLIENT_EGRESS).inferredWorkloads())
          .containsExactly("demo/Deployment/http-client");
      assertThat(proposals.get(SERVER_INGRESS).inferredWorkloads())
          .containsExactly("demo/Deployment/http-client");

      // The cluster later names the client: the mark goes with the next flow.
      driver
          .pipe(
              forwarded(
                  Provider.cilium,
                  ProcessorTestDriver.START.plusSeconds(60),
                  CLIENT,
                  SERVER,
                  Protocol.TCP,
                  18080,
                  1,
                  Reporter.SOURCE))
          .flushEvidence();
      proposals = driver.latestProposals();
      assertThat(proposals.get(CLIENT_EGRESS).inferredWorkloads()).isEmpty();
      assertThat(proposals.get(SERVER_INGRESS).inferredWorkloads()).isEmpty();
    }
  }

  @Test
  void hubbleFixtureLearnsTheThreeExpectedProposals() throws Exception {
    try (var driver = ProcessorTestDriver.kubernetes()) {
      driver.pipe(BasicFixture.hubbleFlows()).flushEvidence();

      Map<String, ProposalSnapshot> proposals = driver.latestProposals();
      assertThat(proposals).containsOnlyKeys(CLIENT_EGRESS, SERVER_INGRESS, COREDNS_INGRESS);
      assertSpec(
          proposals.get(CLIENT_EGRESS),
          "deployment-http-client-egress",
          "demo",
          CLIENT_EGRESS_SPEC);
      assertSpec(
          proposals.get(SERVER_INGRESS),
          "deployment-http-server-ingress",
          "demo",
          SERVER_INGRESS_SPEC);
      assertSpec(
          proposals.get(COREDNS_INGRESS),
          "deployment-coredns-ingress",
          "kube-system",
          COREDNS_INGRESS_SPEC);

      // Evidence: every flow record counts once per target it concerns.
      List<RuleEvidence> evidence = proposals.get(CLIENT_EGRESS).evidence();
      assertThat(evidence)
          .extracting(RuleEvidence::getRule, RuleEvidence::getPeer)
          .containsExactly(
              Tuple.tuple(0, "demo/Deployment/http-server"),
              Tuple.tuple(1, "kube-system/Deployment/coredns"));
      assertThat(evidence.get(0).getPorts())
          .extracting(PortEvidence::getProtocol, PortEvidence::getPort, PortEvidence::getCount)
          .containsExactly(Tuple.tuple("TCP", "18080", 9L), Tuple.tuple("UDP", "18081", 6L));
      PortEvidence tcp = evidence.get(0).getPorts().get(0);
      assertThat(tcp.getFirstSeen()).isEqualTo("2026-08-03T15:40:01.575398922Z");
      assertThat(tcp.getLastSeen()).isEqualTo("2026-08-03T15:40:02.065398922Z");
      assertThat(proposals.get(CLIENT_EGRESS).updatedAt())
          .isEqualTo(Instant.parse("2026-08-03T15:40:03.785398922Z"));
    }
  }

  @Test
  void goldmaneFixtureLearnsTheSameAllowListsAndCountsAggregatedConnections() throws Exception {
    try (var driver = ProcessorTestDriver.kubernetes()) {
      driver.pipe(BasicFixture.goldmaneFlows()).flushEvidence();

      Map<String, ProposalSnapshot> proposals = driver.latestProposals();
      assertThat(proposals).containsOnlyKeys(CLIENT_EGRESS, SERVER_INGRESS, COREDNS_INGRESS);
      assertSpec(
          proposals.get(CLIENT_EGRESS),
          "deployment-http-client-egress",
          "demo",
          CLIENT_EGRESS_SPEC);
      assertSpec(
          proposals.get(SERVER_INGRESS),
          "deployment-http-server-ingress",
          "demo",
          SERVER_INGRESS_SPEC);
      assertSpec(
          proposals.get(COREDNS_INGRESS),
          "deployment-coredns-ingress",
          "kube-system",
          COREDNS_INGRESS_SPEC);
      // Goldmane reports each window at Src and at Dst, 3 connections each: 6 per target and port.
      assertThat(proposals.get(COREDNS_INGRESS).evidence().get(0).getPorts().get(0).getCount())
          .isEqualTo(6);
    }
  }

  @Test
  void oneConnectionSeenOnceWithoutAnyReplyTeachesBothEnds() {
    try (var driver = ProcessorTestDriver.kubernetes()) {
      driver.pipe(
          forwarded(
              Provider.cilium,
              ProcessorTestDriver.START,
              CLIENT,
              SERVER,
              Protocol.TCP,
              18080,
              1,
              Reporter.SOURCE));

      Map<String, ProposalSnapshot> proposals = driver.latestProposals();
      assertThat(proposals).containsOnlyKeys(CLIENT_EGRESS, SERVER_INGRESS);
      assertThat(
              proposals.get(SERVER_INGRESS).spec().getKubernetes().getIngress().get(0).getPorts())
          .extracting(p -> p.getProtocol() + "/" + p.getPort().getIntVal())
          .containsExactly("TCP/18080");
    }
  }

  @Test
  void replyTrafficThatReachesTheProcessorIsLearnedAsTheFlowItClaimsToBe() {
    // Ingest drops replies (is_reply); the processor trusts the record. A reply that slipped
    // through would describe server -> client on the client's ephemeral port: this pins that the
    // processor does not invent a direction, it learns exactly src -> dst.
    try (var driver = ProcessorTestDriver.kubernetes()) {
      driver.pipe(
          forwarded(
              Provider.cilium,
              ProcessorTestDriver.START,
              SERVER,
              CLIENT,
              Protocol.TCP,
              59679,
              1,
              Reporter.DESTINATION));

      assertThat(driver.latestProposals())
          .containsOnlyKeys(SERVER_EGRESS, BasicFixture.CLIENT_INGRESS);
    }
  }

  @Test
  void unknownPortTeachesNothingAndIsCounted() {
    try (var driver = ProcessorTestDriver.kubernetes()) {
      driver
          .pipe(
              forwarded(
                  Provider.calico,
                  ProcessorTestDriver.START,
                  CLIENT,
                  SERVER,
                  Protocol.TCP,
                  0,
                  1,
                  Reporter.SOURCE))
          .flushEvidence();

      assertThat(driver.latestProposals()).isEmpty();
      assertThat(driver.metrics().count("learning.skipped", "reason", "unknown-port")).isEqualTo(2);

      driver.pipe(
          forwarded(
              Provider.calico,
              ProcessorTestDriver.START.plusSeconds(1),
              CLIENT,
              SERVER,
              Protocol.TCP,
              8080,
              1,
              Reporter.SOURCE));
      ProposalSnapshot ingress = driver.latestProposals().get(SERVER_INGRESS);
      assertThat(ingress.spec().getKubernetes().getIngress().get(0).getPorts())
          .extracting(p -> p.getPort().getIntVal())
          .containsExactly(8080);
    }
  }

  @Test
  void bothDirectionsOfOneWorkloadAreLearnedSeparately() {
    try (var driver = ProcessorTestDriver.kubernetes()) {
      driver.pipe(
          forwarded(
              Provider.cilium,
              ProcessorTestDriver.START,
              CLIENT,
              SERVER,
              Protocol.TCP,
              18080,
              1,
              Reporter.SOURCE),
          forwarded(
              Provider.cilium,
              ProcessorTestDriver.START,
              SERVER,
              COREDNS,
              Protocol.UDP,
              53,
              1,
              Reporter.SOURCE));

      Map<String, ProposalSnapshot> proposals = driver.latestProposals();
      assertThat(proposals).containsKeys(SERVER_INGRESS, SERVER_EGRESS);
      assertThat(proposals.get(SERVER_INGRESS).name()).isEqualTo("deployment-http-server-ingress");
      assertThat(proposals.get(SERVER_EGRESS).name()).isEqualTo("deployment-http-server-egress");
      assertThat(proposals.get(SERVER_EGRESS).spec().getKubernetes().getEgress()).hasSize(1);
      assertThat(proposals.get(SERVER_EGRESS).spec().getKubernetes().getIngress()).isEmpty();
      assertThat(proposals.get(SERVER_INGRESS).spec().getKubernetes().getPolicyTypes())
          .containsExactly("Ingress");
    }
  }

  @Test
  void theSameFlowsInAnyOrderGiveByteIdenticalProposals() {
    List<FlowRecord> flows = new ArrayList<>(BasicFixture.hubbleFlows());
    flows.addAll(BasicFixture.goldmaneFlows());
    flows.add(
        forwarded(
            Provider.cilium,
            ProcessorTestDriver.START,
            SERVER,
            COREDNS,
            Protocol.UDP,
            53,
            2,
            Reporter.SOURCE));
    flows.add(
        forwarded(
            Provider.cilium,
            ProcessorTestDriver.START,
            SERVER,
            COREDNS,
            Protocol.TCP,
            53,
            1,
            Reporter.SOURCE));
    Map<String, byte[]> reference = learnedBytes(flows);
    assertThat(reference).hasSize(4);

    List<FlowRecord> reversed = new ArrayList<>(flows);
    Collections.reverse(reversed);
    assertSameBytes(learnedBytes(reversed), reference);
    for (long seed = 1; seed <= 3; seed++) {
      List<FlowRecord> shuffled = new ArrayList<>(flows);
      Collections.shuffle(shuffled, new Random(seed));
      assertSameBytes(learnedBytes(shuffled), reference);
    }
  }

  @Test
  void aMillionFlowsOverStablePeersGiveAHandfulOfProposalRecords() {
    try (var driver = ProcessorTestDriver.kubernetesInMemory()) {
      List<FlowRecord> batch = new ArrayList<>();
      Instant t = ProcessorTestDriver.START;
      for (int i = 0; i < 100_000; i++) {
        FlowEndpoint[] pair =
            switch (i % 3) {
              case 0 -> new FlowEndpoint[] {CLIENT, SERVER};
              case 1 -> new FlowEndpoint[] {CLIENT, COREDNS};
              default -> new FlowEndpoint[] {CLIENT, SERVER};
            };
        Protocol protocol = i % 3 == 0 ? Protocol.TCP : Protocol.UDP;
        int port =
            switch (i % 3) {
              case 0 -> 18080;
              case 1 -> 53;
              default -> 18081;
            };
        batch.add(
            forwarded(
                Provider.cilium,
                t.plusMillis(i),
                pair[0],
                pair[1],
                protocol,
                port,
                1,
                Reporter.SOURCE));
        if (batch.size() == 10_000) {
          driver.pipe(batch);
          batch.clear();
        }
      }
      driver.flushEvidence();

      // 3 new ports on the client's egress, 2 on the server's ingress, 1 on coredns' ingress, all
      // in the
      // first batch (one proposal interval): each target's first change at once, the client's and
      // the
      // server's later ones together at the interval's end, 5 records; then one evidence flush per
      // target: 8 records for 200,000 observations.
      assertThat(driver.proposalRecordCount()).isEqualTo(8);
      assertThat(driver.metrics().count("proposals.emitted")).isEqualTo(5);
      assertThat(driver.metrics().count("evidence.flushed")).isEqualTo(3);
      assertThat(driver.latestProposals().get(CLIENT_EGRESS).evidence().get(0).getPorts())
          .extracting(PortEvidence::getCount)
          .containsExactly(33_334L, 33_333L);

      // Nothing changed since: the next flush writes nothing.
      driver.flushEvidence();
      assertThat(driver.proposalRecordCount()).isEqualTo(8);
    }
  }

  @Test
  void evidenceIsFlushedOnlyForTargetsWhoseEvidenceChanged() {
    try (var driver = ProcessorTestDriver.kubernetes()) {
      driver.pipe(BasicFixture.goldmaneFlows()).flushEvidence();
      driver.newProposals();

      driver.pipe(
          forwarded(
              Provider.calico,
              ProcessorTestDriver.START.plusSeconds(60),
              CLIENT,
              COREDNS,
              Protocol.UDP,
              53,
              5,
              Reporter.SOURCE));
      assertThat(driver.newProposals()).as("evidence only: nothing before the flush").isEmpty();
      driver.flushEvidence();

      var flushed = driver.newProposals();
      assertThat(flushed)
          .extracting(kv -> kv.key)
          .containsExactlyInAnyOrder(CLIENT_EGRESS, COREDNS_INGRESS);
      ProposalSnapshot coredns =
          flushed.stream()
              .filter(kv -> kv.key.equals(COREDNS_INGRESS))
              .findFirst()
              .orElseThrow()
              .value;
      assertThat(coredns.evidence().get(0).getPorts().get(0).getCount()).isEqualTo(11);
      assertThat(coredns.evidence().get(0).getPorts().get(0).getLastSeen())
          .isEqualTo(ProcessorTestDriver.START.plusSeconds(60).toString());
    }
  }

  private static Map<String, byte[]> learnedBytes(List<FlowRecord> flows) {
    try (var driver = ProcessorTestDriver.kubernetes()) {
      driver.pipe(flows).flushEvidence();
      return driver.latestProposalBytes();
    }
  }

  private static void assertSameBytes(Map<String, byte[]> actual, Map<String, byte[]> expected) {
    assertThat(actual.keySet()).isEqualTo(expected.keySet());
    expected.forEach(
        (key, bytes) ->
            assertThat(new String(actual.get(key), StandardCharsets.UTF_8))
                .as(key)
                .isEqualTo(new String(bytes, StandardCharsets.UTF_8)));
  }

  static void assertSpec(
      ProposalSnapshot proposal, String name, String namespace, String expectedSpecJson)
      throws Exception {
    assertThat(proposal.name()).isEqualTo(name);
    assertThat(proposal.namespace()).isEqualTo(namespace);
    JsonNode actual = Json.mapper().valueToTree(proposal.spec());
    assertThat(actual).isEqualTo(Json.mapper().readTree(expectedSpecJson));
  }
}
