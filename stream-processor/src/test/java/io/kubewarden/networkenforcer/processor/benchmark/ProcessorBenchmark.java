package io.kubewarden.networkenforcer.processor.benchmark;

import static org.awaitility.Awaitility.await;

import com.sun.management.OperatingSystemMXBean;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.NamedPort;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.common.flow.Verdict;
import io.kubewarden.networkenforcer.common.topics.MissingTopics;
import io.kubewarden.networkenforcer.common.topics.Topics;
import io.kubewarden.networkenforcer.common.workload.WorkloadKind;
import io.kubewarden.networkenforcer.embedded.EmbeddedKafkaBroker;
import io.kubewarden.networkenforcer.processor.app.StreamProcessorApp;
import io.kubewarden.networkenforcer.processor.config.ProcessorConfig;
import io.kubewarden.networkenforcer.processor.learning.AllowListLearner;
import io.kubewarden.networkenforcer.processor.topology.NetworkEnforcerTopology;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.Record;

/**
 * The stream processor's figures of issue #11, printed as {@code name: value} lines (run by {@code
 * hack/bench/processor.sh}; not a test, nothing here asserts a time).
 *
 * <ul>
 *   <li>{@code throughput}: the raw produce rate of the flow records into the embedded broker, then
 *       the processor (exactly-once, default 1 s commits) on that very backlog with one stream
 *       thread (three rounds of each, medians), then with two, then a pass-through Kafka Streams
 *       topology (the floor of any processor), all in one run on one broker. Rates are steady (10 %
 *       to 90 % of the backlog); the end-to-end rates beside them include the last combine interval
 *       and commit.
 *   <li>{@code memory}: heap and RSS while 100,000 targets are learned (50,000 client/server pairs,
 *       each an Egress and an Ingress target) and while flows keep coming over the same targets.
 *   <li>{@code burst}: the processor's sustained rate R (steady, one thread, exactly-once, a
 *       backlog), then, live, flows sent at R/2 for 20 s, at 2R for 60 s, and at R/2 again until
 *       the lag is gone: the largest lag, how long it took to drain, and whether every flow was
 *       learned exactly once.
 *   <li>{@code fanin}: a new cluster's DNS: thousands of workloads, each calling one server once (a
 *       backlog). The server's Ingress target gains a peer per client: how many proposal records
 *       and bytes that writes, and the stream thread's CPU.
 * </ul>
 *
 * <p>Arguments: {@code throughput [flows]}, {@code memory [targets]}, {@code burst [backlog flows]}
 * or {@code fanin [clients]}.
 */
public final class ProcessorBenchmark {
  private static final int PARTITIONS = 4;

  /**
   * Rounds of the producer and of the one-thread processor in {@code throughput}: medians are
   * reported.
   */
  private static final int ROUNDS = 3;

  private static final int CLIENTS = 40;
  private static final int SERVERS = 10;
  private static final Instant START = Instant.parse("2026-08-03T15:40:00Z");

  private ProcessorBenchmark() {}

