package io.kubewarden.networkenforcer.processor.benchmark;

import static org.awaitility.Awaitility.await;

import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.topics.MissingTopics;
import io.kubewarden.networkenforcer.common.topics.Topics;
import io.kubewarden.networkenforcer.embedded.EmbeddedKafkaBroker;
import io.kubewarden.networkenforcer.processor.app.StreamProcessorApp;
import io.kubewarden.networkenforcer.processor.config.ProcessorConfig;
import io.kubewarden.networkenforcer.processor.progress.Progress;
import io.kubewarden.networkenforcer.processor.store.StoreNames;
import io.kubewarden.networkenforcer.processor.topology.NetworkEnforcerTopology;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.DoubleAccumulator;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.StreamsConfig;

/**
 * Issue #36 goal 4: the processor on the realistic mix with churn ({@link ChurnMix}: a tenth of the
 * workloads replaced every simulated minute, short-lived workloads, and the writer's ResetLearning
 * records of the workloads that are gone), printed as {@code name: value} lines (run by {@code
 * hack/bench/churn.sh}; not a test).
 *
 * <ol>
 *   <li><b>Rates</b>: the whole mix (rounds x flows per round) as a backlog; the raw producer's
 *       rate writing it (lz4, 256 KiB batches, leader acks, as {@code ProcessorBenchmark}), then
 *       one processor (defaults: exactly-once, one stream thread) on it after a warm-up: steady (10
 *       % to 90 % of the flows, its own {@code flows.received} every 10 ms) and end to end (RUNNING
 *       until the group committed the flows, the control records and the repartition topic).
 *   <li><b>Memory</b>: a second processor fed the same mix one round at a time; after each round is
 *       caught up ({@link StreamProcessorApp#progress()}), heap after full collections, RSS, and
 *       the keys of the learned allow-lists and evidence stores read back from their changelogs
 *       (committed), split into the keys of workloads that were reset (should be none) and the
 *       evidence of live targets naming a reset workload as peer (nothing drops those).
 * </ol>
 *
 * <p>Arguments: {@code [flows per round] [rounds] [resets]} (default 300,000, 6 and true: 5
 * simulated minutes a round; {@code resets} false sends no ResetLearning, as today's writer).
 */
public final class ChurnBenchmark {
  private static final int PARTITIONS = 6;
  private static final Map<String, String> PATIENT =
      Map.of("request.timeout.ms", "300000", "delivery.timeout.ms", "900000");

  private ChurnBenchmark() {}

