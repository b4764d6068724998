package io.kubewarden.networkenforcer.ingest.publishing;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.common.flow.Verdict;
import io.kubewarden.networkenforcer.common.workload.WorkloadKind;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Which resent flows a restarted ingest drops: those a record of the flows topic already counts.
 */
class AlreadyPublishedTest {
  private static final Instant T0 = Instant.parse("2026-08-03T15:40:00Z");

  @Test
  void aPublishedRecordTakesBackUpToItsCountOfTheSameFlowWithinItsTimes() {
    List<FlowRecord> passed = new ArrayList<>();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    // Published before the kill: client-a -> server folded 2 flows over [t0+1, t0+3]; client-b once
    // at t0+2.
    AlreadyPublished filter =
        new AlreadyPublished(
            passed::add,
            List.of(
                new FlowRecord(
                    T0.plusSeconds(1),
                    Provider.cilium,
                    Protocol.TCP,
                    8080,
                    end("client-a"),
                    end("server"),
                    Verdict.FORWARDED,
                    null,
                    2,
                    Reporter.SOURCE,
                    T0.plusSeconds(3)),
                flow("client-b", 2)),
            f -> f,
            "hubble",
            new IngestMetrics(registry));

    filter.accept(flow("client-a", 1)); // covered
    filter.accept(flow("client-a", 3)); // covered: the record's count is used up
    filter.accept(flow("client-a", 2)); // a third one within the times: not counted there, goes on
    filter.accept(flow("client-a", 4)); // after the record: lost with the open window, goes on
    filter.accept(flow("client-c", 2)); // another identity: goes on
    filter.accept(flow("client-b", 2)); // covered
    filter.accept(flow("client-b", 2)); // used up: goes on

    assertThat(filter.dropped()).isEqualTo(3);
    assertThat(passed)
        .extracting(
            f ->
                f.src().workloadName()
                    + "@"
                    + (f.firstSeen().getEpochSecond() - T0.getEpochSecond()))
        .containsExactly("client-a@2", "client-a@4", "client-c@2", "client-b@2");
    assertThat(
            registry
                .get("network.enforcer.ingest.flows.dropped")
                .tag("reason", "already-published")
                .counter()
                .count())
        .isEqualTo(3);
  }

  private static FlowRecord flow(String client, int second) {
    return new FlowRecord(
        T0.plusSeconds(second),
        Provider.cilium,
        Protocol.TCP,
        8080,
        end(client),
        end("server"),
        Verdict.FORWARDED,
        null,
        1,
        Reporter.SOURCE);
  }

  private static FlowEndpoint end(String name) {
    return new FlowEndpoint(
        "demo",
        WorkloadKind.Deployment,
        name,
        null,
        Map.of("app", name),
        Map.of(),
        null,
        null,
        null,
        null,
        null,
        false,
        null,
        null);
  }
}
