package io.kubewarden.networkenforcer.embedded;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.Feature;
import org.apache.kafka.server.common.MetadataVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A single-node KRaft Kafka (broker and controller in one process) running inside this JVM: the
 * broker of {@code standalone} and of the tests.
 *
 * <p>Single-node settings matter: internal topics (offsets, transactions, share state) get
 * replication factor 1 and min ISR 1, otherwise consumer groups and exactly-once wait forever for
 * replicas that never come.
 */
public final class EmbeddedKafkaBroker implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedKafkaBroker.class);
  private static final String CONTROLLER_LISTENER = "CONTROLLER";

  private final Path dataDir;
  private final boolean deleteOnClose;
  private final String host;
  private final String advertisedHost;
  private final int requestedPort;
  private final int requestedControllerPort;
  private final int nodeId;
  private final String quorumVoters;
  private final String clusterId;
  private final Map<String, String> overrides;
  private KafkaRaftServer server;
  private int brokerPort;

  private EmbeddedKafkaBroker(Builder b) {
    try {
      this.deleteOnClose = b.dataDir == null;
      this.dataDir =
          b.dataDir != null ? b.dataDir : Files.createTempDirectory("network-enforcer-kafka");
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot create a temporary directory for the embedded Kafka", e);
    }
    this.host = b.host;
    this.advertisedHost = b.advertisedHost == null ? b.host : b.advertisedHost;
    this.requestedPort = b.port;
    this.requestedControllerPort = b.controllerPort;
    this.nodeId = b.nodeId;
    this.quorumVoters = b.quorumVoters;
    this.clusterId = b.clusterId;
    this.overrides = Map.copyOf(b.overrides);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Starts a broker on a free loopback port in a temporary directory. */
  public static EmbeddedKafkaBroker startDefault() {
    return builder().build().start();
  }

  /** Formats the data directory (first start only) and starts the broker. */
  public synchronized EmbeddedKafkaBroker start() {
    if (server != null) {
      return this;
    }
    // A port picked as free can be taken before Kafka binds it; try a few times.
    RuntimeException last = null;
    for (int attempt = 0; attempt < 5; attempt++) {
      int port = requestedPort > 0 ? requestedPort : freePort();
      int controllerPort = requestedControllerPort > 0 ? requestedControllerPort : freePort();
      try {
        Properties props = properties(port, controllerPort);
        KafkaConfig config = KafkaConfig.fromProps(props, false);
        format(config);
        KafkaRaftServer s = new KafkaRaftServer(config, Time.SYSTEM);
        s.startup();
        server = s;
        brokerPort = port;
        LOG.info("embedded Kafka started on {}:{} (data in {})", host, port, dataDir);
        return this;
      } catch (RuntimeException e) {
        last = e;
        LOG.warn(
            "embedded Kafka failed to start on port {} (attempt {}): {}",
            port,
            attempt + 1,
            e.toString());
        if (requestedPort > 0) {
          break;
        }
      }
    }
    throw new IllegalStateException(
        "embedded Kafka did not start: " + (last == null ? "" : last.getMessage()), last);
  }

  /** {@code host:port} for clients. */
  public String bootstrapServers() {
    if (server == null) {
      throw new IllegalStateException("embedded Kafka is not started");
    }
    return advertisedHost + ":" + brokerPort;
  }

  public Path dataDir() {
    return dataDir;
  }

  private Properties properties(int port, int controllerPort) {
    Properties p = new Properties();
    p.put("process.roles", "broker,controller");
    p.put("node.id", Integer.toString(nodeId));
    p.put(
        "controller.quorum.voters",
        quorumVoters != null ? quorumVoters : nodeId + "@" + host + ":" + controllerPort);
    p.put(
        "listeners",
        "PLAINTEXT://"
            + host
            + ":"
            + port
            + ","
            + CONTROLLER_LISTENER
            + "://"
            + host
            + ":"
            + controllerPort);
    p.put("advertised.listeners", "PLAINTEXT://" + advertisedHost + ":" + port);
    p.put("controller.listener.names", CONTROLLER_LISTENER);
    p.put("inter.broker.listener.name", "PLAINTEXT");
    p.put(
        "listener.security.protocol.map",
        "PLAINTEXT:PLAINTEXT," + CONTROLLER_LISTENER + ":PLAINTEXT");
    p.put("log.dirs", dataDir.resolve("log").toString());
    p.put("num.partitions", "1");
    p.put("default.replication.factor", "1");
    p.put("min.insync.replicas", "1");
    p.put("offsets.topic.replication.factor", "1");
    p.put("offsets.topic.num.partitions", "5");
    p.put("transaction.state.log.replication.factor", "1");
    p.put("transaction.state.log.min.isr", "1");
    p.put("transaction.state.log.num.partitions", "5");
    p.put("share.coordinator.state.topic.replication.factor", "1");
    p.put("share.coordinator.state.topic.min.isr", "1");
    p.put("group.initial.rebalance.delay.ms", "0");
    // The default 128 MiB per cleaner thread is far more than compacted control topics need.
    p.put("log.cleaner.dedupe.buffer.size", Integer.toString(4 * 1024 * 1024));
    p.put("log.cleaner.threads", "1");
    p.put("auto.create.topics.enable", "false");
    p.put("num.network.threads", "2");
    p.put("num.io.threads", "2");
    p.put("background.threads", "2");
    p.putAll(overrides);
    return p;
  }

  private void format(KafkaConfig config) {
    Path meta = dataDir.resolve("log").resolve("meta.properties");
    if (Files.exists(meta)) {
      return;
    }
    try {
      Formatter formatter =
          new Formatter()
              .setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
              .setSupportedFeatures(Feature.PRODUCTION_FEATURES)
              .setClusterId(clusterId != null ? clusterId : Uuid.randomUuid().toString())
              .setNodeId(nodeId)
              .setControllerListenerName(CONTROLLER_LISTENER)
              .setMetadataLogDirectory(config.metadataLogDir())
              .setReleaseVersion(MetadataVersion.LATEST_PRODUCTION)
              .setDirectories(List.of(dataDir.resolve("log").toString()));
      formatter.run();
    } catch (Exception e) {
      throw new IllegalStateException(
          "cannot format the embedded Kafka data directory " + dataDir + ": " + e.getMessage(), e);
    }
  }

  private int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName(host))) {
      s.setReuseAddress(true);
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free port on " + host, e);
    }
  }

  /** Stops the broker cleanly and removes a temporary data directory. */
  @Override
  public synchronized void close() {
    if (server != null) {
      try {
        server.shutdown();
        server.awaitShutdown();
      } finally {
        server = null;
      }
    }
    if (deleteOnClose) {
      deleteRecursively(dataDir);
    }
  }

  private static void deleteRecursively(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      LOG.warn("could not delete {}: {}", dir, e.toString());
    }
  }

  /** Options of the embedded broker. */
  public static final class Builder {
    private Path dataDir;
    private String host = "127.0.0.1";
    private String advertisedHost;
    private int port;
    private int controllerPort;
    private int nodeId = 1;
    private String quorumVoters;
    private String clusterId;
    private final Map<String, String> overrides = new HashMap<>();

    /**
     * Keep data here across restarts (standalone); default a temporary directory removed on close.
     */
    public Builder dataDir(Path dir) {
      this.dataDir = dir;
      return this;
    }

    /** Address to listen on; default loopback. */
    public Builder host(String host) {
      this.host = host;
      return this;
    }

    /** Address clients are told to use; default the listen address. */
    public Builder advertisedHost(String host) {
      this.advertisedHost = host;
      return this;
    }

    /** Client port; 0 (default) picks a free one. */
    public Builder port(int port) {
      this.port = port;
      return this;
    }

    /**
     * A node of a cluster ({@link EmbeddedKafkaCluster}): its id, its controller port, every
     * controller of the quorum ({@code id@host:port,...}) and the cluster id all of them are
     * formatted with. A fixed controller port lets a stopped node rejoin at the address the others
     * know.
     */
    Builder clusterNode(int nodeId, int controllerPort, String quorumVoters, String clusterId) {
      this.nodeId = nodeId;
      this.controllerPort = controllerPort;
      this.quorumVoters = quorumVoters;
      this.clusterId = clusterId;
      return this;
    }

    /** Any broker setting. */
    public Builder config(String key, String value) {
      overrides.put(key, value);
      return this;
    }

    public EmbeddedKafkaBroker build() {
      return new EmbeddedKafkaBroker(this);
    }
  }
}
