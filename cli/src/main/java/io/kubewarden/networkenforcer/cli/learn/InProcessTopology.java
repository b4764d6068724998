package io.kubewarden.networkenforcer.cli.learn;

import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.common.topics.Topic;
import io.kubewarden.networkenforcer.ingest.publishing.FlowSink;
import io.kubewarden.networkenforcer.processor.config.ProcessorConfig;
import io.kubewarden.networkenforcer.processor.observation.FlowBatch;
import io.kubewarden.networkenforcer.processor.topology.NetworkEnforcerTopology;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;

/**
 * The processor's topology ({@link NetworkEnforcerTopology#build}, the one the service runs)
 * executed in this process by Kafka Streams' {@link TopologyTestDriver}: no broker, same
 * processors, same serdes, same stores, deterministic. Flows go in through the flows topic in the
 * order given; records the topology writes to its own inputs (the deny re-attribution loop) are fed
 * back by the driver. With one partition in one process the observations need no repartition topic
 * ({@link io.kubewarden.networkenforcer.processor.config.ProcessorConfig#observationsShuffled}).
 *
 * <p>The driver runs on its own thread, fed in batches through a bounded queue, so resolving the
 * next flows overlaps with processing the last ones; each batch enters the topology as one record
 * ({@link FlowBatch}), which the combiner takes apart; the flow is serialized (as the ingest
 * publisher would) on the caller's thread. Memory stays bounded: the driver keeps every record
 * written to any topic until it is read, so the outputs are drained after every batch, keeping only
 * the latest proposal bytes per target.
 *
 * <p>{@code learn} hands it resolved flows ({@link #accept(FlowRecord)}); {@code replay} hands it
 * the records of the flows topic as they are ({@link #accept(String, byte[], Instant)}).
 */
public final class InProcessTopology implements FlowSink, AutoCloseable {
  private static final int BATCH = 256;
  private static final int BATCHES_IN_FLIGHT = 8;
  private static final List<Flow> END = List.of();

  /** Longer than any punctuation interval of the topology. */
  static final Duration QUIET_STEP = Duration.ofHours(1);

  private static final int QUIET_ROUNDS_MAX = 20;

  private final TopologyTestDriver driver;
  private final TestInputTopic<byte[], byte[]> flows;
  private final Serializer<FlowRecord> flowSerializer;
  private final String flowsTopic;
  private final Topic<String, ProposalSnapshot> proposalsTopic;
  private final TestOutputTopic<String, byte[]> proposals;
  private final Map<String, TestOutputTopic<byte[], byte[]>> otherOutputs = new HashMap<>();

  /** Target key -> latest proposal bytes (a tombstone removes the target). */
  private final Map<String, byte[]> latest = new HashMap<>();

  private final BlockingQueue<List<Flow>> batches = new ArrayBlockingQueue<>(BATCHES_IN_FLIGHT);
  private final Thread worker;
  private volatile Throwable failure;
  private List<Flow> batch = new ArrayList<>(BATCH);

  /** A flow as the flows topic carries it. */
  private record Flow(byte[] key, byte[] value, Instant time) {}

  /**
   * @param config the processor settings, as {@link #settings} adapts them to one in-process run
   */
  public InProcessTopology(ProcessorConfig config, MeterRegistry registry) {
    // The wall clock only moves when finish() lets it: evidence is flushed once, after the last
    // flow.
    Properties streams = config.streamsProperties();
    // The driver hands every record over at once, so a task never has a partition to wait for;
    // without
    // idling, each record skips the per-partition wait bookkeeping (it formats a message per
    // check).
    streams.put(
        StreamsConfig.MAX_TASK_IDLE_MS_CONFIG,
        Long.toString(StreamsConfig.MAX_TASK_IDLE_MS_DISABLED));
    this.driver =
        new TopologyTestDriver(
            NetworkEnforcerTopology.build(config, registry), streams, Instant.EPOCH);
    Topic<String, FlowRecord> topic = config.topics().flows();
    this.flowsTopic = topic.name();
    this.flowSerializer = topic.valueSerde().serializer();
    this.flows =
        driver.createInputTopic(topic.name(), new ByteArraySerializer(), new ByteArraySerializer());
    this.proposalsTopic = config.topics().proposals();
    this.proposals =
        driver.createOutputTopic(
            proposalsTopic.name(), new StringDeserializer(), new ByteArrayDeserializer());
    this.worker = new Thread(this::processBatches, "learn-topology");
    worker.setDaemon(true);
    worker.start();
  }

  /**
   * Most flows of a long capture or window repeat one seen before (89 % of a 1,000,000-line
   * capture), so repeats are combined, as the service does, but until the end of the run: the
   * driver's wall clock stands still while flows come in, and the combinations leave at {@link
   * #finish} in the order of their latest flows (the learner sees what it would have seen flow by
   * flow), or early when {@link #COMBINED_MAX} wait. One process holds the one partition, so the
   * observations go straight to the target processor: through the repartition topic, the driver
   * serialized, captured, routed and read back every one of them, a third of the run's end.
   */
  public static ProcessorConfig settings(ProcessorConfig config) {
    return config.toBuilder()
        .combineInterval(QUIET_STEP)
        .combineMaxPending(COMBINED_MAX)
        .observationsShuffled(false)
        // Only flows are handed in (see ProcessorConfig#policyInputs), a batch at a time.
        .policyInputs(false)
        .flowBatches(true)
        .build()
        .validate();
  }

