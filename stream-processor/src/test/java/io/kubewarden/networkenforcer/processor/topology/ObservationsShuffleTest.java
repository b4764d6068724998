package io.kubewarden.networkenforcer.processor.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.processor.config.ProcessorConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.TopologyDescription;
import org.junit.jupiter.api.Test;

/**
 * The service sends every observation through the observations repartition topic to its target's
 * task; a one-partition, one-process run (offline learning) may hand it straight to the target
 * processor. Which processors exist and what they connect to is otherwise the same.
 */
class ObservationsShuffleTest {
  private static final KafkaSettings ONE_PARTITION =
      new KafkaSettings("localhost:9092", null, 1, (short) 1, Map.of());

  @Test
  void theServiceShufflesObservationsThroughTheRepartitionTopic() {
    TopologyDescription shuffled =
        describe(ProcessorConfig.builder(ONE_PARTITION).build().validate());

    assertThat(shuffled.subtopologies()).hasSize(2);
    assertThat(shuffled.toString()).contains("observations-repartition");
  }

  @Test
  void aSinglePartitionRunCanHandObservationsStraightToTheTargets() {
    ProcessorConfig config =
        ProcessorConfig.builder(ONE_PARTITION).observationsShuffled(false).build().validate();
    TopologyDescription direct = describe(config);
    TopologyDescription shuffled = describe(config.toBuilder().observationsShuffled(true).build());

    assertThat(direct.subtopologies()).hasSize(1);
    assertThat(direct.toString()).doesNotContain("repartition");
    assertThat(processors(direct)).isEqualTo(processors(shuffled));
  }

  private static TopologyDescription describe(ProcessorConfig config) {
    return NetworkEnforcerTopology.build(config, new SimpleMeterRegistry()).describe();
  }

  /**
   * The names of the processors (not the sources and sinks) of every sub-topology, sorted, but for
   * the filter Kafka Streams puts before a repartition topic.
   */
  private static List<String> processors(TopologyDescription description) {
    return description.subtopologies().stream()
        .flatMap(s -> s.nodes().stream())
        .filter(n -> n instanceof TopologyDescription.Processor)
        .map(TopologyDescription.Node::name)
        .filter(name -> !name.equals(NetworkEnforcerTopology.OBSERVATIONS + "-repartition-filter"))
        .sorted()
        .toList();
  }
}
