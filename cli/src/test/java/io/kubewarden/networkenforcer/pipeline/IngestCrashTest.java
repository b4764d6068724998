package io.kubewarden.networkenforcer.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kubewarden.networkenforcer.cli.CliRun;
import io.kubewarden.networkenforcer.cli.compose.HubbleRelayStandIn;
import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.topics.Topic;
import io.kubewarden.networkenforcer.pipeline.crash.BrokerMain;
import io.kubewarden.networkenforcer.pipeline.crash.ChildJvm;
import io.kubewarden.networkenforcer.testing.HangingProxy;
import io.kubewarden.networkenforcer.testing.LoopbackPorts;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * At-least-once ingest under crashes (issue 34, goal 3): a steady Hubble stream (a Relay stand-in
 * that keeps what it sent, as Relay's buffer does) goes through the {@code ingest} command, a
 * process of its own, to a broker that is another. Ingest is killed with SIGKILL and restarted (it
 * resumes the stream from the flows topic's newest flow), then the broker is killed and restarted
 * on its log while ingest runs; meanwhile ingest's readiness must drop ({@code kafka failing}) and
 * come back. Every flow (each its own destination port, so none aggregates with another) must be in
 * the flows topic, and exactly once: the provider resends what the restarted ingest asks for, and
 * ingest drops what the topic already holds.
 */
class IngestCrashTest {
  private static final Duration WAIT = Duration.ofSeconds(120);
  private static final String PREFIX = "ingest-crash.";
  static final int FIRST_PORT = 20000;

  @TempDir Path dir;

  @Test
  void everyFlowArrivesAtLeastOnceWhenIngestAndThenKafkaAreKilled() throws Exception {
    Path logs = Files.createDirectories(Path.of("target", "crash-faults", "ingest"));
    int brokerPort = LoopbackPorts.free();
    String template =
        Files.readAllLines(CliRun.sample("hubble-flows.jsonl")).stream()
            .filter(l -> l.startsWith("{\"flow\""))
            .findFirst()
            .orElseThrow();
    Path emptyCapture = Files.writeString(dir.resolve("empty.jsonl"), "");
    try (HangingProxy proxy = new HangingProxy(LoopbackPorts.free(), brokerPort);
        HubbleRelayStandIn relay = HubbleRelayStandIn.serve(emptyCapture, "127.0.0.1")) {
      String bootstrap = "127.0.0.1:" + proxy.port();
      Path data = Files.createDirectories(dir.resolve("broker"));
      List<String> brokerArgs =
          List.of(data.toString(), String.valueOf(brokerPort), String.valueOf(proxy.port()));
      List<ChildJvm> started = new ArrayList<>();
      ChildJvm broker =
          ChildJvm.start("ingest-broker-0", logs, Map.of(), BrokerMain.class.getName(), brokerArgs);
      started.add(broker);
      try {
        KafkaSettings kafka = new KafkaSettings(bootstrap, PREFIX, 4, (short) 1, Map.of());
        awaitBroker(bootstrap);
        try (Admin admin = admin(bootstrap)) {
          admin
              .createTopics(
                  kafka.topics().all().stream().map(t -> t.newTopic(4, (short) 1)).toList())
              .all()
              .get(30, TimeUnit.SECONDS);
        }
        int probes = LoopbackPorts.free();
        List<String> ingestArgs =
            List.of(
                "ingest",
                "--provider",
                "cilium",
                "--hubble-endpoint",
                "127.0.0.1:" + relay.port(),
                "--provider-tls-mode",
                "insecure",
                "--cluster-state",
                CliRun.sample("cluster-state.json").toString(),
                "--kafka-bootstrap-servers",
                bootstrap,
                "--kafka-topic-prefix",
                PREFIX,
                "--kafka-partitions",
                "4",
                "--kafka-replication-factor",
                "1",
                "--aggregation-window",
                "1s",
                "--management-port",
                "0",
                "--probe-port",
                String.valueOf(probes),
                "--management-auth",
                "none");
        String main = "io.kubewarden.networkenforcer.cli.NetworkEnforcerCommand";
        ChildJvm ingest = ChildJvm.start("ingest-0", logs, Map.of(), main, ingestArgs);
        started.add(ingest);
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        await("ingest ready")
            .atMost(WAIT)
            .ignoreExceptions()
            .until(() -> readyz(http, probes).statusCode() == 200);

        AtomicInteger published = new AtomicInteger();
        AtomicBoolean streaming = new AtomicBoolean(true);
        ObjectMapper json = new ObjectMapper();
        Thread provider =
            new Thread(
                () -> {
                  // A steady stream: 20 flows a second, each its own destination port.
                  while (streaming.get()) {
                    try {
                      ObjectNode line = (ObjectNode) json.readTree(template);
                      ObjectNode flow = (ObjectNode) line.get("flow");
                      flow.put("time", Instant.now().toString());
                      flow.put("uuid", UUID.randomUUID().toString());
                      ((ObjectNode) flow.get("l4").get("TCP"))
                          .put("destination_port", FIRST_PORT + published.get());
                      relay.publish(json.writeValueAsString(line));
                      published.incrementAndGet();
                      Thread.sleep(50);
                    } catch (Exception e) {
                      throw new IllegalStateException(e);
                    }
                  }
                },
                "provider-stream");
        provider.start();
        try {
          // Killed mid-stream, with flows in its aggregation window and its producer's buffer.
          await("the stream flowing").atMost(WAIT).until(() -> published.get() >= 100);
          awaitArrived(kafka, 50);
          ingest.kill();
          System.out.println("ingest killed at flow " + published.get());
          ingest = ChildJvm.start("ingest-1", logs, Map.of(), main, ingestArgs);
          started.add(ingest);
          await("ingest ready again")
              .atMost(WAIT)
              .ignoreExceptions()
              .until(() -> readyz(http, probes).statusCode() == 200);
          awaitArrived(kafka, published.get());

          broker.kill();
          System.out.println("broker killed at flow " + published.get());
          await("ingest not ready while Kafka is down")
              .atMost(WAIT)
              .ignoreExceptions()
              .until(
                  () -> readyz(http, probes),
                  r -> r.statusCode() == 503 && r.body().contains("kafka failing"));
          broker =
              ChildJvm.start(
                  "ingest-broker-1", logs, Map.of(), BrokerMain.class.getName(), brokerArgs);
          started.add(broker);
          awaitBroker(bootstrap);
          await("ingest ready when Kafka is back")
              .atMost(WAIT)
              .ignoreExceptions()
              .until(() -> readyz(http, probes).statusCode() == 200);
          int atRestart = published.get();
          await("a few more flows").atMost(WAIT).until(() -> published.get() > atRestart + 40);
        } finally {
          streaming.set(false);
          provider.join(10_000);
        }
        int sent = published.get();
        Map<Integer, Long> arrived = awaitArrived(kafka, sent);
        long records = arrived.values().stream().mapToLong(Long::longValue).sum();
        long missing = sent - arrived.size();
        System.out.printf(
            "ingest crash: flows published: %d, arrived: %d distinct, lost: %d, repeated: %d%n",
            sent, arrived.size(), missing, records - arrived.size());
        assertThat(arrived.keySet()).as("every flow at least once").hasSize(sent);
        // The restarted ingest drops each resent flow the topic already holds (AlreadyPublished);
        // the idempotent producer's retries across the broker's restart write nothing twice.
        assertThat(records).as("every flow exactly once").isEqualTo(sent);
      } finally {
        started.forEach(ChildJvm::close);
      }
    }
  }

  static HttpResponse<String> readyz(HttpClient http, int port) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/readyz"))
            .timeout(Duration.ofSeconds(5))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static Admin admin(String bootstrap) {
    return Admin.create(
        Map.of(
            AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
            bootstrap,
            AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
            "20000",
            AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG,
            "5000"));
  }

  private static void awaitBroker(String bootstrap) {
    try (Admin admin = admin(bootstrap)) {
      await("broker up")
          .atMost(WAIT)
          .pollInterval(Duration.ofMillis(500))
          .ignoreExceptions()
          .until(() -> admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).size() == 1);
    }
  }

  /**
   * Destination port → flows counted for it in the topic, once at least {@code count} distinct
   * ports are in.
   */
  static Map<Integer, Long> awaitArrived(KafkaSettings kafka, int count) {
    Topic<String, FlowRecord> flows = kafka.topics().flows();
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    Map<Integer, Long> ports = new TreeMap<>();
    try (KafkaConsumer<String, FlowRecord> consumer =
        new KafkaConsumer<>(p, new StringDeserializer(), flows.valueSerde().deserializer())) {
      List<TopicPartition> partitions = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        partitions.add(new TopicPartition(flows.name(), i));
      }
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      await("at least " + count + " distinct flows in the topic")
          .atMost(WAIT)
          .until(
              () -> {
                for (ConsumerRecord<String, FlowRecord> r : consumer.poll(Duration.ofMillis(500))) {
                  if (r.value() != null && r.value().dstPort() >= FIRST_PORT) {
                    ports.merge(r.value().dstPort(), r.value().count(), Long::sum);
                  }
                }
                return ports.size() >= count;
              });
    }
    return ports;
  }
}
