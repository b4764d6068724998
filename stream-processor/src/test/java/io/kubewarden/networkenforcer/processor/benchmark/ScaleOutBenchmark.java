package io.kubewarden.networkenforcer.processor.benchmark;

import com.sun.management.OperatingSystemMXBean;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.flow.ExternalEndpoint;
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
import io.kubewarden.networkenforcer.processor.metrics.ProcessorMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
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
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.StreamsConfig;

/**
 * Issue #36: does a second processor instance add throughput? One backlog of a realistic mix
 * (below) is written twice, to the flows topic of two runs on one broker (this JVM); then one
 * processor process (its own JVM, one stream thread, exactly-once, as the chart runs it) learns the
 * first copy, and two processes of the same application learn the second, splitting its partitions.
 * Steady rates (10 % to 90 % of the backlog, from the instances' own {@code flows.received},
 * reported by each child every 20 ms) and end to end (start of the processes until the group has
 * committed the backlog and drained its repartition topic); beside them the CPU per flow of the
 * processes (start-up included), the figure this shared 2-core machine's load does not inflate. The
 * raw producer's rate writing the first copy (lz4, 256 KiB batches, leader acks, as {@code
 * ProcessorBenchmark}) gives {@code processor/producer ratio (realistic, steady)} and {@code
 * (realistic, end to end)} of the one instance.
 *
 * <p>The mix: 2,000 Deployments in 200 namespaces, 10,000 client/server pairs drawn Zipf-like (pair
 * rank r with weight 1/r), 5 % of the flows a new pair of known workloads, 3 % denies, 5 % calls to
 * an outside address, ports 8080/8443/5432, and a tenth of the Deployments rolled out to a new
 * ReplicaSet every simulated minute (one flow per millisecond).
 *
 * <p>Arguments: {@code [flows]} (default 1,000,000). {@code instance <bootstrap> <run> <stateDir>}
 * is the child process.
 */
public final class ScaleOutBenchmark {
  /** The chart's default. Two instances take three each. */
  private static final int PARTITIONS = 6;

  private static final Instant START = Instant.parse("2026-08-03T15:40:00Z");
  private static final Map<String, String> PATIENT =
      Map.of("request.timeout.ms", "300000", "delivery.timeout.ms", "900000");

