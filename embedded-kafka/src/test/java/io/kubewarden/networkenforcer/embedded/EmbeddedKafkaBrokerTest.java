package io.kubewarden.networkenforcer.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedKafkaBrokerTest {
  static EmbeddedKafkaBroker broker;

  @BeforeAll
  static void start() {
    broker = EmbeddedKafkaBroker.startDefault();
  }

  @AfterAll
  static void stop() {
    broker.close();
  }

  /**
   * The standalone command's broker has no authentication: it must be reachable from its own
   * process only. Every address of this machine but loopback is refused on the broker's port.
   */
  @Test
  void listensOnLoopbackOnly() throws Exception {
    int port =
        Integer.parseInt(
            broker.bootstrapServers().substring(broker.bootstrapServers().lastIndexOf(':') + 1));
    assertThat(connects(InetAddress.getLoopbackAddress(), port)).isTrue();
    List<InetAddress> others =
        NetworkInterface.networkInterfaces()
            .filter(EmbeddedKafkaBrokerTest::up)
            .flatMap(NetworkInterface::inetAddresses)
            .filter(a -> !a.isLoopbackAddress() && !a.isLinkLocalAddress())
            .toList();
    assertThat(others).as("a non-loopback address to try").isNotEmpty();
    assertThat(others)
        .allSatisfy(
            a -> assertThat(connects(a, port)).as("%s:%d", a.getHostAddress(), port).isFalse());
  }

  private static boolean up(NetworkInterface i) {
    try {
      return i.isUp();
    } catch (IOException e) {
      return false;
    }
  }

  private static boolean connects(InetAddress address, int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(address, port), 2_000);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  @Test
  void transactionalProduceAndGroupConsumeWorkOnOneNode() throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
      admin.createTopics(List.of(new NewTopic("t", 2, (short) 1))).all().get();
    }
    Properties pp = new Properties();
    pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    pp.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "tx-1");
    try (var producer = new KafkaProducer<>(pp, new StringSerializer(), new StringSerializer())) {
      // Transactions need the transaction state topic: it hangs with the multi-node defaults.
      producer.initTransactions();
      producer.beginTransaction();
      for (int i = 0; i < 10; i++) {
        producer.send(new ProducerRecord<>("t", "k" + i, "v" + i));
      }
      producer.commitTransaction();
    }
    Properties cp = new Properties();
    cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    cp.put(ConsumerConfig.GROUP_ID_CONFIG, "g");
    cp.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    cp.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    List<String> values = new ArrayList<>();
    try (var consumer =
        new KafkaConsumer<>(cp, new StringDeserializer(), new StringDeserializer())) {
      consumer.subscribe(List.of("t"));
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (values.size() < 10 && System.nanoTime() < deadline) {
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
          values.add(r.value());
        }
      }
      consumer.commitSync();
    }
    assertThat(values)
        .containsExactlyInAnyOrder("v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9");
  }

  @Test
  void restartsOnTheSameDataDirectoryKeepingTopics(@TempDir Path dir) throws Exception {
    try (var b = EmbeddedKafkaBroker.builder().dataDir(dir).build().start();
        Admin admin = Admin.create(Map.of("bootstrap.servers", b.bootstrapServers()))) {
      admin.createTopics(List.of(new NewTopic("kept", 1, (short) 1))).all().get();
    }
    try (var b = EmbeddedKafkaBroker.builder().dataDir(dir).build().start();
        Admin admin = Admin.create(Map.of("bootstrap.servers", b.bootstrapServers()))) {
      assertThat(admin.listTopics().names().get()).contains("kept");
    }
  }
}
