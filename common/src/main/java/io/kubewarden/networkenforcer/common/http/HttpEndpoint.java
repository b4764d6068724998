package io.kubewarden.networkenforcer.common.http;

import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;

/**
 * The one way the services serve HTTP (probes, management port, flow dumper, OTLP/HTTP receiver):
 * the JDK's server on its own bounded pool of daemon threads, plain or TLS, closed with its
 * threads.
 *
 * <p>A client that opens a request and never finishes it holds one pool thread; the JDK server
 * closes it after {@value #MAX_REQUEST_SECONDS} s (request) or {@value #MAX_RESPONSE_SECONDS} s
 * (response), so it frees the thread again. The JDK reads those limits from system properties once,
 * when the first server of the JVM starts: they are set here unless already set, before any server.
 */
public final class HttpEndpoint implements AutoCloseable {
  static final int MAX_REQUEST_SECONDS = 10;
  static final int MAX_RESPONSE_SECONDS = 30;

  static {
    configureJdkLimits();
  }

  /**
   * Sets the JDK server's request and response limits unless already set. Runs before this class's
   * first server; code that creates a JDK server of its own in the same JVM (a test's stand-in)
   * calls it first, or the JDK reads the properties without the limits and keeps them so.
   */
  public static void configureJdkLimits() {
    setIfAbsent("sun.net.httpserver.maxReqTime", MAX_REQUEST_SECONDS);
    setIfAbsent("sun.net.httpserver.maxRspTime", MAX_RESPONSE_SECONDS);
  }

  private final HttpServer server;
  private final ExecutorService executor;

  private HttpEndpoint(HttpServer server, String threadName, int threads) {
    this.server = server;
    AtomicInteger n = new AtomicInteger();
    this.executor =
        Executors.newFixedThreadPool(
            threads,
            r -> {
              Thread t =
                  new Thread(r, threads == 1 ? threadName : threadName + "-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    server.setExecutor(executor);
  }

  /** Plain HTTP on {@code address}; not started. */
  public static HttpEndpoint plain(InetSocketAddress address, String threadName, int threads)
      throws IOException {
    return new HttpEndpoint(HttpServer.create(address, 0), threadName, threads);
  }

  /**
   * HTTPS on {@code address}, asking for a client certificate when {@code needClientAuth}; not
   * started.
   */
  public static HttpEndpoint tls(
      InetSocketAddress address,
      SSLContext context,
      boolean needClientAuth,
      String threadName,
      int threads)
      throws IOException {
    HttpsServer https = HttpsServer.create(address, 0);
    https.setHttpsConfigurator(
        new HttpsConfigurator(context) {
          @Override
          public void configure(HttpsParameters params) {
            var ssl = context.getDefaultSSLParameters();
            ssl.setNeedClientAuth(needClientAuth);
            params.setSSLParameters(ssl);
          }
        });
    return new HttpEndpoint(https, threadName, threads);
  }

  /** Answers requests to {@code path} and below it. */
  public HttpEndpoint handle(String path, HttpHandler handler) {
    server.createContext(path, handler);
    return this;
  }

  /**
   * Answers requests to {@code path} and below it that {@code access} allows; the others get its
   * status (401 with {@code WWW-Authenticate: Bearer}, 403, 503) and reason, nothing else.
   */
  public HttpEndpoint handle(String path, HttpHandler handler, AccessCheck access) {
    server.createContext(
        path,
        exchange -> {
          AccessCheck.Verdict verdict =
              access.check(
                  exchange.getRequestHeaders().getFirst("Authorization"),
                  exchange.getRequestURI().getPath(),
                  exchange.getRequestMethod());
          if (verdict.allowed()) {
            handler.handle(exchange);
            return;
          }
          try (exchange) {
            if (verdict.status() == 401) {
              exchange
                  .getResponseHeaders()
                  .set("WWW-Authenticate", "Bearer realm=\"network-enforcer\"");
            }
            byte[] body = (verdict.reason() + "\n").getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
            exchange.sendResponseHeaders(verdict.status(), body.length);
            exchange.getResponseBody().write(body);
          }
        });
    return this;
  }

  public HttpEndpoint start() {
    server.start();
    return this;
  }

  /** The bound port (the chosen one when asked for port 0). */
  public int port() {
    return server.getAddress().getPort();
  }

  private static void setIfAbsent(String property, int seconds) {
    if (System.getProperty(property) == null) {
      System.setProperty(property, String.valueOf(seconds));
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
