package io.kubewarden.networkenforcer.processor.benchmark;

import static org.awaitility.Awaitility.await;

import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.common.topics.Topics;
import io.kubewarden.networkenforcer.embedded.EmbeddedKafkaBroker;
import io.kubewarden.networkenforcer.processor.app.StreamProcessorApp;
import io.kubewarden.networkenforcer.processor.config.ProcessorConfig;
import io.kubewarden.networkenforcer.processor.fixtures.BasicFixture;
import io.kubewarden.networkenforcer.processor.topology.NetworkEnforcerTopology;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;

/**
 * Throughput of the processor on the embedded broker: flows/s for exactly_once_v2 against
 * at_least_once, and for two commit intervals. A fixed backlog of flows over a stable set of peers
 * is written first; the clock runs from the processor becoming RUNNING until its consumer group has
 * committed every offset of the flows topic and of the repartition topic.
 *
 * <p>Run: see stream-processor/README.md ("Benchmark"). Arguments: [flows] (default 200000).
 */
public final class TopologyBenchmark {
  private static final int PARTITIONS = 3;
  private static final int CLIENTS = 40;
  private static final int SERVERS = 10;

  private TopologyBenchmark() {}

  record Run(String guarantee, Duration commitInterval) {}

  public static void main(String[] args) throws Exception {
    int flows = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
    List<Run> runs =
        List.of(
            new Run(StreamsConfig.AT_LEAST_ONCE, Duration.ofSeconds(1)),
            new Run(StreamsConfig.EXACTLY_ONCE_V2, Duration.ofMillis(100)),
            new Run(StreamsConfig.EXACTLY_ONCE_V2, Duration.ofSeconds(1)));
    List<String> results = new ArrayList<>();
    try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.startDefault()) {
      // Warm-up, not reported: the first run would otherwise pay for JIT compilation.
      measure(
          broker.bootstrapServers(),
          "warmup",
          new Run(StreamsConfig.AT_LEAST_ONCE, Duration.ofSeconds(1)),
          Math.max(1000, flows / 4));
      int i = 0;
      for (Run run : runs) {
        double rate = measure(broker.bootstrapServers(), "bench" + (i++), run, flows);
        results.add(
            String.format(
                "%-16s commit %5d ms : %,10.0f flows/s",
                run.guarantee(), run.commitInterval().toMillis(), rate));
        System.out.println(results.get(results.size() - 1));
      }
    }
    System.out.println();
    System.out.println(
        "flows: "
            + flows
            + " over "
            + (CLIENTS * SERVERS)
            + " client/server pairs, "
            + PARTITIONS
            + " partitions, 1 stream thread, Kubernetes backend (2 observations per flow)");
    results.forEach(System.out::println);
  }

  private static double measure(String bootstrap, String run, Run settings, int flows)
      throws Exception {
    Path stateDir = Files.createTempDirectory("processor-bench");
    KafkaSettings kafka = new KafkaSettings(bootstrap, run + ".", PARTITIONS, (short) 1, Map.of());
    ProcessorConfig config =
        ProcessorConfig.builder(kafka)
            .applicationId(run)
            .provider(Provider.calico)
            .processingGuarantee(settings.guarantee())
            .commitInterval(settings.commitInterval())
            .stateDir(stateDir)
            .build();
    Topics topics = config.topics();
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      admin
          .createTopics(topics.all().stream().map(t -> t.newTopic(PARTITIONS, (short) 1)).toList())
          .all()
          .get();
      produce(bootstrap, topics, flows);
      try (StreamProcessorApp app = new StreamProcessorApp(config, new SimpleMeterRegistry())) {
        app.start();
        waitUntil(app::isReady, Duration.ofMinutes(2));
        long start = System.nanoTime();
        // A transaction marker follows the last record of a transactional writer: the processor
        // itself writes the repartition topic, transactionally under exactly-once.
        int markers = StreamsConfig.EXACTLY_ONCE_V2.equals(settings.guarantee()) ? 1 : 0;
        Map<String, Integer> inputs =
            Map.of(
                topics.flows().name(),
                0,
                NetworkEnforcerTopology.observationsRepartitionTopic(config),
                markers);
        waitUntil(() -> caughtUp(admin, run, inputs), Duration.ofMinutes(20));
        double seconds = (System.nanoTime() - start) / 1e9;
        return flows / seconds;
      }
    }
  }

  private static void produce(String bootstrap, Topics topics, int flows) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.LINGER_MS_CONFIG, "20");
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(256 * 1024));
    p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    List<FlowEndpoint> clients = new ArrayList<>();
    List<FlowEndpoint> servers = new ArrayList<>();
    for (int c = 0; c < CLIENTS; c++) {
      clients.add(
          BasicFixture.endpoint(
              "bench",
              "client-" + c,
              Map.of("app", "client-" + c),
              "client-" + c + "-5d8f9c7b6-abcde",
              "10.1.0." + c,
              "client-" + c));
    }
    for (int s = 0; s < SERVERS; s++) {
      servers.add(
          BasicFixture.endpoint(
              "bench",
              "server-" + s,
              Map.of("app", "server-" + s),
              "server-" + s + "-5d8f9c7b6-abcde",
              "10.2.0." + s,
              "server-" + s));
    }
    Instant t = Instant.parse("2026-08-03T15:40:00Z");
    var serializer = topics.flows().valueSerde().serializer();
    try (var producer = new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer())) {
      for (int i = 0; i < flows; i++) {
        FlowEndpoint src = clients.get(i % CLIENTS);
        FlowEndpoint dst = servers.get((i / CLIENTS) % SERVERS);
        FlowRecord flow =
            new FlowRecord(
                t.plusMillis(i),
                Provider.calico,
                Protocol.TCP,
                8080 + (i % 2),
                src,
                dst,
                null,
                null,
                1,
                Reporter.SOURCE);
        producer.send(
            new ProducerRecord<>(
                topics.flows().name(),
                flow.partitionKey(),
                serializer.serialize(topics.flows().name(), flow)));
      }
      producer.flush();
    }
  }

  /** The application's group has committed the end offset of every partition of the inputs. */
  private static boolean caughtUp(Admin admin, String group, Map<String, Integer> topics)
      throws Exception {
    Map<TopicPartition, OffsetAndMetadata> committed =
        admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
    for (String topic : topics.keySet()) {
      for (int p = 0; p < PARTITIONS; p++) {
        latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
      }
    }
    Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends =
        admin.listOffsets(latest).all().get();
    for (var e : ends.entrySet()) {
      OffsetAndMetadata c = committed.get(e.getKey());
      if (c == null || c.offset() < e.getValue().offset() - topics.get(e.getKey().topic())) {
        return false;
      }
    }
    return true;
  }

  private static void waitUntil(Callable<Boolean> check, Duration timeout) {
    await("benchmark")
        .atMost(timeout)
        .pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(100))
        .until(check);
  }
}
