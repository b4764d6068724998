package io.kubewarden.networkenforcer.pipeline.crash;

import io.kubewarden.networkenforcer.embedded.EmbeddedKafkaBroker;
import io.kubewarden.networkenforcer.embedded.EmbeddedKafkaCluster;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * One node (broker and controller) of the crash suite's three-node KRaft cluster as a process of
 * its own, configured as {@link EmbeddedKafkaCluster} configures its nodes, on a fixed port and
 * data directory, advertising its hanging proxy's port, so every client, the other brokers' replica
 * fetches and the transaction markers go through the proxy (the quorum's controller traffic does
 * not). Args: data directory, node index (0-based), listen port, advertised port, every node's
 * controller port (comma-separated), cluster id.
 */
public final class BrokerNodeMain {
  private BrokerNodeMain() {}

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    int index = Integer.parseInt(args[1]);
    int port = Integer.parseInt(args[2]);
    int advertised = Integer.parseInt(args[3]);
    List<Integer> controllerPorts =
        Arrays.stream(args[4].split(",")).map(Integer::parseInt).toList();
    EmbeddedKafkaBroker broker =
        EmbeddedKafkaCluster.node(index, dir, port, controllerPorts, args[5])
            .config("advertised.listeners", "PLAINTEXT://127.0.0.1:" + advertised)
            // A fenced or killed transactional producer is aborted after this; the default is a
            // minute.
            .config("transaction.max.timeout.ms", "900000")
            .build()
            .start();
    System.out.println("broker ready " + broker.bootstrapServers());
    Thread.currentThread().join();
  }
}
