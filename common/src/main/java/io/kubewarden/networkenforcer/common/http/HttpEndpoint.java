package io.kubewarden.networkenforcer.common.http;

import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;

/**
 * The one way the services serve HTTP (management port, flow dumper, OTLP/HTTP receiver): the
 * JDK's server on its own pool of daemon threads, plain or TLS, closed with its threads.
 */
public final class HttpEndpoint implements AutoCloseable {
  private final HttpServer server;
  private final ExecutorService executor;

  private HttpEndpoint(HttpServer server, String threadName, int threads) {
    this.server = server;
    AtomicInteger n = new AtomicInteger();
    this.executor = Executors.newFixedThreadPool(threads, r -> {
      Thread t = new Thread(r, threads == 1 ? threadName : threadName + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    server.setExecutor(executor);
  }

  /** Plain HTTP on {@code address}; not started. */
  public static HttpEndpoint plain(InetSocketAddress address, String threadName, int threads) throws IOException {
    return new HttpEndpoint(HttpServer.create(address, 0), threadName, threads);
  }

  /** HTTPS on {@code address}, asking for a client certificate when {@code needClientAuth}; not started. */
  public static HttpEndpoint tls(InetSocketAddress address, SSLContext context, boolean needClientAuth,
      String threadName, int threads) throws IOException {
    HttpsServer https = HttpsServer.create(address, 0);
    https.setHttpsConfigurator(new HttpsConfigurator(context) {
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

  public HttpEndpoint start() {
    server.start();
    return this;
  }

  /** The bound port (the chosen one when asked for port 0). */
  public int port() {
    return server.getAddress().getPort();
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
