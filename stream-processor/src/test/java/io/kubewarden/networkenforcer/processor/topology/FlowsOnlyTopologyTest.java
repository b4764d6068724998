package io.kubewarden.networkenforcer.processor.topology;

import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.CLIENT;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.SERVER;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.common.flow.Verdict;
import io.kubewarden.networkenforcer.common.topics.Topics;
import io.kubewarden.networkenforcer.processor.config.ProcessorConfig;
import io.kubewarden.networkenforcer.processor.metrics.ProcessorMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TopologyDescription;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.Test;

/**
 * Offline learning hands the topology flows alone ({@link ProcessorConfig#policyInputs} off): the
 * topology then reads the flows topic only, and a deny that would go on to its fallback target
 * (which has no policy either: none exists) is counted exactly as the service counts it.
 */
class FlowsOnlyTopologyTest {
  private static final Instant T = Instant.parse("2026-08-03T15:40:00Z");
  private static final KafkaSettings ONE_PARTITION =
      new KafkaSettings("localhost:9092", null, 1, (short) 1, Map.of());

  private static ProcessorConfig config(boolean policyInputs) {
    return ProcessorConfig.builder(ONE_PARTITION)
        .provider(Provider.cilium)
        .processingGuarantee(StreamsConfig.AT_LEAST_ONCE)
        .inMemoryStores(true)
        .storeChangelogs(false)
        .observationsShuffled(false)
        .combineInterval(Duration.ZERO)
        .policyInputs(policyInputs)
        .build()
        .validate();
  }

  @Test
  void withoutPolicyInputsTheFlowsTopicIsTheOnlySource() {
    ProcessorConfig service = config(true);
    Topics topics = service.topics();

    assertThat(sourceTopics(service))
        .containsExactlyInAnyOrder(
            topics.flows().name(),
            topics.policies().name(),
            topics.control().name(),
            service.reattributionTopic());
    assertThat(sourceTopics(config(false))).containsExactly(topics.flows().name());
  }

  @Test
  void aDenyWithAFallbackIsCountedAsTheServiceCountsIt() {
    FlowRecord deny =
        new FlowRecord(
            T,
            Provider.cilium,
            Protocol.TCP,
            9999,
            CLIENT,
            SERVER,
            Verdict.DENIED,
            null,
            2,
            Reporter.UNKNOWN);
    for (boolean policyInputs : List.of(true, false)) {
      ProcessorMetrics metrics = run(config(policyInputs), deny);

      assertThat(metrics.count("denies.reattributed")).as("policy inputs %s", policyInputs).isOne();
      assertThat(metrics.count("denies.unattributed", "reason", "target-has-no-policy"))
          .as("policy inputs %s", policyInputs)
          .isOne();
    }
  }

  private static ProcessorMetrics run(ProcessorConfig config, FlowRecord flow) {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (TopologyTestDriver driver =
        new TopologyTestDriver(
            NetworkEnforcerTopology.build(config, registry), config.streamsProperties(), T)) {
      driver
          .createInputTopic(
              config.topics().flows().name(),
              new StringSerializer(),
              config.topics().flows().valueSerde().serializer())
          .pipeInput(flow.partitionKey(), flow, T);
    }
    return new ProcessorMetrics(registry);
  }

  private static Set<String> sourceTopics(ProcessorConfig config) {
    Set<String> topics = new TreeSet<>();
    for (TopologyDescription.Subtopology s :
        NetworkEnforcerTopology.build(config, new SimpleMeterRegistry())
            .describe()
            .subtopologies()) {
      for (TopologyDescription.Node n : s.nodes()) {
        if (n instanceof TopologyDescription.Source source) {
          topics.addAll(source.topicSet());
        }
      }
    }
    return topics;
  }
}
