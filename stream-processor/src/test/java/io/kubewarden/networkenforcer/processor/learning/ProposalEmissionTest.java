package io.kubewarden.networkenforcer.processor.learning;

import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.COREDNS;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.SERVER;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.endpoint;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.forwarded;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.common.flow.ExternalEndpoint;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.processor.config.LearningSettings;
import io.kubewarden.networkenforcer.processor.config.ProposalEmission;
import io.kubewarden.networkenforcer.processor.fixtures.ProcessorTestDriver;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Holding allow-list changes until the flush ({@link ProposalEmission#AT_FLUSH}, what {@code learn}
 * uses) leaves the last proposal of every target byte for byte what publishing every change gives,
 * with fewer proposal records: busy targets gaining peers, new ports, outside peers gaining DNS
 * names, flows out of time order, convergence reached and reset, flushes in between.
 */
class ProposalEmissionTest {
  private static final Instant DAY0 = Instant.parse("2026-08-03T00:00:00Z");

  /**
   * A short quiet period, so some targets converge within the flows' two days and others do not.
   */
  private static final LearningSettings SETTINGS =
      new LearningSettings(null, null, Duration.ofHours(6), 5);

  private static final int CLIENTS = 40;

  @Test
  void theLastProposalOfEveryTargetIsTheSameWithFewerRecords() {
    List<List<FlowRecord>> rounds = flows();
    Result everyChange = run(ProposalEmission.EVERY_CHANGE, rounds);
    Result atFlush = run(ProposalEmission.AT_FLUSH, rounds);

    // Each client's egress, the quiet client's, the busy coredns and server ingress.
    assertThat(everyChange.latest()).hasSize(CLIENTS + 3);
    // Rendered as of its change, not as of the flush: the quiet period had not passed then.
    assertThat(everyChange.latest().get("quiet/Deployment/quiet-client/Egress"))
        .contains("NewPeerOrPort");
    assertThat(atFlush.latest()).isEqualTo(everyChange.latest());
    assertThat(atFlush.records()).isLessThan(everyChange.records());
  }

  private record Result(Map<String, String> latest, int records) {}

  private static Result run(ProposalEmission emission, List<List<FlowRecord>> rounds) {
    try (var driver = ProcessorTestDriver.kubernetesInMemory(SETTINGS, emission)) {
      for (List<FlowRecord> round : rounds) {
        driver.pipe(round).flushEvidence();
      }
      driver.flushEvidence();
      Map<String, String> latest = new TreeMap<>();
      driver
          .latestProposalBytes()
          .forEach((k, v) -> latest.put(k, new String(v, StandardCharsets.UTF_8)));
      return new Result(latest, driver.proposalRecordCount());
    }
  }

  /** Rounds of flows separated by flushes, the same for both runs (fixed seed). */
  private static List<List<FlowRecord>> flows() {
    Random random = new Random(11);
    List<FlowEndpoint> clients = new ArrayList<>();
    for (int i = 0; i < CLIENTS; i++) {
      String name = "client-" + i;
      clients.add(
          endpoint(
              "team" + (i % 4),
              name,
              Map.of("app", name),
              name + "-6d4cf56db6-x" + i,
              "10.244." + (i % 3) + "." + (10 + i),
              name + "-sa"));
    }
    List<List<FlowRecord>> rounds = new ArrayList<>();
    for (int round = 0; round < 12; round++) {
      List<FlowRecord> flows = new ArrayList<>();
      for (int n = 0; n < 60; n++) {
        // Mostly forward in time with some flows late by up to an hour.
        Instant t =
            DAY0.plus(Duration.ofHours(4L * round))
                .plusSeconds(random.nextInt(4 * 3600))
                .minusSeconds(random.nextInt(3) == 0 ? random.nextInt(3600) : 0);
        FlowEndpoint client = clients.get(random.nextInt(round < 6 ? CLIENTS / 2 : CLIENTS));
        long count = 1 + random.nextInt(3);
        switch (random.nextInt(4)) {
          case 0 ->
              flows.add(
                  forwarded(
                      Provider.cilium,
                      t,
                      client,
                      COREDNS,
                      Protocol.UDP,
                      53,
                      count,
                      Reporter.DESTINATION));
          case 1 ->
              flows.add(
                  forwarded(
                      Provider.cilium,
                      t,
                      client,
                      SERVER,
                      Protocol.TCP,
                      8080 + random.nextInt(3),
                      count,
                      Reporter.DESTINATION));
          case 2 ->
              flows.add(
                  forwarded(
                      Provider.cilium,
                      t,
                      client,
                      COREDNS,
                      Protocol.TCP,
                      53,
                      count,
                      Reporter.SOURCE));
          default ->
              flows.add(
                  forwarded(
                      Provider.cilium,
                      t,
                      client,
                      FlowEndpoint.outsideCluster(
                          "203.0.113." + random.nextInt(3),
                          ExternalEndpoint.of(List.of("api" + random.nextInt(4) + ".example.com"))),
                      Protocol.TCP,
                      443,
                      count,
                      Reporter.SOURCE));
        }
      }
      rounds.add(flows);
    }
    // Last, a client seen once, then flow time jumps past the quiet period before the flush.
    FlowEndpoint quiet =
        endpoint(
            "quiet",
            "quiet-client",
            Map.of("app", "quiet-client"),
            "quiet-client-6d4cf56db6-q1",
            "10.244.9.9",
            "quiet-client-sa");
    Instant end = DAY0.plus(Duration.ofDays(3));
    rounds.add(
        List.of(
            forwarded(Provider.cilium, end, quiet, SERVER, Protocol.TCP, 8080, 1, Reporter.SOURCE),
            forwarded(
                Provider.cilium,
                end.plus(Duration.ofHours(8)),
                clients.get(0),
                COREDNS,
                Protocol.UDP,
                53,
                1,
                Reporter.DESTINATION)));
    return rounds;
  }
}
