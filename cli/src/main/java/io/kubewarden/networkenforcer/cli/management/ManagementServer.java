package io.kubewarden.networkenforcer.cli.management;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;

/**
 * The management port of every service: {@code /healthz} (the process runs), {@code /readyz}
 * (every part is ready: stream up, Kafka Streams RUNNING, leader or standby) and {@code /metrics}
 * (Prometheus text format).
 */
public final class ManagementServer implements AutoCloseable {
  private final HttpServer server;

  /** A named readiness check, reported by /readyz. */
  public record Check(String name, BooleanSupplier ready) {}

  public ManagementServer(int port, PrometheusMeterRegistry registry, List<Check> readiness) {
    try {
      server = HttpServer.create(new InetSocketAddress(port), 0);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot listen on management port " + port
          + " (set --management-port to a free port)", e);
    }
    server.setExecutor(Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "management-http");
      t.setDaemon(true);
      return t;
    }));
    server.createContext("/healthz", ex -> respond(ex, 200, "ok\n", "text/plain"));
    server.createContext("/readyz", ex -> {
      StringBuilder body = new StringBuilder();
      boolean all = true;
      for (Check c : readiness) {
        boolean ok = c.ready().getAsBoolean();
        all &= ok;
        body.append(c.name()).append(ok ? " ok" : " not ready").append('\n');
      }
      respond(ex, all ? 200 : 503, body.toString(), "text/plain");
    });
    server.createContext("/metrics", ex -> respond(ex, 200, registry.scrape(),
        "text/plain; version=0.0.4; charset=utf-8"));
    server.start();
  }

  public int port() {
    return server.getAddress().getPort();
  }

  private static void respond(HttpExchange ex, int status, String body, String type) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", type);
    ex.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
