package io.kubewarden.networkenforcer.ingest.publishing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.common.flow.Verdict;
import io.kubewarden.networkenforcer.common.lifecycle.WorkerThreads;
import io.kubewarden.networkenforcer.common.workload.WorkloadKind;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Edge aggregation: repeated flows fold into one record per window, nothing is lost or double
 * counted.
 */
class FlowAggregatorTest {
  private static final Instant T = Instant.parse("2026-08-03T15:40:01.5Z");
  private final List<FlowRecord> published = new CopyOnWriteArrayList<>();

  private static FlowEndpoint pod(String workload, String ip) {
    return FlowEndpoint.builder()
        .namespace("demo")
        .workload(WorkloadKind.Deployment, workload)
        .workloadSelector(new LabelSelectorBuilder().addToMatchLabels("app", workload).build())
        .podLabels(Map.of("app", workload))
        .ip(ip)
        .build();
  }

  private static final FlowEndpoint CLIENT = pod("http-client", "10.0.0.1");
  private static final FlowEndpoint CLIENT_OTHER_POD = pod("http-client", "10.0.0.2");
  private static final FlowEndpoint SERVER = pod("http-server", "10.0.1.1");

  private static FlowRecord flow(
      FlowEndpoint src, int port, Verdict verdict, Reporter reporter, long millis, long count) {
    return new FlowRecord(
        T.plusMillis(millis),
        Provider.cilium,
        Protocol.TCP,
        port,
        src,
        SERVER,
        verdict,
        null,
        count,
        reporter);
  }

  @Test
  void repeatedFlowsFoldIntoOneRecordWithCountAndFirstAndLastSeen() {
    try (FlowAggregator aggregator =
        new FlowAggregator(published::add, Duration.ofMinutes(1), 1000)) {
      aggregator.accept(flow(CLIENT, 8080, Verdict.FORWARDED, Reporter.SOURCE, 300, 1));
      aggregator.accept(flow(CLIENT, 8080, Verdict.FORWARDED, Reporter.SOURCE, 0, 2));
      aggregator.accept(flow(CLIENT, 8080, Verdict.FORWARDED, Reporter.SOURCE, 900, 1));
      // Each of these differs in one thing that matters, so none folds with the others.
      aggregator.accept(flow(CLIENT, 8080, Verdict.FORWARDED, Reporter.DESTINATION, 100, 1));
      aggregator.accept(flow(CLIENT, 9090, Verdict.FORWARDED, Reporter.SOURCE, 100, 1));
      aggregator.accept(flow(CLIENT, 8080, Verdict.DENIED, Reporter.SOURCE, 100, 1));
      aggregator.accept(flow(CLIENT_OTHER_POD, 8080, Verdict.FORWARDED, Reporter.SOURCE, 100, 1));
      assertThat(published).isEmpty();
      assertThat(aggregator.pendingCount()).isEqualTo(5);

      aggregator.flush();

      assertThat(published).hasSize(5);
      assertThat(published.stream().mapToLong(FlowRecord::count).sum()).isEqualTo(8);
      FlowRecord folded = published.stream().filter(r -> r.count() == 4).findFirst().orElseThrow();
      assertThat(folded.firstSeen()).isEqualTo(T);
      assertThat(folded.time()).isEqualTo(T);
      assertThat(folded.lastSeen()).isEqualTo(T.plusMillis(900));
      assertThat(folded.src()).isEqualTo(CLIENT);
      assertThat(folded.reporter()).isEqualTo(Reporter.SOURCE);
      assertThat(aggregator.pendingCount()).isZero();
    }
    assertThat(published).hasSize(5);
  }

  @Test
  void aFullWindowIsPublishedEarlySoMemoryStaysBounded() {
    try (FlowAggregator aggregator = new FlowAggregator(published::add, Duration.ofMinutes(1), 3)) {
      aggregator.accept(flow(CLIENT, 1, Verdict.FORWARDED, Reporter.SOURCE, 0, 1));
      aggregator.accept(flow(CLIENT, 2, Verdict.FORWARDED, Reporter.SOURCE, 0, 1));
      aggregator.accept(flow(CLIENT, 1, Verdict.FORWARDED, Reporter.SOURCE, 5, 1));
      assertThat(published).isEmpty();
      aggregator.accept(flow(CLIENT, 3, Verdict.FORWARDED, Reporter.SOURCE, 0, 1));
      assertThat(published).extracting(FlowRecord::dstPort).containsExactlyInAnyOrder(1, 2, 3);
      assertThat(aggregator.pendingCount()).isZero();
    }
  }