  public static void main(String[] args) throws Exception {
    int perRound = args.length > 0 ? Integer.parseInt(args[0]) : 300_000;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 6;
    boolean resets = args.length <= 2 || Boolean.parseBoolean(args[2]);
    int flows = perRound * rounds;
    try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.startDefault()) {
      String bootstrap = broker.bootstrapServers();
      int warmup = Math.min(perRound, 200_000);
      produce(bootstrap, "churn-warmup", new ChurnMix(37, resets).next(warmup));
      ChurnMix mix = new ChurnMix(36, resets);
      List<ChurnMix.Entry> backlog = mix.next(flows);
      long nanos = produce(bootstrap, "churn-rate", backlog);
      double producer = flows / (nanos / 1e9);
      backlog = null;
      System.gc();
      process(bootstrap, "churn-warmup", warmup);
      double[] rates = process(bootstrap, "churn-rate", flows);
      line("churn flows", Integer.toString(flows));
      line("churn reset records (2 per workload gone)", Long.toString(mix.resets()));
      line("churn workloads gone", Integer.toString(mix.gone().size()));
      line("churn workloads gone and reset", Integer.toString(mix.reset().size()));
      line("producer flows/s (realistic, churn)", String.format("%.0f", producer));
      line("processor flows/s (realistic, churn, steady)", String.format("%.0f", rates[0]));
      line("processor flows/s (realistic, churn, end to end)", String.format("%.0f", rates[1]));
      line(
          "processor/producer ratio (realistic, churn, steady)",
          String.format("%.2f", rates[0] / producer));
      line(
          "processor/producer ratio (realistic, churn, end to end)",
          String.format("%.2f", rates[1] / producer));
      line("processor longest punctuation ms (realistic, churn)", String.format("%.0f", rates[2]));
      line("processor longest commit ms (realistic, churn)", String.format("%.0f", rates[3]));
      memory(bootstrap, perRound, rounds, resets);
    }
    System.exit(0);
  }

  /**
   * The processor over the run's backlog: {steady, end to end} flows/s, the longest punctuation and
   * the longest commit (ms) its stream threads reported: both run inside a transaction, which the
   * broker aborts after transaction.timeout.ms (10 s under exactly-once).
   */
  private static double[] process(String bootstrap, String run, int flows) throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    Longest longest = new Longest(registry);
    ProcessorConfig config = config(bootstrap, run);
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap));
        StreamProcessorApp app = new StreamProcessorApp(config, registry)) {
      app.start();
      waitUntil(app::isReady, Duration.ofMinutes(2), 50);
      long start = System.nanoTime();
      SteadyRate steady = SteadyRate.start(new FlowsReceived(registry), flows);
      waitUntil(
          () -> {
            longest.read();
            return committed(admin, config, flows);
          },
          Duration.ofMinutes(30),
          50);
      double endToEnd = flows / ((System.nanoTime() - start) / 1e9);
      return new double[] {
        steady.flowsPerSecond(), endToEnd, longest.punctuation.get(), longest.commit.get()
      };
    }
  }

  /**
   * The longest punctuation and commit the stream threads reported. Kafka Streams gives windowed
   * maxima (two 30 s samples): read often enough to see every peak.
   */
  private static final class Longest {
    final DoubleAccumulator punctuation = new DoubleAccumulator(Math::max, 0);
    final DoubleAccumulator commit = new DoubleAccumulator(Math::max, 0);
    private final SimpleMeterRegistry registry;

    Longest(SimpleMeterRegistry registry) {
      this.registry = registry;
    }

    void read() {
      read("kafka.stream.thread.punctuate.latency.max", punctuation);
      read("kafka.stream.thread.commit.latency.max", commit);
    }

    private void read(String gauge, DoubleAccumulator into) {
      registry.find(gauge).gauges().stream()
          .mapToDouble(g -> g.value())
          .filter(Double::isFinite)
          .forEach(into::accumulate);
    }
  }

  private static void memory(String bootstrap, int perRound, int rounds, boolean resets)
      throws Exception {
    String run = "churn-memory";
    ChurnMix mix = new ChurnMix(36, resets);
    ProcessorConfig config = config(bootstrap, run);
    createTopics(bootstrap, run);
    List<long[]> figures = new ArrayList<>();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    Longest longest = new Longest(registry);
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap));
        StreamProcessorApp app = new StreamProcessorApp(config, registry)) {
      app.start();
      waitUntil(app::isReady, Duration.ofMinutes(2), 50);
      for (int round = 1; round <= rounds; round++) {
        produce(bootstrap, run, mix.next(perRound));
        long sent = (long) round * perRound;
        waitUntil(
            () -> {
              longest.read();
              return committed(admin, config, sent);
            },
            Duration.ofMinutes(30),
            50);
        waitUntil(
            () -> {
              longest.read();
              return app.progress().map(Progress::caughtUp).orElse(false);
            },
            Duration.ofMinutes(10),
            500);
        long[] memory = ProcessMemory.afterCollections();
        // Without resets, "gone" is what the mix retired; with them, what was reset.
        long[] keys = storeKeys(bootstrap, run, resets ? mix.reset() : mix.gone());
        figures.add(new long[] {memory[0], memory[1], keys[0], keys[1], keys[2], keys[3]});
        String r = "processor churn round " + round;
        line(r + " heap MiB (after GC)", mib(memory[0]));
        line(r + " RSS MiB", mib(memory[1]));
        line(r + " learned allow-lists", Long.toString(keys[0]));
        line(r + " evidence keys", Long.toString(keys[1]));
        line(r + " keys of gone workloads", Long.toString(keys[2]));
        line(r + " evidence keys naming a gone workload as peer", Long.toString(keys[3]));
      }
    }
    long[] first = figures.get(0);
    long[] last = figures.get(figures.size() - 1);
    line(
        "processor memory under churn",
        String.format(
            "heap MiB %s / %s; store keys %d / %d",
            mib(first[0]), mib(last[0]), first[2] + first[3], last[2] + last[3]));
    line(
        "processor RSS under churn (MiB, round 1 / round " + figures.size() + ")",
        mib(first[1]) + " / " + mib(last[1]));
    line(
        "processor longest punctuation / commit ms (realistic, churn, memory rounds)",
        String.format("%.0f / %.0f", longest.punctuation.get(), longest.commit.get()));
  }

  /**
   * Committed keys of the learned allow-lists and evidence stores, from their changelogs: {learned,
   * evidence, keys of a reset workload's own targets, evidence of other targets naming a reset
   * workload as peer}.
   */
  private static long[] storeKeys(String bootstrap, String run, Set<String> reset) {
    Map<String, Boolean> learned = changelog(bootstrap, run, StoreNames.LEARNED);
    Map<String, Boolean> evidence = changelog(bootstrap, run, StoreNames.EVIDENCE);
    long own = 0;
    long peers = 0;
    for (String target : learned.keySet()) {
      if (reset.contains(workloadOf(target))) {
        own++;
      }
    }
    for (String key : evidence.keySet()) {
      // EvidenceKey: target|peer|port.
      String[] parts = key.split("\\|", 3);
      if (reset.contains(workloadOf(parts[0]))) {
        own++;
      } else if (parts.length > 1 && reset.contains(parts[1])) {
        peers++;
      }
    }
    return new long[] {learned.size(), evidence.size(), own, peers};
  }

  private static String workloadOf(String target) {
    int slash = target.lastIndexOf('/');
    return slash < 0 ? target : target.substring(0, slash);
  }

  /** The keys a changelog holds a value for (read committed, to its end). */
  private static Map<String, Boolean> changelog(String bootstrap, String run, String store) {
    String topic = run + "-" + store + "-changelog";
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("isolation.level", "read_committed");
    p.put("max.partition.fetch.bytes", Integer.toString(16 * 1024 * 1024));
    Map<String, Boolean> keys = new HashMap<>();
    try (var consumer =
        new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> partitions =
          consumer.partitionsFor(topic).stream()
              .map(i -> new TopicPartition(topic, i.partition()))
              .toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
      while (partitions.stream().anyMatch(tp -> consumer.position(tp) < ends.get(tp))) {
        for (var r : consumer.poll(Duration.ofMillis(500))) {
          if (r.value() == null) {
            keys.remove(r.key());
          } else {
            keys.put(r.key(), Boolean.TRUE);
          }
        }
      }
    }
    return keys;
  }

  /**
   * The group has committed the end of the flows and control topics (at least {@code flows} flows)
   * and drained its repartition topic.
   */
  private static boolean committed(Admin admin, ProcessorConfig config, long flows)
      throws Exception {
    Map<TopicPartition, OffsetAndMetadata> committed =
        admin
            .listConsumerGroupOffsets(config.applicationId())
            .partitionsToOffsetAndMetadata()
            .get();
    String flowsTopic = config.topics().flows().name();
    String control = config.topics().control().name();
    String repartition = NetworkEnforcerTopology.observationsRepartitionTopic(config);
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
    for (String topic : List.of(flowsTopic, control, repartition)) {
      for (int p = 0; p < PARTITIONS; p++) {
        latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
      }
    }
    long flowsCommitted = 0;
    for (var e : admin.listOffsets(latest).all().get().entrySet()) {
      long end = e.getValue().offset();
      OffsetAndMetadata c = committed.get(e.getKey());
      long at = c == null ? 0 : c.offset();
      if (e.getKey().topic().equals(repartition)) {
        // Exactly-once: a transaction marker follows the processor's last repartition record.
        if (end > 0 && at < end - 1) {
          return false;
        }
      } else if (at < end) {
        return false;
      }
      if (e.getKey().topic().equals(flowsTopic)) {
        flowsCommitted += at;
      }
    }
    return flowsCommitted >= flows;
  }

  private static ProcessorConfig config(String bootstrap, String run) throws Exception {
    KafkaSettings kafka = new KafkaSettings(bootstrap, run + ".", PARTITIONS, (short) 1, PATIENT);
    return ProcessorConfig.builder(kafka)
        .applicationId(run)
        .provider(Provider.calico)
        .processingGuarantee(StreamsConfig.EXACTLY_ONCE_V2)
        .streamThreads(1)
        .stateDir(Files.createTempDirectory("churn-" + run))
        .build();
  }

  private static void createTopics(String bootstrap, String run) throws Exception {
    Topics topics = new Topics(run + ".");
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      MissingTopics.create(
          admin,
          topics.all().stream().map(t -> t.newTopic(PARTITIONS, (short) 1)).toList(),
          Duration.ofMinutes(2),
          bootstrap);
    }
  }

  /**
   * Writes the entries in order (flows and control records interleaved, so the reset of a workload
   * follows its last flows in time); the nanoseconds from first send to last ack.
   */
  private static long produce(String bootstrap, String run, List<ChurnMix.Entry> entries)
      throws Exception {
    createTopics(bootstrap, run);
    Topics topics = new Topics(run + ".");
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.LINGER_MS_CONFIG, "20");
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(256 * 1024));
    p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    p.putAll(PATIENT);
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
    p.put(ProducerConfig.ACKS_CONFIG, "1");
    try (var producer =
        new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
      long start = System.nanoTime();
      for (ChurnMix.Entry e : entries) {
        String topic = e.control() ? topics.control().name() : topics.flows().name();
        producer.send(new ProducerRecord<>(topic, e.key(), e.value()));
      }
      producer.flush();
      return System.nanoTime() - start;
    }
  }

  private static String mib(double bytes) {
    return String.format("%.1f", bytes / (1024.0 * 1024.0));
  }

  private static void line(String name, String value) {
    System.out.println(name + ": " + value);
    System.out.flush();
  }

  private static void waitUntil(Callable<Boolean> check, Duration timeout, long pollMillis) {
    await("churn benchmark")
        .atMost(timeout)
        .pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(pollMillis))
        .until(check);
  }
}
