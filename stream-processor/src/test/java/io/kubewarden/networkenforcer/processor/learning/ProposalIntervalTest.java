package io.kubewarden.networkenforcer.processor.learning;

import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.COREDNS;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.COREDNS_INGRESS;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.SERVER;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.endpoint;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.forwarded;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.processor.fixtures.ProcessorTestDriver;
import io.kubewarden.networkenforcer.processor.store.StoreNames;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.streams.KeyValue;
import org.junit.jupiter.api.Test;

/**
 * A target's proposal is published at once when its allow-list changes, then at most once per
 * proposal interval with every change since: the cluster DNS of a new cluster, gaining a peer per
 * workload within seconds, is rendered twice instead of once per workload (each rendering carries
 * every peer, so one per peer is quadratic in bytes), and ends exactly where publishing every
 * change ends.
 */
class ProposalIntervalTest {
  private static final Instant T0 = Instant.parse("2026-08-03T15:40:00Z");
  private static final int CLIENTS = 50;
  private static final Duration INTERVAL = Duration.ofSeconds(1);

  @Test
  void aTargetGainingManyPeersWithinOneIntervalIsPublishedAtOnceAndOnceMoreAtItsEnd() {
    try (var driver = ProcessorTestDriver.kubernetesInMemoryWithProposalInterval(INTERVAL)) {
      driver.pipeWithoutWaiting(dnsCalls(0, CLIENTS));

      List<KeyValue<String, ProposalSnapshot>> before = dnsProposals(driver.newProposals());
      assertThat(before).as("the first change, published at once").hasSize(1);
      assertThat(peers(before.get(0).value)).isEqualTo(1);
      // Held back, not lost: stored with every peer and marked for publishing (a restart publishes
      // it).
      LearnedAllowList stored =
          driver
              .driver()
              .<String, LearnedAllowList>getKeyValueStore(StoreNames.LEARNED)
              .get(COREDNS_INGRESS);
      assertThat(stored.peers()).hasSize(CLIENTS);
      assertThat(stored.evidenceDirty()).isTrue();

      driver.driver().advanceWallClockTime(INTERVAL);
      List<KeyValue<String, ProposalSnapshot>> atEnd = dnsProposals(driver.newProposals());
      assertThat(atEnd).as("every later change of the interval, in one proposal").hasSize(1);
      assertThat(peers(atEnd.get(0).value)).isEqualTo(CLIENTS);
      assertThat(driver.metrics().count("proposals.emitted"))
          .as("each client's Egress once, coredns twice")
          .isEqualTo(CLIENTS + 2);

      // Published at the end of an interval: the next change waits for the end of the next one.
      driver.pipeWithoutWaiting(dnsCalls(CLIENTS, 1));
      assertThat(dnsProposals(driver.newProposals())).isEmpty();
      driver.driver().advanceWallClockTime(INTERVAL);
      List<KeyValue<String, ProposalSnapshot>> next = dnsProposals(driver.newProposals());
      assertThat(next).hasSize(1);
      assertThat(peers(next.get(0).value)).isEqualTo(CLIENTS + 1);

      // A quiet interval in between: the next change is published at once again.
      driver.driver().advanceWallClockTime(INTERVAL);
      driver.pipeWithoutWaiting(dnsCalls(CLIENTS + 1, 1));
      List<KeyValue<String, ProposalSnapshot>> quietThenChange =
          dnsProposals(driver.newProposals());
      assertThat(quietThenChange).hasSize(1);
      assertThat(peers(quietThenChange.get(0).value)).isEqualTo(CLIENTS + 2);
    }
  }

  @Test
  void withoutAnIntervalEveryChangeIsPublished() {
    try (var driver = ProcessorTestDriver.kubernetesInMemoryWithProposalInterval(Duration.ZERO)) {
      driver.pipeWithoutWaiting(dnsCalls(0, CLIENTS));
      assertThat(dnsProposals(driver.newProposals())).hasSize(CLIENTS);
    }
  }

  @Test
  void theLastProposalOfEveryTargetIsTheSameAsWithEveryChangePublished() {
    Map<String, String> everyChange = run(Duration.ZERO);
    Map<String, String> interval = run(INTERVAL);
    // Each client's Egress, coredns' Ingress and Egress, the server's Ingress.
    assertThat(everyChange).hasSize(CLIENTS + 3);
    assertThat(interval).isEqualTo(everyChange);
  }