  @Test
  void closingPublishesTheLastWindow() {
    FlowAggregator aggregator = new FlowAggregator(published::add, Duration.ofMinutes(1), 1000);
    aggregator.accept(flow(CLIENT, 8080, Verdict.FORWARDED, Reporter.SOURCE, 0, 1));
    aggregator.accept(flow(CLIENT, 8080, Verdict.FORWARDED, Reporter.SOURCE, 10, 1));
    aggregator.close();
    assertThat(published).singleElement().satisfies(r -> assertThat(r.count()).isEqualTo(2));
  }

  @Test
  void theTimerPublishesEachWindow() {
    try (FlowAggregator aggregator =
        new FlowAggregator(published::add, Duration.ofMillis(50), 1000)) {
      aggregator.accept(flow(CLIENT, 8080, Verdict.FORWARDED, Reporter.SOURCE, 0, 1));
      aggregator.accept(flow(CLIENT, 8080, Verdict.FORWARDED, Reporter.SOURCE, 10, 1));
      await().atMost(Duration.ofSeconds(30)).until(() -> published.size() == 1);
      assertThat(published.get(0).count()).isEqualTo(2);
      aggregator.accept(flow(CLIENT, 8080, Verdict.FORWARDED, Reporter.SOURCE, 20, 1));
      await().atMost(Duration.ofSeconds(30)).until(() -> published.size() == 2);
      assertThat(published.get(1).count()).isEqualTo(1);
    }
  }

  @Test
  void aWindowThatCannotBePublishedEndsTheProcessInsteadOfStoppingTheTimer() throws Exception {
    CompletableFuture<Throwable> died = new CompletableFuture<>();
    Consumer<Throwable> before = WorkerThreads.onDeath(died::complete);
    IllegalStateException cause = new IllegalStateException("the sink broke");
    try (FlowAggregator aggregator =
        new FlowAggregator(
            r -> {
              throw cause;
            },
            Duration.ofMillis(50),
            1000)) {
      aggregator.accept(flow(CLIENT, 8080, Verdict.FORWARDED, Reporter.SOURCE, 0, 1));
      // The timer's flush took the window before the sink threw: close() has nothing left.
      assertThat(died.get(30, TimeUnit.SECONDS)).isSameAs(cause);
    } finally {
      WorkerThreads.onDeath(before);
    }
  }

  @Test
  void windowZeroPassesEveryFlowOnAtOnce() {
    try (FlowAggregator aggregator = new FlowAggregator(published::add, Duration.ZERO, 1)) {
      aggregator.accept(flow(CLIENT, 8080, Verdict.FORWARDED, Reporter.SOURCE, 0, 1));
      aggregator.accept(flow(CLIENT, 8080, Verdict.FORWARDED, Reporter.SOURCE, 10, 1));
      assertThat(published).hasSize(2);
      assertThat(published).extracting(FlowRecord::count).containsExactly(1L, 1L);
    }
    published.sort(Comparator.comparing(FlowRecord::time));
    assertThat(published).hasSize(2);
  }

  @Test
  void tuningValidatesTheWindow() {
    assertThatThrownBy(
            () -> ProducerTuning.defaults().withAggregationWindow(Duration.ofMinutes(2)).validate())
        .hasMessageContaining("ingest aggregation window PT2M must be between 0 (off) and 60s");
    assertThatThrownBy(
            () ->
                ProducerTuning.defaults().withAggregationWindow(Duration.ofSeconds(-1)).validate())
        .hasMessageContaining("must be between 0 (off)");
    assertThat(
            ProducerTuning.defaults()
                .withAggregationWindow(Duration.ZERO)
                .validate()
                .aggregationWindow())
        .isZero();
    assertThat(ProducerTuning.defaults().aggregationWindow()).isEqualTo(Duration.ofSeconds(5));
  }
}
