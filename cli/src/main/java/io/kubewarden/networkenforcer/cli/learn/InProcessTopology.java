package io.kubewarden.networkenforcer.cli.learn;

import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.common.topics.Topic;
import io.kubewarden.networkenforcer.ingest.publishing.FlowSink;
import io.kubewarden.networkenforcer.processor.config.ProcessorConfig;
import io.kubewarden.networkenforcer.processor.topology.NetworkEnforcerTopology;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;

/**
 * The processor's topology ({@link NetworkEnforcerTopology#build}, the one the service runs) executed
 * in this process by Kafka Streams' {@link TopologyTestDriver}: no broker, same processors, same
 * serdes, same stores, deterministic. Flows go in through the flows topic in the order given;
 * records the topology writes to its own inputs (the observations repartition, the deny
 * re-attribution loop) are fed back by the driver.
 *
 * <p>Memory stays bounded: the driver keeps every record written to any topic until it is read, so
 * the outputs are drained regularly, keeping only the latest proposal bytes per target.
 */
final class InProcessTopology implements FlowSink, AutoCloseable {
  /** Outputs are drained after this many flows. */
  private static final int DRAIN_EVERY = 256;

  private final ProcessorConfig config;
  private final TopologyTestDriver driver;
  private final TestInputTopic<String, FlowRecord> flows;
  private final Topic<String, ProposalSnapshot> proposalsTopic;
  private final TestOutputTopic<String, byte[]> proposals;
  private final Map<String, TestOutputTopic<byte[], byte[]>> otherOutputs = new HashMap<>();
  /** Target key -> latest proposal bytes (a tombstone removes the target). */
  private final Map<String, byte[]> latest = new HashMap<>();
  private int sinceDrain;

  InProcessTopology(ProcessorConfig config, MeterRegistry registry) {
    this.config = config;
    // The wall clock only moves when finish() lets it: evidence is flushed once, after the last flow.
    this.driver = new TopologyTestDriver(NetworkEnforcerTopology.build(config, registry), config.streamsProperties(),
        Instant.EPOCH);
    Topic<String, FlowRecord> flowsTopic = config.topics().flows();
    Serializer<FlowRecord> flowSerializer = flowsTopic.valueSerde().serializer();
    this.flows = driver.createInputTopic(flowsTopic.name(), new StringSerializer(), flowSerializer);
    this.proposalsTopic = config.topics().proposals();
    this.proposals = driver.createOutputTopic(proposalsTopic.name(), new StringDeserializer(),
        new ByteArrayDeserializer());
  }

  /** One flow, as the flows topic would deliver it (keyed by its partition key, at its own time). */
  @Override
  public void accept(FlowRecord record) {
    flows.pipeInput(record.partitionKey(), record, record.time());
    if (++sinceDrain >= DRAIN_EVERY) {
      drain();
    }
  }

  /**
   * Lets one evidence flush interval pass, so evidence changed since the last snapshot is
   * published, and returns the latest proposal of every target.
   */
  SortedMap<String, ProposalSnapshot> finish() {
    driver.advanceWallClockTime(config.evidenceFlushInterval());
    drain();
    SortedMap<String, ProposalSnapshot> out = new TreeMap<>();
    latest.forEach((key, bytes) -> out.put(key,
        proposalsTopic.valueSerde().deserializer().deserialize(proposalsTopic.name(), bytes)));
    return out;
  }

  private void drain() {
    sinceDrain = 0;
    for (KeyValue<String, byte[]> kv : proposals.readKeyValuesToList()) {
      if (kv.value == null) {
        latest.remove(kv.key);
      } else {
        latest.put(kv.key, kv.value);
      }
    }
    // Everything else (repartitioned observations, re-attributions, violations, dead letters) has
    // been fed back or is not needed offline; reading it frees it.
    for (String topic : driver.producedTopicNames()) {
      if (!topic.equals(proposalsTopic.name())) {
        otherOutputs.computeIfAbsent(topic, t -> driver.createOutputTopic(t, new ByteArrayDeserializer(),
            new ByteArrayDeserializer())).readValuesToList();
      }
    }
  }

  @Override
  public void close() {
    driver.close();
  }
}
