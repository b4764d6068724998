package io.kubewarden.networkenforcer.cli.replay;

import com.sun.management.OperatingSystemMXBean;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.kubewarden.networkenforcer.cli.CliRun;
import io.kubewarden.networkenforcer.cli.services.TopicSetup;
import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.common.flow.Verdict;
import io.kubewarden.networkenforcer.common.topics.Topic;
import io.kubewarden.networkenforcer.common.workload.WorkloadKind;
import io.kubewarden.networkenforcer.embedded.EmbeddedKafkaBroker;
import io.kubewarden.networkenforcer.processor.app.StreamProcessorApp;
import io.kubewarden.networkenforcer.processor.config.ProcessorConfig;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Prints how fast {@code replay} and {@code simulate} go through a window of the flows topic, and
 * how fast the processor service goes through the same flows (not a test: figures depend on the
 * machine). One embedded broker; N flows between 200 workloads in 10 namespaces (each talks to 5
 * peers on 3 ports), timestamps spread over the last hour. Replay and the processor run by turns,
 * {@value #ROUNDS} rounds each in this JVM (the first of each warms the compiler as much as the
 * other); the figures are the medians. Prints {@code name: value} lines. Run: {@code java -cp <cli
 * test classpath> io.kubewarden.networkenforcer.cli.replay.HistoryBenchmark [N]}.
 */
public final class HistoryBenchmark {
  private static final int ROUNDS = 3;
  private static final String PREFIX = "bench.";

  private HistoryBenchmark() {}

