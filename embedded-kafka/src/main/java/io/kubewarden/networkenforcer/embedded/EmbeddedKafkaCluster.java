package io.kubewarden.networkenforcer.embedded;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.kafka.common.Uuid;

/**
 * Several KRaft nodes in this JVM, each broker and controller, forming one cluster with a quorum of
 * all of them: what a production Kafka looks like to the product (three brokers, replication factor
 * 3), where {@link EmbeddedKafkaBroker} is one node. A node can be stopped (a clean shutdown, as a
 * rolling restart does) and started again on its log and its ports.
 *
 * <p>The internal topics (offsets, transactions, share state) are replicated to every node and need
 * all but one in sync, so one node may be away while groups and transactions go on. The broker's
 * default {@code min.insync.replicas} stays Kafka's 1: what a topic needs beyond that is the
 * product's to set.
 */
public final class EmbeddedKafkaCluster implements AutoCloseable {
  private static final String HOST = "127.0.0.1";

  private final Path dataDir;
  private final List<EmbeddedKafkaBroker> nodes;
  private final List<Integer> ports;

  private EmbeddedKafkaCluster(Path dataDir, List<EmbeddedKafkaBroker> nodes, List<Integer> ports) {
    this.dataDir = dataDir;
    this.nodes = nodes;
    this.ports = ports;
  }

  /** Starts {@code size} nodes (at least 3) on free loopback ports in a temporary directory. */
  public static EmbeddedKafkaCluster start(int size, Map<String, String> config) {
    if (size < 3) {
      throw new IllegalArgumentException("a cluster has at least 3 nodes, got " + size);
    }
    Path dir;
    try {
      dir = Files.createTempDirectory("network-enforcer-kafka-cluster");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a directory for the embedded cluster", e);
    }
    List<Integer> free = freePorts(2 * size);
    List<Integer> ports = free.subList(0, size);
    List<Integer> controllerPorts = free.subList(size, 2 * size);
    String clusterId = Uuid.randomUuid().toString();
    List<EmbeddedKafkaBroker> nodes = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      EmbeddedKafkaBroker.Builder b =
          node(i, dir.resolve("node-" + (i + 1)), ports.get(i), controllerPorts, clusterId);
      config.forEach(b::config);
      nodes.add(b.build());
    }
    EmbeddedKafkaCluster cluster = new EmbeddedKafkaCluster(dir, nodes, List.copyOf(ports));
    try {
      // Together: a node's start waits for a quorum leader, which needs a majority of the nodes.
      cluster.startAll(IntStream.range(0, size).boxed().toList());
    } catch (RuntimeException e) {
      cluster.close();
      throw e;
    }
    return cluster;
  }

  /**
   * Node {@code index} (0-based) of a cluster with one controller port per node, configured as
   * {@link #start} configures its nodes. For a node run in a process of its own, so a test can kill
   * it with SIGKILL: {@code start} it in each process with the same ports and cluster id.
   */
  public static EmbeddedKafkaBroker.Builder node(
      int index, Path dataDir, int port, List<Integer> controllerPorts, String clusterId) {
    int size = controllerPorts.size();
    if (size < 3 || index < 0 || index >= size) {
      throw new IllegalArgumentException(
          "node " + index + " of a cluster of " + size + " (at least 3 nodes)");
    }
    String voters =
        IntStream.range(0, size)
            .mapToObj(i -> (i + 1) + "@" + HOST + ":" + controllerPorts.get(i))
            .collect(Collectors.joining(","));
    String replicas = Integer.toString(size);
    String inSync = Integer.toString(size - 1);
    return EmbeddedKafkaBroker.builder()
        .dataDir(dataDir)
        .host(HOST)
        .port(port)
        .clusterNode(index + 1, controllerPorts.get(index), voters, clusterId)
        .config("default.replication.factor", replicas)
        .config("min.insync.replicas", "1")
        .config("offsets.topic.replication.factor", replicas)
        .config("transaction.state.log.replication.factor", replicas)
        .config("transaction.state.log.min.isr", inSync)
        .config("share.coordinator.state.topic.replication.factor", replicas)
        .config("share.coordinator.state.topic.min.isr", inSync);
  }

  /** Every node's client address, stopped ones included (a client finds the live ones). */
  public String bootstrapServers() {
    return ports.stream().map(p -> HOST + ":" + p).collect(Collectors.joining(","));
  }

  public int size() {
    return nodes.size();
  }

  /** Stops node {@code index} (0-based) cleanly; its log stays for {@link #startNode}. */
  public void stopNode(int index) {
    nodes.get(index).close();
  }

  /** Starts node {@code index} again on its log, its ports and its place in the quorum. */
  public void startNode(int index) {
    startAll(List.of(index));
  }

  private void startAll(List<Integer> indexes) {
    List<CompletableFuture<EmbeddedKafkaBroker>> starting =
        indexes.stream()
            .map(
                i ->
                    CompletableFuture.supplyAsync(
                        nodes.get(i)::start, runnable -> thread(i, runnable)))
            .toList();
    for (CompletableFuture<EmbeddedKafkaBroker> f : starting) {
      try {
        f.get();
      } catch (ExecutionException e) {
        throw new IllegalStateException(
            "a node of the embedded cluster did not start", e.getCause());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while the embedded cluster started", e);
      }
    }
  }

  private static void thread(int index, Runnable runnable) {
    Thread t = new Thread(runnable, "embedded-kafka-node-" + (index + 1));
    t.setDaemon(true);
    t.start();
  }

  /**
   * Distinct free ports below the kernel's ephemeral range (as test-support's {@code
   * LoopbackPorts}, which this module sits below): a stopped node's port from that range could be
   * taken by any outgoing connection, a client's to the other nodes included, before the node binds
   * it again.
   */
  private static List<Integer> freePorts(int count) {
    int high = ephemeralLow();
    int low = 10_000;
    Set<Integer> ports = new LinkedHashSet<>();
    for (int attempt = 0; ports.size() < count && attempt < 1_000; attempt++) {
      int port = high - low < 1_000 ? anyFree() : ThreadLocalRandom.current().nextInt(low, high);
      if (isFree(port)) {
        ports.add(port);
      }
    }
    if (ports.size() < count) {
      throw new IllegalStateException("no " + count + " free ports on " + HOST);
    }
    return List.copyOf(ports);
  }

  private static int ephemeralLow() {
    try (BufferedReader reader =
        Files.newBufferedReader(
            Path.of("/proc/sys/net/ipv4/ip_local_port_range"), StandardCharsets.US_ASCII)) {
      String line = reader.readLine();
      return line == null ? 32_768 : Integer.parseInt(line.trim().split("\\s+")[0]);
    } catch (IOException | RuntimeException e) {
      return 32_768;
    }
  }

  private static boolean isFree(int port) {
    try (ServerSocket socket = new ServerSocket(port, 1)) {
      return true;
    } catch (IOException taken) {
      return false;
    }
  }

  private static int anyFree() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free port on " + HOST, e);
    }
  }

  /** Stops every node and removes the cluster's directory. */
  @Override
  public void close() {
    // In parallel, a thread each (the common pool has one thread on two cores): the last nodes of a
    // quorum wait for each other to shut down.
    CompletableFuture.allOf(
            IntStream.range(0, nodes.size())
                .mapToObj(i -> CompletableFuture.runAsync(nodes.get(i)::close, r -> thread(i, r)))
                .toArray(CompletableFuture[]::new))
        .join();
    try (Stream<Path> paths = Files.walk(dataDir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // a temporary directory left behind
    }
  }
}
