package io.kubewarden.networkenforcer.cli.management;

import com.sun.net.httpserver.HttpExchange;
import io.kubewarden.networkenforcer.common.http.AccessCheck;
import io.kubewarden.networkenforcer.common.http.HttpEndpoint;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The two HTTP ports of every service. The probe port answers {@code /healthz} (liveness: every
 * part still works, see {@link ThreadDeaths} and each service's own checks; 503 names the failing
 * one) and {@code /readyz} (every part is ready: stream up, Kafka Streams RUNNING, writer leader
 * with synced caches or a standby in the election) to anyone: the kubelet has no credentials and
 * they tell nothing. The management port serves {@code /metrics} (Prometheus text format) and
 * further pages (live view, catch-up) only to requests the {@link AccessCheck} allows. Each has its
 * own small pool, so a slow client of one cannot stall the probes.
 */
public final class ManagementServer implements AutoCloseable {
  /** Threads of the management port: a scraper and a person or two at once. */
  static final int MANAGEMENT_THREADS = 4;

  /** Threads of the probe port: the kubelet's probes run one at a time per kind. */
  static final int PROBE_THREADS = 2;

  private final HttpEndpoint server;
  private final HttpEndpoint probes;
  private final AccessCheck access;

  /** A named readiness check, reported by /readyz. */
  public record Check(String name, BooleanSupplier ready) {}

  /** A page answered on a path of its own: status, content type, body. */
  public record Page(int status, String contentType, String body) {}

  /**
   * @param liveness read on every {@code /healthz}, so checks added later count
   */
  public ManagementServer(
      int port,
      int probePort,
      AccessCheck access,
      PrometheusMeterRegistry registry,
      List<Check> liveness,
      List<Check> readiness) {
    this.access = access;
    try {
      probes = HttpEndpoint.plain(new InetSocketAddress(probePort), "probe-http", PROBE_THREADS);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot listen on probe port " + probePort + " (set --probe-port to a free port)", e);
    }
    try {
      server =
          HttpEndpoint.plain(new InetSocketAddress(port), "management-http", MANAGEMENT_THREADS);
    } catch (IOException e) {
      probes.close();
      throw new UncheckedIOException(
          "cannot listen on management port " + port + " (set --management-port to a free port)",
          e);
    }
    probes.handle("/healthz", ex -> respond(ex, CheckReport.of(liveness)));
    probes.handle("/readyz", ex -> respond(ex, CheckReport.readiness(readiness)));
    server.handle(
        "/metrics",
        ex -> respond(ex, 200, registry.scrape(), "text/plain; version=0.0.4; charset=utf-8"),
        access);
    probes.start();
    server.start();
  }

  /**
   * Serves {@code page} at exactly {@code path}, read-only: GET and HEAD only (405 otherwise),
   * never cached by the browser, 404 below the path.
   */
  public void page(String path, Supplier<Page> page) {
    server.handle(
        path,
        ex -> {
          if (!ex.getRequestURI().getPath().equals(path)) {
            respond(ex, 404, "not found\n", "text/plain");
            return;
          }
          String method = ex.getRequestMethod();
          if (!"GET".equals(method) && !"HEAD".equals(method)) {
            ex.getResponseHeaders().set("Allow", "GET, HEAD");
            respond(ex, 405, "read-only: only GET and HEAD\n", "text/plain");
            return;
          }
          Page p;
          try {
            p = page.get();
          } catch (RuntimeException e) {
            respond(ex, 500, "cannot render " + path + ": " + e + "\n", "text/plain");
            return;
          }
          ex.getResponseHeaders().set("Cache-Control", "no-store");
          ex.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
          respond(ex, p.status(), p.body(), p.contentType());
        },
        access);
  }

  public int port() {
    return server.port();
  }

  public int probePort() {
    return probes.port();
  }

  private static void respond(HttpExchange ex, CheckReport report) throws IOException {
    respond(ex, report.status(), report.body(), "text/plain");
  }

  private static void respond(HttpExchange ex, int status, String body, String type)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", type);
    ex.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    server.close();
    probes.close();
  }
}