  private ScaleOutBenchmark() {}

  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("instance")) {
      Instance.run(args[1], args[2], Path.of(args[3]));
      return;
    }
    int flows = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
    // A real broker's 3 s before a new group's first assignment (the embedded broker's default is
    // 0):
    // instances started together each get their share at once, instead of the first taking every
    // task and handing half over in a second rebalance.
    try (EmbeddedKafkaBroker broker =
        EmbeddedKafkaBroker.builder()
            .config("group.initial.rebalance.delay.ms", "3000")
            .build()
            .start()) {
      String bootstrap = broker.bootstrapServers();
      List<byte[]> records = RealisticMix.records(flows, new Random(36));
      long bytes = 0;
      for (int i = 1; i < records.size(); i += 2) {
        bytes += records.get(i).length;
      }
      int warmup = Math.min(flows / 4, 200_000);
      // The raw producer's rate on the realistic mix: the second copy (the first warmed the broker
      // and the producer path), as ProcessorBenchmark measures its own on stable pairs.
      double producerRate = 0;
      for (String run : List.of("warmup", "one", "two")) {
        long nanos =
            produce(
                bootstrap, run, run.equals("warmup") ? records.subList(0, 2 * warmup) : records);
        if (run.equals("one")) {
          producerRate = flows / (nanos / 1e9);
        }
      }
      records = null;
      line(
          "scale-out flow record bytes (average, realistic mix)",
          String.format("%.0f", (double) bytes / flows));
      // A warm-up of the broker's side (page cache, log segments); each child JVM warms its own
      // JIT.
      runInstances(bootstrap, "warmup", 1, warmup);
      Result one = runInstances(bootstrap, "one", 1, flows);
      Result two = runInstances(bootstrap, "two", 2, flows);
      line("producer flows/s (realistic mix)", String.format("%.0f", producerRate));
      line(
          "processor/producer ratio (realistic, steady)",
          String.format("%.2f", one.steady() / producerRate));
      line(
          "processor/producer ratio (realistic, end to end)",
          String.format("%.2f", one.endToEnd() / producerRate));
      line("processor flows/s (1 instance, steady)", String.format("%.0f", one.steady()));
      line("processor flows/s (2 instances, steady)", String.format("%.0f", two.steady()));
      line(
          "processor 2 instances/1 instance ratio",
          String.format("%.2f", two.steady() / one.steady()));
      line("processor flows/s end to end (1 instance)", String.format("%.0f", one.endToEnd()));
      line("processor flows/s end to end (2 instances)", String.format("%.0f", two.endToEnd()));
      line(
          "processor 2 instances/1 instance ratio (end to end)",
          String.format("%.2f", two.endToEnd() / one.endToEnd()));
      line(
          "processor CPU per flow (microseconds, all instance processes, 1 instance)",
          String.format("%.1f", one.cpuMicrosPerFlow()));
      line(
          "processor CPU per flow (microseconds, all instance processes, 2 instances)",
          String.format("%.1f", two.cpuMicrosPerFlow()));
      line(
          "processor peak heap used per instance (MiB, 1 instance / 2 instances)",
          String.format("%.0f / %.0f", one.peakHeapMib(), two.peakHeapMib()));
      // Where one instance's work goes: the observations the flows make, the records the combiner
      // lets through to the targets, and renderings.
      double perMillion = 1e6 / flows;
      line(
          "processor observations / combined observations sent / proposals / evidence flushes per"
              + " million flows (realistic, 1 instance)",
          String.format(
              "%.0f / %.0f / %.0f / %.0f",
              one.observations() * perMillion,
              one.combined() * perMillion,
              one.proposals() * perMillion,
              one.flushes() * perMillion));
    }
    System.exit(0);
  }

  /**
   * Proposals and evidence flushes are renderings; observations are those the flows make (one per
   * target of a flow), combined those the combiner sends on to the targets (all instances' sums).
   */
  private record Result(
      double steady,
      double endToEnd,
      double cpuMicrosPerFlow,
      double peakHeapMib,
      long proposals,
      long flushes,
      long observations,
      long combined) {}

  /**
   * Starts {@code n} instance processes on the run's backlog and waits until it is learned and
   * committed.
   */
  private static Result runInstances(String bootstrap, String run, int n, int flows)
      throws Exception {
    List<Child> children = new ArrayList<>();
    long start = System.nanoTime();
    for (int i = 0; i < n; i++) {
      children.add(
          Child.start(bootstrap, run, Files.createTempDirectory("scale-out-" + run + "-" + i)));
    }
    long tenPercent = 0;
    long ninetyPercent = 0;
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      long deadline = System.nanoTime() + Duration.ofMinutes(30).toNanos();
      while (true) {
        long received = children.stream().mapToLong(c -> c.received).sum();
        long now = System.nanoTime();
        if (tenPercent == 0 && received >= 0.1 * flows) {
          tenPercent = now;
        }
        if (ninetyPercent == 0 && received >= 0.9 * flows) {
          ninetyPercent = now;
        }
        if (ninetyPercent != 0 && caughtUp(admin, run, flows)) {
          break;
        }
        for (Child c : children) {
          if (!c.process.isAlive()) {
            throw new IllegalStateException(
                "instance of " + run + " exited with " + c.process.exitValue());
          }
        }
        if (now > deadline) {
          throw new IllegalStateException(
              run + ": backlog not learned in 30 minutes, received " + received);
        }
        Thread.sleep(10);
      }
    }
    double endToEnd = flows / ((System.nanoTime() - start) / 1e9);
    long cpu = 0;
    double heap = 0;
    long proposals = 0;
    long flushes = 0;
    long observations = 0;
    long combined = 0;
    for (Child c : children) {
      c.stop();
      cpu += c.cpuNanos;
      heap = Math.max(heap, c.peakHeapMib);
      proposals += c.proposals;
      flushes += c.flushes;
      observations += c.observations;
      combined += c.combined;
    }
    return new Result(
        0.8 * flows / ((ninetyPercent - tenPercent) / 1e9),
        endToEnd,
        cpu / 1e3 / flows,
        heap,
        proposals,
        flushes,
        observations,
        combined);
  }

  /** The group has committed the end of the flows topic and the processor's other input topics. */
  private static boolean caughtUp(Admin admin, String run, long flows) throws Exception {
    Map<TopicPartition, OffsetAndMetadata> committed =
        admin.listConsumerGroupOffsets(run).partitionsToOffsetAndMetadata().get();
    if (committed.isEmpty()) {
      return false;
    }
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
    committed.keySet().forEach(tp -> latest.put(tp, OffsetSpec.latest()));
    var ends = admin.listOffsets(latest).all().get();
    long flowsCommitted = 0;
    String flowsTopic = topics(run).flows().name();
    for (var e : ends.entrySet()) {
      long end = e.getValue().offset();
      long at = committed.get(e.getKey()).offset();
      if (e.getKey().topic().equals(flowsTopic)) {
        if (at < end) {
          return false;
        }
        flowsCommitted += at;
      } else if (end > 0 && at < end - 1) {
        // Exactly-once: a transaction marker follows the last record of an internal topic.
        return false;
      }
    }
    return flowsCommitted >= flows;
  }

  private static Topics topics(String run) {
    return new Topics(run + ".");
  }

  static ProcessorConfig config(String bootstrap, String run, Path stateDir) {
    KafkaSettings kafka = new KafkaSettings(bootstrap, run + ".", PARTITIONS, (short) 1, PATIENT);
    // BENCH_SCALE_PROPOSAL_INTERVAL and BENCH_SCALE_COMBINE_INTERVAL (seconds): the processor's
    // proposal and combine intervals, for comparing.
    String interval = System.getenv("BENCH_SCALE_PROPOSAL_INTERVAL");
    String combine = System.getenv("BENCH_SCALE_COMBINE_INTERVAL");
    return ProcessorConfig.builder(kafka)
        .combineInterval(
            combine == null || combine.isBlank()
                ? ProcessorConfig.DEFAULT_COMBINE_INTERVAL
                : Duration.ofMillis((long) (1000 * Double.parseDouble(combine))))
        .applicationId(run)
        .provider(Provider.calico)
        .processingGuarantee(StreamsConfig.EXACTLY_ONCE_V2)
        .streamThreads(1)
        .stateDir(stateDir)
        .proposalInterval(
            interval == null || interval.isBlank()
                ? ProcessorConfig.DEFAULT_PROPOSAL_INTERVAL
                : Duration.ofSeconds(Long.parseLong(interval)))
        .build();
  }

  /** Writes the records to the run's flows topic; the nanoseconds from first send to last ack. */
  private static long produce(String bootstrap, String run, List<byte[]> records) throws Exception {
    Topics topics = topics(run);
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      MissingTopics.create(
          admin,
          topics.all().stream().map(t -> t.newTopic(PARTITIONS, (short) 1)).toList(),
          Duration.ofMinutes(2),
          bootstrap);
    }
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.LINGER_MS_CONFIG, "20");
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(256 * 1024));
    p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    p.putAll(PATIENT);
    // As ProcessorBenchmark: on this starved machine an idempotent producer re-sent early batches
    // the
    // broker then refused as out of order; the backlog only has to arrive, leader ack is enough.
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
    p.put(ProducerConfig.ACKS_CONFIG, "1");
    try (var producer =
        new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
      long start = System.nanoTime();
      for (int i = 0; i < records.size(); i += 2) {
        producer.send(
            new ProducerRecord<>(topics.flows().name(), records.get(i), records.get(i + 1)));
      }
      producer.flush();
      return System.nanoTime() - start;
    }
  }

  private static void line(String name, String value) {
    System.out.println(name + ": " + value);
    System.out.flush();
  }

  /** One instance process, as the parent sees it: what it received so far, then its CPU time. */
  private static final class Child {
    final Process process;
    volatile long received;
    volatile long cpuNanos;
    volatile double peakHeapMib;
    volatile long proposals;
    volatile long flushes;
    volatile long observations;
    volatile long combined;
    private final Thread reader;

    private Child(Process process) {
      this.process = process;
      this.reader = new Thread(this::read, "scale-out-child-reader");
      reader.setDaemon(true);
      reader.start();
    }

    static Child start(String bootstrap, String run, Path stateDir) throws IOException {
      List<String> cmd =
          new ArrayList<>(
              List.of(
                  Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                  "-Xmx1g",
                  "-cp",
                  System.getProperty("java.class.path")));
      String jfr = System.getenv("BENCH_SCALE_JFR_DIR");
      if (jfr != null && !jfr.isBlank()) {
        cmd.add(
            "-XX:StartFlightRecording=filename="
                + Path.of(jfr, run + "-" + stateDir.getFileName() + ".jfr")
                + ",settings=profile");
      }
      cmd.addAll(
          List.of(
              ScaleOutBenchmark.class.getName(), "instance", bootstrap, run, stateDir.toString()));
      return new Child(
          new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start());
    }

    private void read() {
      try (BufferedReader in =
          new BufferedReader(
              new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = in.readLine()) != null) {
          String[] f = line.split(" ");
          switch (f[0]) {
            case "received" -> received = Long.parseLong(f[1]);
            case "counts" -> {
              proposals = Long.parseLong(f[1]);
              flushes = Long.parseLong(f[2]);
              observations = Long.parseLong(f[3]);
              combined = Long.parseLong(f[4]);
            }
            case "cpu" -> {
              peakHeapMib = Double.parseDouble(f[2]);
              cpuNanos = Long.parseLong(f[1]);
            }
            default -> {}
          }
        }
      } catch (IOException e) {
        // the process is gone; stop() reports what it got
      }
    }

    /** Closing its stdin stops it; it reports its CPU time on the way out. */
    void stop() throws Exception {
      process.getOutputStream().close();
      if (!process.waitFor(2, TimeUnit.MINUTES)) {
        process.destroyForcibly();
      }
      reader.join(Duration.ofSeconds(10).toMillis());
    }
  }

  /**
   * The child: one processor until its stdin closes, printing its {@code flows.received} every 20
   * ms.
   */
  private static final class Instance {
    static void run(String bootstrap, String run, Path stateDir) throws Exception {
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      Thread reporter;
      long peakHeap;
      try (StreamProcessorApp app =
          new StreamProcessorApp(config(bootstrap, run, stateDir), registry)) {
        app.start();
        var memory = ManagementFactory.getMemoryMXBean();
        long[] peak = {0};
        reporter =
            new Thread(
                () -> {
                  FlowsReceived received = new FlowsReceived(registry);
                  while (!Thread.currentThread().isInterrupted()) {
                    System.out.println("received " + received.getAsLong());
                    System.out.flush();
                    peak[0] = Math.max(peak[0], memory.getHeapMemoryUsage().getUsed());
                    try {
                      Thread.sleep(20);
                    } catch (InterruptedException e) {
                      return;
                    }
                  }
                },
                "received-reporter");
        reporter.setDaemon(true);
        reporter.start();
        // Until the parent closes our stdin.
        while (System.in.read() >= 0) {
          // nothing to read; EOF ends the run
        }
        reporter.interrupt();
        reporter.join();
        peakHeap = peak[0];
      }
      var os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
      ProcessorMetrics metrics = new ProcessorMetrics(registry);
      System.out.println(
          "counts "
              + (long) metrics.count("proposals.emitted")
              + " "
              + (long) metrics.count("evidence.flushed")
              + " "
              + (long) metrics.count("observations")
              + " "
              + (long) metrics.count("observations.combined"));
      System.out.println("cpu " + os.getProcessCpuTime() + " " + peakHeap / (1024.0 * 1024.0));
      System.out.flush();
      System.exit(0);
    }
  }

  /**
   * The realistic mix of issue #36 (a smaller cousin of its 10,000 pairs in 200 namespaces): 2,000
   * Deployments, 10,000 ranked pairs, 5 % of the flows a new pair of known workloads, and each
   * simulated minute a tenth of the Deployments rolled out to a new ReplicaSet (new pods: name,
   * {@code pod-template-hash}, address). New workload keys, and the state they leave behind, are
   * {@link ChurnMix}'s part.
   */
  static final class RealisticMix {
    private static final int NAMESPACES = 200;
    private static final int WORKLOADS = 2_000;
    private static final int PAIRS = 10_000;
    private static final int FLOWS_PER_MINUTE = 60_000;
    private static final int ROLLED_OUT_PER_MINUTE = WORKLOADS / 10;

    static List<byte[]> records(int flows, Random random) {
      FlowEndpoint[] workloads = new FlowEndpoint[WORKLOADS];
      int[] replicaSet = new int[WORKLOADS];
      for (int w = 0; w < WORKLOADS; w++) {
        workloads[w] = endpoint(w, 0);
      }
      int[][] pairs = new int[PAIRS][2];
      double[] cumulative = new double[PAIRS];
      double total = 0;
      for (int r = 0; r < PAIRS; r++) {
        pairs[r][0] = random.nextInt(WORKLOADS);
        pairs[r][1] = other(pairs[r][0], random);
        total += 1.0 / (r + 1);
        cumulative[r] = total;
      }
      int[] ports = {8080, 8443, 5432};
      var serializer = topics("x").flows().valueSerde().serializer();
      List<byte[]> out = new ArrayList<>(flows * 2);
      for (int i = 0; i < flows; i++) {
        if (i > 0 && i % FLOWS_PER_MINUTE == 0) {
          for (int k = 0; k < ROLLED_OUT_PER_MINUTE; k++) {
            int w = random.nextInt(WORKLOADS);
            workloads[w] = endpoint(w, ++replicaSet[w]);
          }
        }
        double pick = random.nextDouble();
        FlowEndpoint src;
        FlowEndpoint dst;
        if (pick < 0.05) {
          // A new pair: two known workloads, almost never one of the 10,000 ranked (4 million
          // ordered pairs), so one new peer each for the client's egress and the server's ingress.
          int client = random.nextInt(WORKLOADS);
          src = workloads[client];
          dst = workloads[other(client, random)];
        } else if (pick < 0.10) {
          src = workloads[random.nextInt(WORKLOADS)];
          dst =
              FlowEndpoint.outsideCluster(
                  "203.0.113." + random.nextInt(250),
                  new ExternalEndpoint(List.of("api" + random.nextInt(20) + ".example.com"), null));
        } else {
          int r = rank(cumulative, random.nextDouble() * total);
          src = workloads[pairs[r][0]];
          dst = workloads[pairs[r][1]];
        }
        Verdict verdict = random.nextDouble() < 0.03 ? Verdict.DENIED : Verdict.FORWARDED;
        FlowRecord flow =
            new FlowRecord(
                START.plusMillis(i),
                Provider.calico,
                Protocol.TCP,
                ports[random.nextInt(ports.length)],
                src,
                dst,
                verdict,
                null,
                1 + random.nextInt(3),
                i % 3 == 0 ? Reporter.DESTINATION : Reporter.SOURCE);
        out.add(flow.partitionKey().getBytes(StandardCharsets.UTF_8));
        out.add(serializer.serialize("x", flow));
      }
      return out;
    }

    private static int other(int workload, Random random) {
      return (workload + 1 + random.nextInt(WORKLOADS - 1)) % WORKLOADS;
    }

    private static int rank(double[] cumulative, double x) {
      int i = Arrays.binarySearch(cumulative, x);
      return Math.min(cumulative.length - 1, i >= 0 ? i : -i - 1);
    }

    /** Workload {@code w}'s pods of its ReplicaSet number {@code replicaSet}. */
    private static FlowEndpoint endpoint(int w, int replicaSet) {
      String namespace = "ns-" + (w % NAMESPACES);
      String name = "app-" + w;
      String hash = String.format("%09x", (long) w * 7919 + replicaSet);
      int n = replicaSet * WORKLOADS + w;
      return FlowEndpoint.builder()
          .namespace(namespace)
          .workload(WorkloadKind.Deployment, name)
          .workloadSelector(new LabelSelectorBuilder().withMatchLabels(Map.of("app", name)).build())
          .podLabels(
              Map.of(
                  "app", name, "app.kubernetes.io/part-of", namespace, "pod-template-hash", hash))
          .namespaceLabels(Map.of("kubernetes.io/metadata.name", namespace))
          .podName(name + "-" + hash + "-abcde")
          .ip("10." + (n / 62500) % 250 + "." + (n / 250) % 250 + "." + n % 250)
          .serviceAccount(name)
          .identity("spiffe://cluster.local/ns/" + namespace + "/sa/" + name)
          .namedPorts(w % 4 == 0 ? List.of(new NamedPort("http", 8080, Protocol.TCP)) : List.of())
          .build();
    }
  }
}