  /** About 1 KiB each: at most a fifth of the launcher's heap. */
  static final int COMBINED_MAX = 100_000;

  /**
   * One flow, as the flows topic would deliver it (keyed by its partition key, at its own time).
   */
  @Override
  public void accept(FlowRecord record) {
    add(
        new Flow(
            record.partitionKey().getBytes(StandardCharsets.UTF_8),
            flowSerializer.serialize(flowsTopic, record),
            record.time()));
  }

  /**
   * One record of the flows topic as it was read (its value in the topic's own encoding), at its
   * record timestamp: nothing is decoded or encoded again on the way in.
   */
  public void accept(String key, byte[] value, Instant timestamp) {
    add(new Flow(key == null ? null : key.getBytes(StandardCharsets.UTF_8), value, timestamp));
  }

  private void add(Flow flow) {
    batch.add(flow);
    if (batch.size() == BATCH) {
      handOver(batch);
      batch = new ArrayList<>(BATCH);
    }
  }

  /**
   * Waits (at most {@code timeout}) for every flow to be processed, then lets the wall clock run
   * until the topology is quiet (every wall-clock punctuator, such as the evidence flush, has fired
   * and what it wrote has been processed) and returns the latest proposal of every target.
   */
  public SortedMap<String, ProposalSnapshot> finish(Duration timeout, Consumer<String> phaseDone)
      throws InterruptedException {
    if (!batch.isEmpty()) {
      handOver(batch);
      batch = new ArrayList<>(BATCH);
    }
    handOver(END);
    worker.join(timeout.toMillis());
    rethrowFailure();
    if (worker.isAlive()) {
      throw new IllegalStateException(
          "processing did not finish within "
              + timeout.toSeconds()
              + " s after the last flow was read; raise --timeout for large inputs");
    }
    phaseDone.accept("last flows processed");
    // A punctuator fires at most once per advance, and what it writes may wake another one.
    // Punctuators
    // of one task fire in an order of their own: the combiner's flush may come after the targets'
    // flush
    // in the same advance, handing the targets changes they publish only at their next flush, with
    // nothing written in between. So the topology is quiet after two advances in a row write
    // nothing.
    int quietRounds = 0;
    for (int round = 0; round < QUIET_ROUNDS_MAX && quietRounds < 2; round++) {
      driver.advanceWallClockTime(QUIET_STEP);
      quietRounds = drain() == 0 ? quietRounds + 1 : 0;
    }
    phaseDone.accept("combinations learned, proposals rendered");
    // Proposals are independent: read back on every core (thousands of busy targets are seconds of
    // JSON).
    Deserializer<ProposalSnapshot> reader = proposalsTopic.valueSerde().deserializer();
    SortedMap<String, ProposalSnapshot> read =
        latest.entrySet().parallelStream()
            .collect(
                Collectors.toMap(
                    Map.Entry::getKey,
                    e -> reader.deserialize(proposalsTopic.name(), e.getValue()),
                    (a, b) -> a,
                    TreeMap::new));
    phaseDone.accept("proposals read back");
    return read;
  }

  private void handOver(List<Flow> flowBatch) {
    try {
      while (!batches.offer(flowBatch, 100, TimeUnit.MILLISECONDS)) {
        rethrowFailure();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while learning", e);
    }
  }

  private void rethrowFailure() {
    Throwable t = failure;
    if (t instanceof RuntimeException e) {
      throw e;
    }
    if (t instanceof Error e) {
      throw e;
    }
    if (t != null) {
      throw new IllegalStateException("the processor topology failed: " + t.getMessage(), t);
    }
  }

  private void processBatches() {
    try {
      while (true) {
        List<Flow> next = batches.take();
        if (next == END) {
          return;
        }
        // One record per batch: the driver commits and checks every record it is handed, which
        // cost more than combining a repeated flow (ProcessorConfig#flowBatches).
        List<FlowBatch.Entry> entries = new ArrayList<>(next.size());
        for (Flow f : next) {
          entries.add(new FlowBatch.Entry(f.key(), f.value(), f.time().toEpochMilli()));
        }
        flows.pipeInput(null, FlowBatch.encode(entries), next.get(next.size() - 1).time());
        drain();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Throwable t) {
      failure = t;
    }
  }

  /** Reads every output the driver holds; returns how many records there were. */
  private int drain() {
    List<KeyValue<String, byte[]>> written = proposals.readKeyValuesToList();
    int count = written.size();
    for (KeyValue<String, byte[]> kv : written) {
      if (kv.value == null) {
        latest.remove(kv.key);
      } else {
        latest.put(kv.key, kv.value);
      }
    }
    // Everything else (re-attributions, violations, dead letters) has been fed back or is not
    // needed
    // offline; reading it frees it.
    for (String topic : driver.producedTopicNames()) {
      if (!topic.equals(proposalsTopic.name())) {
        count +=
            otherOutputs
                .computeIfAbsent(
                    topic,
                    t ->
                        driver.createOutputTopic(
                            t, new ByteArrayDeserializer(), new ByteArrayDeserializer()))
                .readValuesToList()
                .size();
      }
    }
    return count;
  }

  @Override
  public void close() {
    worker.interrupt();
    try {
      worker.join(TimeUnit.SECONDS.toMillis(10));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    driver.close();
  }
}
