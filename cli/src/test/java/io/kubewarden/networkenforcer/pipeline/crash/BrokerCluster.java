package io.kubewarden.networkenforcer.pipeline.crash;

import static org.awaitility.Awaitility.await;

import io.kubewarden.networkenforcer.testing.HangingProxy;
import io.kubewarden.networkenforcer.testing.LoopbackPorts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;

/**
 * The crash suite's Kafka: three KRaft nodes (each broker and controller), each a process of its
 * own ({@link BrokerNodeMain}) behind a {@link HangingProxy} it advertises. A node dies by SIGKILL
 * and comes back on its log and ports; the proxies hang together, cutting clients and replication
 * off every broker at once.
 */
public final class BrokerCluster implements AutoCloseable {
  public static final int NODES = 3;

  private final Path dataDir;
  private final Path logs;
  private final Duration wait;
  private final String clusterId = Uuid.randomUuid().toString();
  private final List<Integer> ports = new ArrayList<>();
  private final List<Integer> controllerPorts = new ArrayList<>();
  private final List<HangingProxy> proxies = new ArrayList<>();
  private final ChildJvm[] nodes = new ChildJvm[NODES];
  private int starts;

  private BrokerCluster(Path dataDir, Path logs, Duration wait) {
    this.dataDir = dataDir;
    this.logs = logs;
    this.wait = wait;
  }

  /** Starts the three nodes and waits until all are in the cluster. */
  public static BrokerCluster start(Path dataDir, Path logs, Duration wait) throws Exception {
    BrokerCluster cluster = new BrokerCluster(dataDir, logs, wait);
    for (int i = 0; i < NODES; i++) {
      cluster.ports.add(LoopbackPorts.free());
      cluster.controllerPorts.add(LoopbackPorts.free());
      cluster.proxies.add(new HangingProxy(LoopbackPorts.free(), cluster.ports.get(i)));
    }
    // Together: a node's start waits for a quorum leader, which needs two of the three.
    for (int i = 0; i < NODES; i++) {
      cluster.startNode(i);
    }
    cluster.awaitAllNodes();
    return cluster;
  }

  /** Every node's proxy. */
  public String bootstrap() {
    return proxies.stream().map(p -> "127.0.0.1:" + p.port()).collect(Collectors.joining(","));
  }

  public Admin admin() {
    return Admin.create(
        Map.of(
            AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
            bootstrap(),
            AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
            "20000",
            AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG,
            "5000"));
  }

  /**
   * SIGKILL to node {@code index}; once the controllers have taken it out of every in-sync replica
   * set (its partitions led elsewhere), the node again on its log; waits until it is back. Waiting
   * for the removal makes the later {@link #awaitFullyReplicated} mean that it caught up.
   */
  public synchronized void killAndRestart(int index) throws Exception {
    nodes[index].kill();
    awaitOutOfEveryIsr(index + 1);
    startNode(index);
    awaitAllNodes();
  }

  /** Every proxy stops forwarding, closing nothing. */
  public void hang() {
    proxies.forEach(HangingProxy::hang);
  }

  public void resume() {
    proxies.forEach(HangingProxy::resume);
  }

  /**
   * Every partition of every topic (internal ones included) has all its replicas in sync again, so
   * the next node to die leaves each with {@code min.insync.replicas}.
   */
  public void awaitFullyReplicated() {
    try (Admin admin = admin()) {
      await("every partition with all " + NODES + " replicas in sync")
          .atMost(wait)
          .pollInterval(Duration.ofMillis(500))
          .ignoreExceptions()
          .until(() -> partitions(admin).allMatch(p -> p.isr().size() == p.replicas().size()));
    }
  }

  private void awaitOutOfEveryIsr(int nodeId) {
    try (Admin admin = admin()) {
      await("node " + nodeId + " out of every in-sync replica set")
          .atMost(wait)
          .pollInterval(Duration.ofMillis(500))
          .ignoreExceptions()
          .until(
              () ->
                  partitions(admin)
                      .noneMatch(p -> p.isr().stream().anyMatch(n -> n.id() == nodeId)));
    }
  }

  private static Stream<TopicPartitionInfo> partitions(Admin admin) throws Exception {
    Set<String> names =
        admin
            .listTopics(new ListTopicsOptions().listInternal(true))
            .names()
            .get(10, TimeUnit.SECONDS);
    Map<String, TopicDescription> topics =
        admin.describeTopics(names).allTopicNames().get(10, TimeUnit.SECONDS);
    return topics.values().stream().flatMap(t -> t.partitions().stream());
  }

  /** The nodes, for their output when a wait fails. */
  public List<ChildJvm> nodes() {
    return List.of(nodes);
  }

  private void startNode(int index) throws Exception {
    Path data = Files.createDirectories(dataDir.resolve("node-" + (index + 1)));
    nodes[index] =
        ChildJvm.start(
            "broker-" + (index + 1) + "-" + starts++,
            logs,
            Map.of(),
            BrokerNodeMain.class.getName(),
            List.of(
                data.toString(),
                String.valueOf(index),
                String.valueOf(ports.get(index)),
                String.valueOf(proxies.get(index).port()),
                IntStream.range(0, NODES)
                    .mapToObj(i -> String.valueOf(controllerPorts.get(i)))
                    .collect(Collectors.joining(",")),
                clusterId));
  }

  private void awaitAllNodes() {
    // Its own word first: a killed node stays registered for the broker session timeout.
    await("every broker process started its node")
        .atMost(wait)
        .pollInterval(Duration.ofMillis(300))
        .until(() -> List.of(nodes).stream().allMatch(n -> n.tail(400).contains("broker ready")));
    try (Admin admin = admin()) {
      await("all " + NODES + " brokers up")
          .atMost(wait)
          .pollInterval(Duration.ofMillis(500))
          .ignoreExceptions()
          .until(() -> admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).size() == NODES);
    }
  }

  @Override
  public void close() {
    for (ChildJvm node : nodes) {
      if (node != null) {
        node.close();
      }
    }
    proxies.forEach(HangingProxy::close);
  }
}
