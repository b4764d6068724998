package io.kubewarden.networkenforcer.processor.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

/** The typed read-outs other modules use instead of the processor's metric names. */
class ProcessorMetricsTest {
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  /** As the topology counts. */
  private final ProcessorMetrics topology = new ProcessorMetrics(registry);

  @Test
  void proposalsWrittenAreEmittedFlushedAndResetRecordsOfEveryInstanceOnTheRegistry() {
    topology.proposalEmitted();
    topology.proposalEmitted();
    topology.evidenceFlushed();
    topology.proposalReset();
    topology.flowReceived();
    topology.learned(5);

    assertThat(new ProcessorMetrics(registry).proposalsWritten()).isEqualTo(4);
    assertThat(new ProcessorMetrics(new SimpleMeterRegistry()).proposalsWritten()).isZero();
  }

  @Test
  void notLearnedSumsIgnoredFlowsAndSkippedLearningPerReason() {
    topology.flowIgnored("no-source-workload");
    topology.flowIgnored("istio-not-tcp");
    topology.flowIgnored("istio-not-tcp");
    topology.learningSkipped("unknown-port");
    topology.learningSkipped("no-source-workload");
    topology.proposalEmitted();

    assertThat(new ProcessorMetrics(registry).notLearnedByReason())
        .containsExactly(
            entry("istio-not-tcp", 2L), entry("no-source-workload", 2L), entry("unknown-port", 1L));
  }
}
