package io.kubewarden.networkenforcer.pipeline.crash;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.kubewarden.networkenforcer.common.http.HttpEndpoint;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * An HTTP proxy in front of the real kube-apiserver that answers chosen requests itself: the next
 * request (not a watch) after {@link #inject} gets a 409, a 429 with {@code Retry-After}, a 500, a
 * 504 or its real answer late. The writers talk plain HTTP to it with their service-account token;
 * it talks TLS to the API server, trusting the cluster CA. WebSocket upgrades are answered 503, on
 * which the Kubernetes client watches over HTTP (streamed through here) instead.
 */
public final class ApiFaultProxy implements AutoCloseable {
  private static final Set<String> NOT_FORWARDED =
      Set.of(
          "host",
          "connection",
          "content-length",
          "expect",
          "upgrade",
          "http2-settings",
          "te",
          "transfer-encoding",
          "keep-alive",
          "proxy-connection");
  private static final Duration SLOW = Duration.ofSeconds(4);

  private final HttpServer server;
  private final HttpClient upstream;
  private final URI target;
  private final ConcurrentLinkedQueue<ApiFault> pending = new ConcurrentLinkedQueue<>();

  /** When each fault was answered (System.nanoTime). */
  private final ConcurrentLinkedQueue<Long> answeredAt = new ConcurrentLinkedQueue<>();

  /** When the last request that is not a watch got a success from the API server. */
  private volatile long lastSuccess = Long.MIN_VALUE;

  public final Map<ApiFault, AtomicInteger> injected = new ConcurrentHashMap<>();

  private ApiFaultProxy(URI target, String caPem) {
    this.target = target;
    try {
      upstream =
          HttpClient.newBuilder()
              .version(HttpClient.Version.HTTP_1_1)
              .sslContext(trusting(caPem))
              .connectTimeout(Duration.ofSeconds(5))
              .build();
      // The JVM's first JDK server fixes its limits: the product's, as in the product.
      HttpEndpoint.configureJdkLimits();
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 100);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.setExecutor(
        Executors.newCachedThreadPool(
            r -> {
              Thread t = new Thread(r, "api-fault-proxy");
              t.setDaemon(true);
              return t;
            }));
    server.createContext("/", this::handle);
    server.start();
  }

  public static ApiFaultProxy to(String apiServerUrl, String caPem) {
    return new ApiFaultProxy(URI.create(apiServerUrl), caPem);
  }

  public String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /** A kubeconfig for the given bearer token that points at this proxy. */
  public Path kubeconfig(Path file, String token) {
    String yaml =
        """
        apiVersion: v1
        kind: Config
        clusters:
        - name: faults
          cluster:
            server: %s
        users:
        - name: writer
          user:
            token: %s
        contexts:
        - name: faults
          context:
            cluster: faults
            user: writer
        current-context: faults
        """
            .formatted(url(), token);
    try {
      return Files.writeString(file, yaml);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The next request that is not a watch gets this fault. */
  public void inject(ApiFault fault) {
    pending.add(fault);
  }

  /** Faults injected so far (answered), all kinds. */
  public int injectedCount() {
    return injected.values().stream().mapToInt(AtomicInteger::get).sum();
  }

  /**
   * Faults after which a request went through to the API server and succeeded: the writers got on.
   */
  public int recovered() {
    long last = lastSuccess;
    return (int) answeredAt.stream().filter(t -> t < last).count();
  }

  /** Faults asked for but not yet met by a request. */
  public boolean pendingEmpty() {
    return pending.isEmpty();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String upgrade = exchange.getRequestHeaders().getFirst("Upgrade");
      if (upgrade != null && upgrade.toLowerCase(Locale.ROOT).contains("websocket")) {
        answer(exchange, 503, "ServiceUnavailable", "websockets are not proxied; watch over HTTP");
        return;
      }
      boolean watch =
          exchange.getRequestURI().getRawQuery() != null
              && exchange.getRequestURI().getRawQuery().contains("watch=true");
      ApiFault fault = watch ? null : pending.poll();
      if (fault != null) {
        injected.computeIfAbsent(fault, k -> new AtomicInteger()).incrementAndGet();
        answeredAt.add(System.nanoTime());
        if (fault == ApiFault.SLOW) {
          sleep(SLOW);
        } else {
          exchange.getRequestBody().readAllBytes();
          if (fault == ApiFault.TOO_MANY_REQUESTS) {
            exchange.getResponseHeaders().add("Retry-After", "1");
          }
          answer(exchange, fault.code, fault.reason, "injected by the crash suite");
          return;
        }
      }
      forward(exchange, watch);
    }
  }

  private void forward(HttpExchange exchange, boolean watch) throws IOException {
    byte[] body = exchange.getRequestBody().readAllBytes();
    HttpRequest.Builder request =
        HttpRequest.newBuilder(target.resolve(exchange.getRequestURI().toString()))
            .method(
                exchange.getRequestMethod(),
                body.length == 0
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofByteArray(body));
    exchange
        .getRequestHeaders()
        .forEach(
            (name, values) -> {
              if (!NOT_FORWARDED.contains(name.toLowerCase(Locale.ROOT))) {
                values.forEach(v -> request.header(name, v));
              }
            });
    HttpResponse<InputStream> response;
    try {
      response = upstream.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
    } catch (IOException e) {
      answer(exchange, 503, "ServiceUnavailable", "API server unreachable: " + e);
      return;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    response
        .headers()
        .map()
        .forEach(
            (name, values) -> {
              if (!NOT_FORWARDED.contains(name.toLowerCase(Locale.ROOT)) && !name.startsWith(":")) {
                exchange.getResponseHeaders().put(name, List.copyOf(values));
              }
            });
    if (!watch && response.statusCode() < 300) {
      lastSuccess = System.nanoTime();
    }
    boolean noBody =
        exchange.getRequestMethod().equals("HEAD")
            || response.statusCode() == 204
            || response.statusCode() == 304;
    exchange.sendResponseHeaders(response.statusCode(), noBody ? -1 : 0);
    try (InputStream in = response.body();
        OutputStream out = exchange.getResponseBody()) {
      if (noBody) {
        return;
      }
      byte[] buffer = new byte[8192];
      int n;
      while ((n = in.read(buffer)) >= 0) {
        out.write(buffer, 0, n);
        // Watch events are lines the client must see as they come.
        out.flush();
      }
    } catch (IOException e) {
      // The client went away (a watch closed, a writer killed).
    }
  }

  private static void answer(HttpExchange exchange, int code, String reason, String message)
      throws IOException {
    byte[] json =
        ("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
                + "\"message\":\""
                + message
                + "\",\"reason\":\""
                + reason
                + "\",\"code\":"
                + code
                + "}")
            .getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(code, json.length);
    exchange.getResponseBody().write(json);
  }

  private static SSLContext trusting(String caPem) {
    try {
      KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
      store.load(null, null);
      int i = 0;
      for (var cert :
          CertificateFactory.getInstance("X.509")
              .generateCertificates(
                  new ByteArrayInputStream(caPem.getBytes(StandardCharsets.US_ASCII)))) {
        store.setCertificateEntry("ca-" + i++, cert);
      }
      TrustManagerFactory tmf =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(store);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, tmf.getTrustManagers(), null);
      return context;
    } catch (Exception e) {
      throw new IllegalStateException("cannot trust the cluster CA", e);
    }
  }

  public static String decodeBase64(String data) {
    return new String(Base64.getDecoder().decode(data), StandardCharsets.US_ASCII);
  }

  private static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
