package io.kubewarden.networkenforcer.cli.diff;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.kubewarden.networkenforcer.common.http.HttpEndpoint;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * Plain HTTP in front of the real API server (HTTPS), forwarding each request with its bearer
 * token, except the first list of WorkloadNetworkPolicies, which it answers as API Priority and
 * Fairness does when a priority level is full: 429 with {@code Retry-After: 1}. LoopbackProxy
 * relays TLS untouched, so it cannot answer for the server.
 */
final class ThrottlingForwarder implements AutoCloseable {
  private static final String THROTTLED =
      """
      {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",\
      "message":"Too many requests, please try again later.","reason":"TooManyRequests","code":429}""";
  private static final List<String> FORWARDED_HEADERS =
      List.of("Authorization", "Accept", "Content-Type");

  private final HttpServer server;
  private final HttpClient upstream;
  private final String target;
  private final AtomicBoolean throttled = new AtomicBoolean();

  /** The status of every list of WorkloadNetworkPolicies, in order. */
  final List<Integer> listStatuses = new CopyOnWriteArrayList<>();

  ThrottlingForwarder(String apiServerUrl, String caCertDataBase64) throws Exception {
    this.target = apiServerUrl;
    KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
    trust.load(null, null);
    trust.setCertificateEntry(
        "ca",
        CertificateFactory.getInstance("X.509")
            .generateCertificate(
                new ByteArrayInputStream(Base64.getDecoder().decode(caCertDataBase64))));
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    SSLContext tls = SSLContext.getInstance("TLS");
    tls.init(null, tmf.getTrustManagers(), null);
    upstream = HttpClient.newBuilder().sslContext(tls).build();
    // The JVM's first JDK server fixes its limits: the product's, as in the product.
    HttpEndpoint.configureJdkLimits();
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", this::handle);
    server.start();
  }

  String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  private void handle(HttpExchange ex) throws IOException {
    try (ex) {
      String path = ex.getRequestURI().getRawPath();
      String query = ex.getRequestURI().getRawQuery();
      boolean list =
          "GET".equals(ex.getRequestMethod()) && path.endsWith("/workloadnetworkpolicies");
      if (list && throttled.compareAndSet(false, true)) {
        listStatuses.add(429);
        byte[] body = THROTTLED.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().add("Retry-After", "1");
        ex.getResponseHeaders().add("Content-Type", "application/json");
        ex.sendResponseHeaders(429, body.length);
        ex.getResponseBody().write(body);
        return;
      }
      byte[] requestBody = ex.getRequestBody().readAllBytes();
      HttpRequest.Builder request =
          HttpRequest.newBuilder(URI.create(target + path + (query == null ? "" : "?" + query)))
              .method(
                  ex.getRequestMethod(),
                  requestBody.length == 0
                      ? HttpRequest.BodyPublishers.noBody()
                      : HttpRequest.BodyPublishers.ofByteArray(requestBody));
      for (String name : FORWARDED_HEADERS) {
        String value = ex.getRequestHeaders().getFirst(name);
        if (value != null) {
          request.header(name, value);
        }
      }
      HttpResponse<byte[]> response =
          upstream.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
      if (list) {
        listStatuses.add(response.statusCode());
      }
      response
          .headers()
          .firstValue("Content-Type")
          .ifPresent(v -> ex.getResponseHeaders().add("Content-Type", v));
      byte[] body = response.body();
      ex.sendResponseHeaders(response.statusCode(), body.length == 0 ? -1 : body.length);
      try (OutputStream out = ex.getResponseBody()) {
        out.write(body);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
