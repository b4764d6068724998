package io.kubewarden.networkenforcer.pipeline.crash;

import io.kubewarden.networkenforcer.embedded.EmbeddedKafkaBroker;
import java.nio.file.Path;

/**
 * The broker of the crash suite as a process of its own: the embedded KRaft broker on a fixed port
 * and data directory, advertising the hanging proxy's port, so every client (and the broker's own
 * transaction markers) goes through the proxy. Args: data directory, listen port, advertised port.
 */
public final class BrokerMain {
  private BrokerMain() {}

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    int port = Integer.parseInt(args[1]);
    int advertised = Integer.parseInt(args[2]);
    EmbeddedKafkaBroker broker =
        EmbeddedKafkaBroker.builder()
            .dataDir(dir)
            .port(port)
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
