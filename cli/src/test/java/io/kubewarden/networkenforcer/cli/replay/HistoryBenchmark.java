package io.kubewarden.networkenforcer.cli.replay;

import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.kubewarden.networkenforcer.cli.CliRun;
import io.kubewarden.networkenforcer.cli.services.TopicSetup;
import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.embedded.EmbeddedKafkaBroker;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.common.flow.Verdict;
import io.kubewarden.networkenforcer.common.topics.Topic;
import io.kubewarden.networkenforcer.common.workload.WorkloadKind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Prints how fast {@code replay} and {@code simulate} go through a window of the flows topic (not a
 * test: figures depend on the machine). One embedded broker; N flows between 200 workloads in 10
 * namespaces (each talks to 5 peers on 3 ports), timestamps spread over the last hour.
 * Run: {@code java -cp <cli test classpath> io.kubewarden.networkenforcer.cli.replay.HistoryBenchmark [N]}.
 */
public final class HistoryBenchmark {
  private HistoryBenchmark() {}

  public static void main(String[] args) throws Exception {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
    try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.startDefault()) {
      KafkaSettings kafka = new KafkaSettings(broker.bootstrapServers(), "bench.", 6, (short) 1, Map.of());
      TopicSetup.createMissing(kafka, Duration.ofDays(7).toMillis());
      Instant start = Instant.now().minus(Duration.ofHours(1));
      long t0 = System.nanoTime();
      publish(kafka, n, start);
      System.out.printf(Locale.ROOT, "published %d flows in %.1f s%n", n, (System.nanoTime() - t0) / 1e9);

      Path out = Files.createTempDirectory("replay-bench");
      t0 = System.nanoTime();
      CliRun replay = CliRun.run("replay", "--from", "2h", "--provider", "cilium", "--kafka-bootstrap-servers",
          broker.bootstrapServers(), "--kafka-topic-prefix", "bench.", "--output-dir", out.toString());
      double replaySeconds = (System.nanoTime() - t0) / 1e9;
      System.out.println(replay.out().lines().findFirst().orElse(replay.err()));
      replay.err().lines().filter(l -> l.contains("done in")).forEach(System.out::println);
      System.out.printf(Locale.ROOT, "replay: %d flows in %.1f s = %.0f flows/s (exit %d, including the private "
          + "broker's start)%n", n, replaySeconds, n / replaySeconds, replay.exitCode());

      Path policy = Files.writeString(out.resolve("deny.yaml"), "kind: NetworkPolicy\nmetadata: {name: deny, "
          + "namespace: ns-0}\nspec:\n  podSelector: {}\n  policyTypes: [Ingress, Egress]\n");
      t0 = System.nanoTime();
      CliRun simulate = CliRun.run("simulate", "--policy", policy.toString(), "--from", "2h",
          "--kafka-bootstrap-servers", broker.bootstrapServers(), "--kafka-topic-prefix", "bench.", "-o", "json");
      double simulateSeconds = (System.nanoTime() - t0) / 1e9;
      System.out.printf(Locale.ROOT, "simulate: %d flows in %.1f s = %.0f flows/s (exit %d)%n", n, simulateSeconds,
          n / simulateSeconds, simulate.exitCode());
    }
  }

  private static void publish(KafkaSettings kafka, int n, Instant start) {
    Topic<String, FlowRecord> topic = kafka.topics().flows();
    Properties p = kafka.clientConfig();
    p.put(ProducerConfig.LINGER_MS_CONFIG, "20");
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(512 * 1024));
    p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    FlowEndpoint[] workloads = new FlowEndpoint[200];
    for (int i = 0; i < workloads.length; i++) {
      String ns = "ns-" + (i % 10);
      Map<String, String> labels = Map.of("app", "app-" + i);
      workloads[i] = FlowEndpoint.builder().namespace(ns).workload(WorkloadKind.Deployment, "app-" + i)
          .workloadSelector(new LabelSelectorBuilder().withMatchLabels(labels).build()).podLabels(labels)
          .namespaceLabels(Map.of("kubernetes.io/metadata.name", ns)).podName("app-" + i + "-5d8f7-abcde")
          .ip("10.244." + (i / 250) + "." + (i % 250)).serviceAccount("app-" + i).build();
    }
    long spacingMs = Duration.ofHours(1).toMillis() / n;
    try (KafkaProducer<String, FlowRecord> producer = new KafkaProducer<>(p, topic.keySerde().serializer(),
        topic.valueSerde().serializer())) {
      java.util.concurrent.atomic.AtomicLong failed = new java.util.concurrent.atomic.AtomicLong();
      for (int i = 0; i < n; i++) {
        int src = i % workloads.length;
        int dst = (src + 1 + (i / workloads.length) % 5) % workloads.length;
        Instant time = start.plusMillis(i * spacingMs);
        FlowRecord flow = new FlowRecord(time, Provider.cilium, Protocol.TCP, 8080 + (i % 3), workloads[src],
            workloads[dst], Verdict.FORWARDED, null, 1, Reporter.SOURCE);
        producer.send(new ProducerRecord<>(topic.name(), null, time.toEpochMilli(), flow.partitionKey(), flow),
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