  public static void main(String[] args) throws Exception {
    String mode = args.length > 0 ? args[0] : "throughput";
    int n =
        args.length > 1 ? Integer.parseInt(args[1]) : (mode.equals("memory") ? 100_000 : 200_000);
    try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.startDefault()) {
      if (mode.equals("memory")) {
        memory(broker.bootstrapServers(), n);
      } else if (mode.equals("burst")) {
        burst(broker.bootstrapServers(), n);
      } else if (mode.equals("fanin")) {
        fanIn(broker.bootstrapServers(), n);
      } else {
        throughput(broker.bootstrapServers(), n);
      }
    }
    // The broker's and the clients' non-daemon threads must not keep the JVM.
    System.exit(0);
  }

  private static void throughput(String bootstrap, int flows) throws Exception {
    // Key, value, key, value...
    List<byte[]> records = stablePeerFlows(flows);
    long bytes = 0;
    for (int i = 1; i < records.size(); i += 2) {
      bytes += records.get(i).length;
    }
    // Warm-up, not reported: JIT of the producer, the serdes and the topology.
    int warmup = Math.min(flows, 200_000);
    produce(bootstrap, topicsOf("warmup"), records.subList(0, 2 * warmup));

    // Three rounds of the producer and of the one-thread processor, each on its own copy of the
    // backlog: the figures are their medians (the machine's noise moves a single round by 20 %).
    double[] producedRounds = new double[ROUNDS];
    long cpu = cpuNanos();
    for (int r = 0; r < ROUNDS; r++) {
      producedRounds[r] = produce(bootstrap, topicsOf("one-" + r), records);
    }
    double producerCpu = (cpuNanos() - cpu) / 1e3 / flows / ROUNDS;
    produce(bootstrap, topicsOf("two"), records);
    produce(bootstrap, topicsOf("floor"), records);
    // The processors run without the benchmark's copy of the records on the heap: a million records
    // kept alive would have the collector mark them again and again while the processor is timed.
    records = null;
    System.gc();
    process(bootstrap, "warmup", 1, warmup, new SimpleMeterRegistry());
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    Rates[] oneRounds = new Rates[ROUNDS];
    double[] ratios = new double[ROUNDS];
    cpu = cpuNanos();
    for (int r = 0; r < ROUNDS; r++) {
      oneRounds[r] =
          process(bootstrap, "one-" + r, 1, flows, r == 0 ? registry : new SimpleMeterRegistry());
      ratios[r] = oneRounds[r].steady() / producedRounds[r];
    }
    double processorCpu = (cpuNanos() - cpu) / 1e3 / flows / ROUNDS;
    double produced = median(producedRounds);
    Rates one =
        new Rates(
            median(Arrays.stream(oneRounds).mapToDouble(Rates::endToEnd).toArray()),
            median(Arrays.stream(oneRounds).mapToDouble(Rates::steady).toArray()),
            median(
                Arrays.stream(oneRounds).mapToDouble(Rates::streamThreadMicrosPerFlow).toArray()));
    Rates two = process(bootstrap, "two", 2, flows, new SimpleMeterRegistry());
    double floor = passThrough(bootstrap, "floor", flows);

    double proposals =
        counter(registry, "proposals.emitted") + counter(registry, "evidence.flushed");
    line("processor flow record bytes (average)", String.format("%.0f", (double) bytes / flows));
    line("producer flows/s", String.format("%.0f", produced));
    line("processor flows/s (exactly-once, 1 thread)", String.format("%.0f", one.steady()));
    line("processor flows/s (exactly-once, 2 threads)", String.format("%.0f", two.steady()));
    line("processor/producer ratio", String.format("%.2f", one.steady() / produced));
    line(
        "processor/producer ratio, lowest round",
        String.format("%.2f", Arrays.stream(ratios).min().orElseThrow()));
    line(
        "processor/producer ratio, highest round",
        String.format("%.2f", Arrays.stream(ratios).max().orElseThrow()));
    line("processor 2 threads/1 thread ratio", String.format("%.2f", two.steady() / one.steady()));
    line(
        "processor flows/s end to end (exactly-once, 1 thread, backlog learned and committed)",
        String.format("%.0f", one.endToEnd()));
    line(
        "processor flows/s end to end (exactly-once, 2 threads)",
        String.format("%.0f", two.endToEnd()));
    line("processor/producer ratio (end to end)", String.format("%.2f", one.endToEnd() / produced));
    line(
        "kafka streams pass-through flows/s (exactly-once, 1 thread)",
        String.format("%.0f", floor));
    line("kafka streams pass-through/producer ratio", String.format("%.2f", floor / produced));
    line("processor/pass-through ratio", String.format("%.2f", one.steady() / floor));
    // CPU time of the whole process (broker included) per flow: far less sensitive to the load of
    // other processes on a shared machine than the wall-clock rates.
    line("producer CPU per flow (microseconds, whole process)", String.format("%.1f", producerCpu));
    line(
        "processor CPU per flow (microseconds, whole process, exactly-once, 1 thread)",
        String.format("%.1f", processorCpu));
    line("processor/producer ratio (CPU time)", String.format("%.2f", producerCpu / processorCpu));
    line(
        "processor stream thread CPU per flow (microseconds, exactly-once, 1 thread)",
        String.format("%.2f", one.streamThreadMicrosPerFlow()));
    line(
        "processor proposal records per million flows (stable peers)",
        String.format("%.0f", proposals * 1_000_000.0 / flows));
    // The writer's API calls are measured against a real API server by hack/bench/writer.sh.
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }

  private static void memory(String bootstrap, int targets) throws Exception {
    int pairs = targets / 2;
    String run = "memory";
    Topics topics = topicsOf(run);
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    Path stateDir = Files.createTempDirectory("processor-bench");
    ProcessorConfig config = config(bootstrap, run, 1, stateDir);
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      MissingTopics.create(
          admin,
          topics.all().stream().map(t -> t.newTopic(PARTITIONS, (short) 1)).toList(),
          Duration.ofMinutes(2),
          bootstrap);
      try (StreamProcessorApp app = new StreamProcessorApp(config, registry)) {
        app.start();
        waitUntil(app::isReady, Duration.ofMinutes(2));
        long[] base = ProcessMemory.afterCollections();
        long sent = produce(bootstrap, topics, distinctPairFlows(pairs, 0), 0);
        waitUntil(
            () -> caughtUp(admin, config, sent) && learnedAll(registry, sent),
            Duration.ofMinutes(30));
        long[] learned = ProcessMemory.afterCollections();
        long more = sent;
        for (int round = 1; round <= 2; round++) {
          more += produce(bootstrap, topics, distinctPairFlows(pairs, round), 0);
          long target = more;
          waitUntil(
              () -> caughtUp(admin, config, target) && learnedAll(registry, target),
              Duration.ofMinutes(30));
        }
        long[] after = ProcessMemory.afterCollections();
        double per10k = 10_000.0 / targets;
        line(
            "processor targets learned",
            String.format("%.0f", counter(registry, "proposals.emitted")));
        line("processor heap per 10k targets (MiB)", mib((learned[0] - base[0]) * per10k));
        line("processor RSS per 10k targets (MiB)", mib((learned[1] - base[1]) * per10k));
        line(
            "processor heap growth while flows continue, 2 more rounds (MiB)",
            mib(after[0] - learned[0]));
        line(
            "processor RSS growth while flows continue, 2 more rounds (MiB)",
            mib(after[1] - learned[1]));
      }
    }
  }

  private static void burst(String bootstrap, int backlog) throws Exception {
    List<byte[]> records = stablePeerFlows(backlog);
    int warmup = Math.min(backlog, 25_000);
    produce(bootstrap, topicsOf("burst-warmup"), records.subList(0, 2 * warmup));
    process(bootstrap, "burst-warmup", 1, warmup, new SimpleMeterRegistry());
    produce(bootstrap, topicsOf("burst-rate"), records);
    // The steady rate: the end-to-end rate of a backlog this size is mostly the last timer waits.
    double sustained =
        process(bootstrap, "burst-rate", 1, backlog, new SimpleMeterRegistry()).steady();

    String run = "burst";
    Topics topics = topicsOf(run);
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    ProcessorConfig config =
        config(bootstrap, run, 1, Files.createTempDirectory("processor-bench"));
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      MissingTopics.create(
          admin,
          topics.all().stream().map(t -> t.newTopic(PARTITIONS, (short) 1)).toList(),
          Duration.ofMinutes(2),
          bootstrap);
      try (StreamProcessorApp app = new StreamProcessorApp(config, registry);
          KafkaProducer<byte[], byte[]> producer =
              new KafkaProducer<>(
                  producerProperties(bootstrap),
                  new ByteArraySerializer(),
                  new ByteArraySerializer())) {
        app.start();
        waitUntil(app::isReady, Duration.ofMinutes(2));
        double[] phaseRates = {sustained / 2, sustained * 2};
        int[] phaseSeconds = {20, 60};
        long sent = 0;
        long burstSent = 0;
        long maxLag = 0;
        int cursor = 0;
        for (int phase = 0; phase < 2; phase++) {
          long phaseStart = System.nanoTime();
          long phaseSent = 0;
          while (System.nanoTime() - phaseStart < phaseSeconds[phase] * 1_000_000_000L) {
            // Paced in 100 ms steps: send what the phase's rate owes so far, then sample the lag.
            double elapsed = (System.nanoTime() - phaseStart) / 1e9;
            long owed = (long) (phaseRates[phase] * elapsed) - phaseSent;
            for (long i = 0; i < owed; i++) {
              producer.send(
                  new ProducerRecord<>(
                      topics.flows().name(), records.get(cursor), records.get(cursor + 1)));
              cursor = (cursor + 2) % records.size();
            }
            phaseSent += Math.max(owed, 0);
            producer.flush();
            maxLag = Math.max(maxLag, sent + phaseSent - committedFlows(admin, config));
            Thread.sleep(100);
          }
          sent += phaseSent;
          if (phase == 1) {
            burstSent = phaseSent;
          }
        }
        long burstEnd = System.nanoTime();
        long lagAtBurstEnd = sent - committedFlows(admin, config);
        // After the burst: R/2 again until the lag is gone (what the processor commits catches up).
        long drainStart = System.nanoTime();
        long drained = 0;
        while (true) {
          double elapsed = (System.nanoTime() - drainStart) / 1e9;
          long owed = Math.max(0, (long) (phaseRates[0] * elapsed) - drained);
          for (long i = 0; i < owed; i++) {
            producer.send(
                new ProducerRecord<>(
                    topics.flows().name(), records.get(cursor), records.get(cursor + 1)));
            cursor = (cursor + 2) % records.size();
          }
          drained += owed;
          producer.flush();
          long lag = sent + drained - committedFlows(admin, config);
          maxLag = Math.max(maxLag, lag);
          if (lag <= phaseRates[0]
              || System.nanoTime() - drainStart > Duration.ofMinutes(20).toNanos()) {
            break;
          }
          Thread.sleep(100);
        }
        double drainSeconds = (System.nanoTime() - burstEnd) / 1e9;
        long total = sent + drained;
        waitUntil(
            () -> caughtUp(admin, config, total) && learnedAll(registry, total),
            Duration.ofMinutes(20));
        double learned = counter(registry, "observations.learned");
        line(
            "burst sustained processor flows/s (exactly-once, 1 thread)",
            String.format("%.0f", sustained));
        line("burst flows/s for 60 s (2x sustained)", String.format("%.0f", phaseRates[1]));
        // What the benchmark's one sending thread achieved beside the processor, on the same cores.
        line("burst flows/s sent for 60 s (achieved)", String.format("%.0f", burstSent / 60.0));
        line("burst lag at the end of the burst (flows)", Long.toString(lagAtBurstEnd));
        line("burst largest lag (flows)", Long.toString(maxLag));
        line("burst seconds to drain after the burst", String.format("%.1f", drainSeconds));
        line("burst flows sent", Long.toString(total));
        // Each flow is two observations (Egress of the client, Ingress of the server).
        line("burst flows lost", String.format("%.0f", total - learned / 2));
        line("burst flows doubled", String.format("%.0f", Math.max(0, learned / 2 - total)));
      }
    }
  }

  private static void fanIn(String bootstrap, int clients) throws Exception {
    String run = "fanin";
    Topics topics = topicsOf(run);
    List<byte[]> records = new ArrayList<>(clients * 2);
    var serializer = topics.flows().valueSerde().serializer();
    FlowEndpoint dns = endpoint("kube-dns", 0, true);
    for (int i = 0; i < clients; i++) {
      FlowRecord flow =
          new FlowRecord(
              START.plusMillis(i),
              Provider.calico,
              Protocol.TCP,
              8080,
              endpoint("client-" + i, i, false),
              dns,
              Verdict.FORWARDED,
              null,
              1,
              Reporter.SOURCE);
      records.add(flow.partitionKey().getBytes(StandardCharsets.UTF_8));
      records.add(serializer.serialize("x", flow));
    }
    produce(bootstrap, topics, records);
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    Rates rates = process(bootstrap, run, 1, clients, registry);
    long[] proposals = recordsAndBytes(bootstrap, topics.proposals().name());
    line("fan-in clients of one server", Integer.toString(clients));
    line("fan-in proposal records", Long.toString(proposals[0]));
    line("fan-in proposal MiB", mib(proposals[1]));
    line(
        "fan-in seconds to learn (exactly-once, 1 thread)",
        String.format("%.1f", clients / rates.endToEnd()));
    line(
        "fan-in stream thread CPU seconds",
        String.format("%.1f", rates.streamThreadMicrosPerFlow() * clients / 1e6));
    Counter beyond =
        registry
            .find("network_enforcer.processor.learning.skipped")
            .tag("reason", AllowListLearner.TOO_MANY_PEERS)
            .counter();
    line(
        "fan-in peers of the server not learned (beyond the most one target learns)",
        String.format("%.0f", beyond == null ? 0 : beyond.count()));
  }

  /** Committed records of a topic and their value bytes. */
  private static long[] recordsAndBytes(String bootstrap, String topic) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("isolation.level", "read_committed");
    p.put("max.partition.fetch.bytes", Integer.toString(16 * 1024 * 1024));
    try (var consumer =
        new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> partitions =
          consumer.partitionsFor(topic).stream()
              .map(i -> new TopicPartition(topic, i.partition()))
              .toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
      long records = 0;
      long bytes = 0;
      while (partitions.stream().anyMatch(tp -> consumer.position(tp) < ends.get(tp))) {
        for (var r : consumer.poll(Duration.ofMillis(500))) {
          records++;
          bytes += r.value() == null ? 0 : r.value().length;
        }
      }
      return new long[] {records, bytes};
    }
  }

  private static long committedFlows(Admin admin, ProcessorConfig config) throws Exception {
    String flowsTopic = config.topics().flows().name();
    return admin
        .listConsumerGroupOffsets(config.applicationId())
        .partitionsToOffsetAndMetadata()
        .get()
        .entrySet()
        .stream()
        .filter(e -> e.getKey().topic().equals(flowsTopic) && e.getValue() != null)
        .mapToLong(e -> e.getValue().offset())
        .sum();
  }

  private static long cpuNanos() {
    return ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  private static String mib(double bytes) {
    return String.format("%.1f", bytes / (1024.0 * 1024.0));
  }

  private static void line(String name, String value) {
    System.out.println(name + ": " + value);
  }

  private static double counter(SimpleMeterRegistry registry, String name) {
    return registry.find("network_enforcer.processor." + name).counters().stream()
        .mapToDouble(Counter::count)
        .sum();
  }

  private static Topics topicsOf(String run) {
    return new Topics(run + ".");
  }

  /**
   * Patient clients: on a starved machine a request that times out is retried after later batches
   * were written, which the broker refuses as out of order; waiting longer avoids the retry.
   */
  private static final Map<String, String> PATIENT =
      Map.of("request.timeout.ms", "300000", "delivery.timeout.ms", "900000");

  private static ProcessorConfig config(String bootstrap, String run, int threads, Path stateDir) {
    KafkaSettings kafka = new KafkaSettings(bootstrap, run + ".", PARTITIONS, (short) 1, PATIENT);
    return ProcessorConfig.builder(kafka)
        .applicationId(run)
        .provider(Provider.calico)
        .processingGuarantee(StreamsConfig.EXACTLY_ONCE_V2)
        .streamThreads(threads)
        .stateDir(stateDir)
        .build();
  }

  /**
   * The processor's rates over one backlog: end to end (from RUNNING until every flow is learned
   * and committed, so including the last combine interval and commit, idle timer waits of up to a
   * second each) and steady (flows read per second between 10 % and 90 % of the backlog, sampled
   * every 10 ms from the processor's own counter).
   */
  private record Rates(double endToEnd, double steady, double streamThreadMicrosPerFlow) {}

  /** CPU time of the run's live stream threads, start-up and restoration included. */
  private static long streamThreadCpuNanos(String run) {
    var threads = ManagementFactory.getThreadMXBean();
    long total = 0;
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().startsWith(run + "-") && t.getName().contains("-StreamThread-")) {
        total += Math.max(0, threads.getThreadCpuTime(t.getId()));
      }
    }
    return total;
  }

  /** Runs the processor over the backlog already on the run's flows topic. */
  private static Rates process(
      String bootstrap, String run, int threads, int flows, SimpleMeterRegistry registry)
      throws Exception {
    ProcessorConfig config =
        config(bootstrap, run, threads, Files.createTempDirectory("processor-bench"));
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap));
        StreamProcessorApp app = new StreamProcessorApp(config, registry)) {
      app.start();
      waitUntil(app::isReady, Duration.ofMinutes(2));
      long start = System.nanoTime();
      SteadyRate steady = SteadyRate.start(new FlowsReceived(registry), flows);
      waitUntil(
          () -> caughtUp(admin, config, flows) && learnedAll(registry, flows),
          Duration.ofMinutes(30));
      double endToEnd = flows / ((System.nanoTime() - start) / 1e9);
      return new Rates(endToEnd, steady.flowsPerSecond(), streamThreadCpuNanos(run) / 1e3 / flows);
    }
  }

  /**
   * The floor of any Kafka Streams processor: the same records, the same settings (exactly-once,
   * one thread, the processor's commit interval), through a topology that only counts them; the
   * steady rate between 10 % and 90 % of the backlog, flows/s.
   */
  private static double passThrough(String bootstrap, String run, int flows) throws Exception {
    ProcessorConfig config =
        config(bootstrap, run, 1, Files.createTempDirectory("pass-through-bench"));
    StreamsBuilder builder = new StreamsBuilder();
    AtomicLong seen = new AtomicLong();
    builder.stream(
            config.topics().flows().name(), Consumed.with(Serdes.ByteArray(), Serdes.ByteArray()))
        .process(
            () ->
                new Processor<byte[], byte[], Void, Void>() {
                  @Override
                  public void process(Record<byte[], byte[]> record) {
                    seen.incrementAndGet();
                  }
                });
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap));
        KafkaStreams streams = new KafkaStreams(builder.build(), config.streamsProperties())) {
      streams.start();
      waitUntil(() -> streams.state() == KafkaStreams.State.RUNNING, Duration.ofMinutes(2));
      SteadyRate steady = SteadyRate.start(seen::get, flows);
      waitUntil(() -> committedFlows(admin, config) >= flows, Duration.ofMinutes(30));
      if (seen.get() != flows) {
        throw new IllegalStateException(
            "pass-through saw " + seen.get() + " of " + flows + " flows");
      }
      return steady.flowsPerSecond();
    }
  }

  /** Sends the key/value pairs (keys as the ingest would) and waits for every ack; records/s. */
  private static double produce(String bootstrap, Topics topics, List<byte[]> records)
      throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      MissingTopics.create(
          admin,
          topics.all().stream().map(t -> t.newTopic(PARTITIONS, (short) 1)).toList(),
          Duration.ofMinutes(2),
          bootstrap);
    }
    long start = System.nanoTime();
    long sent = produce(bootstrap, topics, records, 0);
    return sent / ((System.nanoTime() - start) / 1e9);
  }

  /** Sends key/value pairs; the number of records sent. */
  private static long produce(String bootstrap, Topics topics, List<byte[]> records, int unused) {
    String topic = topics.flows().name();
    try (var producer =
        new KafkaProducer<>(
            producerProperties(bootstrap), new ByteArraySerializer(), new ByteArraySerializer())) {
      for (int i = 0; i < records.size(); i += 2) {
        producer.send(new ProducerRecord<>(topic, records.get(i), records.get(i + 1)));
      }
      producer.flush();
    }
    return records.size() / 2;
  }

  private static Properties producerProperties(String bootstrap) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.LINGER_MS_CONFIG, "20");
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(256 * 1024));
    p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    p.putAll(PATIENT);
    // The raw rate: no idempotence (on this starved machine an idempotent producer re-sent early
    // batches that the broker then refused as out of order, stalling the run), leader ack only.
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
    p.put(ProducerConfig.ACKS_CONFIG, "1");
    return p;
  }

  /** Key, value, key, value...: flows over 400 stable client/server pairs on two ports. */
  private static List<byte[]> stablePeerFlows(int flows) {
    List<FlowEndpoint> clients = new ArrayList<>();
    List<FlowEndpoint> servers = new ArrayList<>();
    for (int c = 0; c < CLIENTS; c++) {
      clients.add(endpoint("client-" + c, c, false));
    }
    for (int s = 0; s < SERVERS; s++) {
      servers.add(endpoint("server-" + s, 1000 + s, true));
    }
    List<byte[]> out = new ArrayList<>(flows * 2);
    var serializer = topicsOf("x").flows().valueSerde().serializer();
    for (int i = 0; i < flows; i++) {
      FlowEndpoint src = clients.get(i % CLIENTS);
      FlowEndpoint dst = servers.get((i / CLIENTS) % SERVERS);
      FlowRecord flow =
          new FlowRecord(
              START.plusMillis(i),
              Provider.calico,
              Protocol.TCP,
              8080 + (i % 2),
              src,
              dst,
              Verdict.FORWARDED,
              null,
              1,
              i % 3 == 0 ? Reporter.DESTINATION : Reporter.SOURCE);
      out.add(flow.partitionKey().getBytes(StandardCharsets.UTF_8));
      out.add(serializer.serialize("x", flow));
    }
    return out;
  }

  /** One flow per pair client-i → server-i: every pair adds an Egress and an Ingress target. */
  private static List<byte[]> distinctPairFlows(int pairs, int round) {
    List<byte[]> out = new ArrayList<>(pairs * 2);
    var serializer = topicsOf("x").flows().valueSerde().serializer();
    for (int i = 0; i < pairs; i++) {
      FlowRecord flow =
          new FlowRecord(
              START.plusSeconds(round * 3600L).plusMillis(i),
              Provider.calico,
              Protocol.TCP,
              8080,
              endpoint("client-" + i, i, false),
              endpoint("server-" + i, i, true),
              Verdict.FORWARDED,
              null,
              1,
              Reporter.SOURCE);
      out.add(flow.partitionKey().getBytes(StandardCharsets.UTF_8));
      out.add(serializer.serialize("x", flow));
    }
    return out;
  }

  /**
   * A Deployment pod with labels, namespace labels and (servers) a named port, as ingest resolves
   * it.
   */
  private static FlowEndpoint endpoint(String name, int n, boolean server) {
    Map<String, String> selector = Map.of("app", name);
    Map<String, String> podLabels =
        Map.of(
            "app",
            name,
            "app.kubernetes.io/name",
            name,
            "app.kubernetes.io/part-of",
            "shop",
            "version",
            "v1",
            "pod-template-hash",
            "5d8f9c7b6");
    return FlowEndpoint.builder()
        .namespace("bench")
        .workload(WorkloadKind.Deployment, name)
        .workloadSelector(new LabelSelectorBuilder().withMatchLabels(selector).build())
        .podLabels(podLabels)
        .namespaceLabels(Map.of("kubernetes.io/metadata.name", "bench", "team", "payments"))
        .podName(name + "-5d8f9c7b6-abcde")
        .ip("10." + (server ? 2 : 1) + "." + (n / 250) + "." + (n % 250))
        .serviceAccount(name)
        .identity("spiffe://cluster.local/ns/bench/sa/" + name)
        .namedPorts(server ? List.of(new NamedPort("http", 8080, Protocol.TCP)) : List.of())
        .build();
  }

  /**
   * Every flow reached its two targets (Egress and Ingress): observations may still wait in the
   * combiner after the flows offsets are committed. Versions without the counter skip this check.
   */
  /**
   * Every observation learned, or counted as not learned (a target's new peer beyond the most it
   * learns).
   */
  private static boolean learnedAll(SimpleMeterRegistry registry, long flows) {
    Counter learned = registry.find("network_enforcer.processor.observations.learned").counter();
    double skipped =
        registry.find("network_enforcer.processor.learning.skipped").counters().stream()
            .mapToDouble(Counter::count)
            .sum();
    return learned == null || learned.count() + skipped >= 2.0 * flows;
  }

  /** The group has committed the end of the flows topic and has drained the repartition topic. */
  private static boolean caughtUp(Admin admin, ProcessorConfig config, long flows)
      throws Exception {
    Map<TopicPartition, OffsetAndMetadata> committed =
        admin
            .listConsumerGroupOffsets(config.applicationId())
            .partitionsToOffsetAndMetadata()
            .get();
    String flowsTopic = config.topics().flows().name();
    String repartition = NetworkEnforcerTopology.observationsRepartitionTopic(config);
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
    for (int p = 0; p < PARTITIONS; p++) {
      latest.put(new TopicPartition(flowsTopic, p), OffsetSpec.latest());
      latest.put(new TopicPartition(repartition, p), OffsetSpec.latest());
    }
    Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends =
        admin.listOffsets(latest).all().get();
    long flowsCommitted = 0;
    for (var e : ends.entrySet()) {
      OffsetAndMetadata c = committed.get(e.getKey());
      long end = e.getValue().offset();
      if (e.getKey().topic().equals(flowsTopic)) {
        if (c == null || c.offset() < end) {
          return false;
        }
        flowsCommitted += c.offset();
      } else if (end > 0 && (c == null || c.offset() < end - 1)) {
        // Under exactly-once a transaction marker follows the processor's last repartition record.
        return false;
      }
    }
    return flowsCommitted >= flows;
  }

  private static void waitUntil(Callable<Boolean> check, Duration timeout) {
    await("benchmark")
        .atMost(timeout)
        .pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(50))
        .until(check);
  }
}