  @Test
  void aHeldChangeIsPublishedAsOfItsOwnFlowTime() {
    // Flow time moves on a month (another target's flow) before the interval ends: the held change
    // is
    // still rendered as of its own flow, as it would have been at once.
    Map<String, String> everyChange = lastDnsProposalAfterAFlowAMonthLater(Duration.ZERO);
    Map<String, String> interval = lastDnsProposalAfterAFlowAMonthLater(INTERVAL);
    assertThat(interval.get(COREDNS_INGRESS))
        .contains("NewPeerOrPort")
        .isEqualTo(everyChange.get(COREDNS_INGRESS));
  }

  private static Map<String, String> lastDnsProposalAfterAFlowAMonthLater(
      Duration proposalInterval) {
    try (var driver =
        ProcessorTestDriver.kubernetesInMemoryWithProposalInterval(proposalInterval)) {
      driver.pipeWithoutWaiting(dnsCalls(0, 3));
      driver.pipeWithoutWaiting(
          List.of(
              forwarded(
                  Provider.cilium,
                  T0.plus(Duration.ofDays(30)),
                  COREDNS,
                  SERVER,
                  Protocol.TCP,
                  8080,
                  1,
                  Reporter.SOURCE)));
      driver.driver().advanceWallClockTime(INTERVAL);
      Map<String, String> latest = new TreeMap<>();
      driver
          .latestProposalBytes()
          .forEach((k, v) -> latest.put(k, new String(v, StandardCharsets.UTF_8)));
      return latest;
    }
  }

  /**
   * Peers join in bursts, known peers call again after a held change (so the target stays dirty for
   * the evidence flush), flows a month later, flushes in between; the last proposals by target.
   */
  private static Map<String, String> run(Duration proposalInterval) {
    try (var driver =
        ProcessorTestDriver.kubernetesInMemoryWithProposalInterval(proposalInterval)) {
      driver.pipeWithoutWaiting(dnsCalls(0, 20));
      driver.pipeWithoutWaiting(dnsCalls(5, 3));
      driver.driver().advanceWallClockTime(INTERVAL);
      driver.pipeWithoutWaiting(dnsCalls(10, 25));
      driver.flushEvidence();
      driver.pipeWithoutWaiting(dnsCalls(30, 20));
      driver.pipeWithoutWaiting(dnsCalls(32, 2));
      driver.pipeWithoutWaiting(
          List.of(
              forwarded(
                  Provider.cilium,
                  T0.plus(Duration.ofDays(30)),
                  COREDNS,
                  SERVER,
                  Protocol.TCP,
                  8080,
                  1,
                  Reporter.SOURCE)));
      driver.driver().advanceWallClockTime(INTERVAL);
      driver.flushEvidence();
      Map<String, String> latest = new TreeMap<>();
      driver
          .latestProposalBytes()
          .forEach((k, v) -> latest.put(k, new String(v, StandardCharsets.UTF_8)));
      return latest;
    }
  }

  /** client-from ... client-(from+count-1) each call coredns once, a second apart in flow time. */
  private static List<FlowRecord> dnsCalls(int from, int count) {
    List<FlowRecord> flows = new ArrayList<>();
    for (int i = from; i < from + count; i++) {
      String name = "client-" + i;
      FlowEndpoint client =
          endpoint(
              "team" + (i % 4),
              name,
              Map.of("app", name),
              name + "-6d4cf56db6-x" + i,
              "10.244." + (i % 3) + "." + (10 + i),
              name + "-sa");
      flows.add(
          forwarded(
              Provider.cilium,
              T0.plusSeconds(i),
              client,
              COREDNS,
              Protocol.UDP,
              53,
              1,
              Reporter.DESTINATION));
    }
    return flows;
  }

  private static List<KeyValue<String, ProposalSnapshot>> dnsProposals(
      List<KeyValue<String, ProposalSnapshot>> all) {
    return all.stream().filter(kv -> kv.key.equals(COREDNS_INGRESS)).toList();
  }

  private static int peers(ProposalSnapshot proposal) {
    return proposal.evidence().size();
  }
}