  public static void main(String[] args) throws Exception {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
    try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.startDefault()) {
      KafkaSettings kafka =
          new KafkaSettings(broker.bootstrapServers(), PREFIX, 6, (short) 1, Map.of());
      TopicSetup.createMissing(kafka, Duration.ofDays(7).toMillis());
      Instant start = Instant.now().minus(Duration.ofHours(1));
      long t0 = System.nanoTime();
      publish(kafka, n, start);
      System.out.printf(
          Locale.ROOT, "published %d flows in %.1f s%n", n, (System.nanoTime() - t0) / 1e9);

      double[] replay = new double[ROUNDS];
      double[] replayCpu = new double[ROUNDS];
      double[] steady = new double[ROUNDS];
      double[] endToEnd = new double[ROUNDS];
      double[] processorCpu = new double[ROUNDS];
      double[] ratios = new double[ROUNDS];
      for (int r = 0; r < ROUNDS; r++) {
        long cpu = cpuNanos();
        replay[r] = replay(broker.bootstrapServers(), n);
        replayCpu[r] = (cpuNanos() - cpu) / 1e3 / n;
        cpu = cpuNanos();
        double[] processor = processor(kafka, n, "bench-processor-" + r);
        processorCpu[r] = (cpuNanos() - cpu) / 1e3 / n;
        steady[r] = processor[0];
        endToEnd[r] = processor[1];
        ratios[r] = replay[r] / steady[r];
        System.out.printf(
            Locale.ROOT,
            "round %d: replay %.0f flows/s (%.1f us CPU per flow), processor %.0f flows/s "
                + "steady, %.0f end to end (%.1f us CPU per flow)%n",
            r,
            replay[r],
            replayCpu[r],
            steady[r],
            endToEnd[r],
            processorCpu[r]);
      }
      line("replay flows/s", median(replay));
      line("processor flows/s (same flows, exactly-once, 1 thread, steady)", median(steady));
      line("processor flows/s (same flows, end to end)", median(endToEnd));
      // The whole replay command (window read, topology built, proposals rendered) against the
      // processor's steady rate, without its start and last waits: the harder comparison. Medians
      // of
      // the rounds' own ratios, each measured minutes apart.
      System.out.printf(Locale.ROOT, "replay/processor ratio: %.2f%n", median(ratios));
      System.out.printf(
          Locale.ROOT,
          "replay/processor ratio, lowest round: %.2f%n",
          Arrays.stream(ratios).min().orElseThrow());
      System.out.printf(
          Locale.ROOT,
          "replay/processor ratio, highest round: %.2f%n",
          Arrays.stream(ratios).max().orElseThrow());
      System.out.printf(
          Locale.ROOT,
          "replay/processor ratio (end to end): %.2f%n",
          median(replay) / median(endToEnd));
      // CPU time of the whole process (the broker included) per flow: far less sensitive to other
      // processes on a shared machine than the wall-clock rates.
      System.out.printf(
          Locale.ROOT,
          "replay CPU per flow (microseconds, whole process): %.1f%n",
          median(replayCpu));
      System.out.printf(
          Locale.ROOT,
          "processor CPU per flow (microseconds, whole process): %.1f%n",
          median(processorCpu));
      System.out.printf(
          Locale.ROOT,
          "replay/processor ratio (CPU time): %.2f%n",
          median(processorCpu) / median(replayCpu));

      Path out = Files.createTempDirectory("replay-bench");
      Path policy =
          Files.writeString(
              out.resolve("deny.yaml"),
              "kind: NetworkPolicy\nmetadata: {name: deny, "
                  + "namespace: ns-0}\nspec:\n  podSelector: {}\n  policyTypes: [Ingress, Egress]\n");
      t0 = System.nanoTime();
      CliRun simulate =
          CliRun.run(
              "simulate",
              "--policy",
              policy.toString(),
              "--from",
              "2h",
              "--kafka-bootstrap-servers",
              broker.bootstrapServers(),
              "--kafka-topic-prefix",
              PREFIX,
              "-o",
              "json");
      double simulateSeconds = (System.nanoTime() - t0) / 1e9;
      System.out.printf(Locale.ROOT, "simulate exit code %d%n", simulate.exitCode());
      line("simulate flows/s", n / simulateSeconds);
    }
    // The broker's and the clients' non-daemon threads must not keep the JVM.
    System.exit(0);
  }

  /** One {@code replay} of the whole window, as the command runs; flows/s over its wall time. */
  private static double replay(String bootstrap, int n) throws Exception {
    Path out = Files.createTempDirectory("replay-bench");
    long t0 = System.nanoTime();
    CliRun run =
        CliRun.run(
            "replay",
            "--from",
            "2h",
            "--provider",
            "cilium",
            "--kafka-bootstrap-servers",
            bootstrap,
            "--kafka-topic-prefix",
            PREFIX,
            "--output-dir",
            out.toString());
    double seconds = (System.nanoTime() - t0) / 1e9;
    if (run.exitCode() != 0) {
      throw new IllegalStateException("replay failed: " + run.err());
    }
    System.out.println(run.out().lines().findFirst().orElse(""));
    run.err().lines().filter(l -> l.contains("done in")).forEach(System.out::println);
    return n / seconds;
  }

  /**
   * The processor service (its defaults: exactly-once, one stream thread, RocksDB stores) over the
   * same flows, under a new application id: {steady flows/s between 10 % and 90 % of the flows, end
   * to end from RUNNING until every flow is committed and learned}.
   */
  private static double[] processor(KafkaSettings kafka, int n, String applicationId)
      throws Exception {
    ProcessorConfig config =
        ProcessorConfig.builder(kafka)
            .applicationId(applicationId)
            .provider(Provider.cilium)
            .stateDir(Files.createTempDirectory("processor-bench"))
            .build()
            .validate();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (StreamProcessorApp app = new StreamProcessorApp(config, registry)) {
      app.start();
      await(app::isReady, "processor ready");
      long started = System.nanoTime();
      long tenPercent = 0;
      long ninetyPercent = 0;
      // Looked up once: a registry search walks every meter, and this loop polls every 10 ms.
      Counter received = null;
      while (ninetyPercent == 0) {
        if (received == null) {
          received = registry.find("network_enforcer.processor.flows.received").counter();
        }
        long read = received == null ? 0 : (long) received.count();
        long now = System.nanoTime();
        if (tenPercent == 0 && read >= 0.1 * n) {
          tenPercent = now;
        }
        if (read >= 0.9 * n) {
          ninetyPercent = now;
        }
        check(started, "processor reading");
        Thread.sleep(10);
      }
      // Every flow committed and learned; not the full catch-up, which also waits for the evidence
      // flush
      // (30 s by default), a timer rather than work.
      await(
          () ->
              app.progress().map(p -> p.flowsConsumed() >= n).orElse(false)
                  && learnedAll(registry, n),
          "processor learned every flow");
      double endToEnd = n / ((System.nanoTime() - started) / 1e9);
      return new double[] {0.8 * n / ((ninetyPercent - tenPercent) / 1e9), endToEnd};
    }
  }

  /** Both observations of every flow (its source's Egress, its destination's Ingress) learned. */
  private static boolean learnedAll(SimpleMeterRegistry registry, long flows) {
    Counter learned = registry.find("network_enforcer.processor.observations.learned").counter();
    double skipped =
        registry.find("network_enforcer.processor.learning.skipped").counters().stream()
            .mapToDouble(Counter::count)
            .sum();
    return learned != null && learned.count() + skipped >= 2.0 * flows;
  }

  private static void await(BooleanSupplier condition, String what) throws InterruptedException {
    long started = System.nanoTime();
    while (!condition.getAsBoolean()) {
      check(started, what);
      Thread.sleep(10);
    }
  }

  private static void check(long startedNanos, String what) {
    if (System.nanoTime() - startedNanos > Duration.ofMinutes(10).toNanos()) {
      throw new IllegalStateException(what + ": not within 10 minutes");
    }
  }

  private static long cpuNanos() {
    return ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }

  private static void line(String name, double value) {
    System.out.printf(Locale.ROOT, "%s: %.0f%n", name, value);
  }

  private static void publish(KafkaSettings kafka, int n, Instant start) {
    Topic<String, FlowRecord> topic = kafka.topics().flows();
    Properties p = kafka.clientConfig();
    p.put(ProducerConfig.LINGER_MS_CONFIG, "20");
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(512 * 1024));
    p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    // Patient, one batch in flight per partition and no idempotence: on a starved machine a request
    // that timed out was retried after later batches and refused as out of order, failing the run.
    p.put(ProducerConfig.ACKS_CONFIG, "1");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
    p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
    p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "300000");
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "900000");
    FlowEndpoint[] workloads = new FlowEndpoint[200];
    for (int i = 0; i < workloads.length; i++) {
      String ns = "ns-" + (i % 10);
      Map<String, String> labels = Map.of("app", "app-" + i);
      workloads[i] =
          FlowEndpoint.builder()
              .namespace(ns)
              .workload(WorkloadKind.Deployment, "app-" + i)
              .workloadSelector(new LabelSelectorBuilder().withMatchLabels(labels).build())
              .podLabels(labels)
              .namespaceLabels(Map.of("kubernetes.io/metadata.name", ns))
              .podName("app-" + i + "-5d8f7-abcde")
              .ip("10.244." + (i / 250) + "." + (i % 250))
              .serviceAccount("app-" + i)
              .build();
    }
    long spacingMs = Duration.ofHours(1).toMillis() / n;
    try (KafkaProducer<String, FlowRecord> producer =
        new KafkaProducer<>(p, topic.keySerde().serializer(), topic.valueSerde().serializer())) {
      AtomicLong failed = new AtomicLong();
      for (int i = 0; i < n; i++) {
        int src = i % workloads.length;
        int dst = (src + 1 + (i / workloads.length) % 5) % workloads.length;
        Instant time = start.plusMillis(i * spacingMs);
        FlowRecord flow =
            new FlowRecord(
                time,
                Provider.cilium,
                Protocol.TCP,
                8080 + (i % 3),
                workloads[src],
                workloads[dst],
                Verdict.FORWARDED,
                null,
                1,
                Reporter.SOURCE);
        producer.send(
            new ProducerRecord<>(
                topic.name(), null, time.toEpochMilli(), flow.partitionKey(), flow),
            (meta, error) -> {
              if (error != null) {
                failed.incrementAndGet();
              }
            });
      }
      producer.flush();
      if (failed.get() > 0) {
        throw new IllegalStateException(failed.get() + " flows could not be published");
      }
    }
  }
}
