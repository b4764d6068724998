package io.kubewarden.networkenforcer.ingest.ztunnel;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsExchange;
import io.kubewarden.networkenforcer.common.http.HttpEndpoint;
import io.kubewarden.networkenforcer.ingest.proto.otlp.collector.ExportLogsServiceRequest;
import io.kubewarden.networkenforcer.ingest.proto.otlp.collector.ExportLogsServiceResponse;
import io.kubewarden.networkenforcer.ingest.transport.ClientIdentity;
import io.kubewarden.networkenforcer.ingest.transport.ServerTls;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.zip.GZIPInputStream;

/**
 * OTLP/HTTP {@code POST /v1/logs} (protobuf, or JSON; optionally gzip): where fluent-bit sends when
 * it cannot negotiate HTTP/2, and what it uses with {@code grpc off}.
 */
public final class OtlpHttpReceiver implements AutoCloseable {
  public static final String PATH = "/v1/logs";
  private static final int MAX_BODY_BYTES = 16 * 1024 * 1024;

  private final HttpEndpoint server;
  private final OtlpLogIngestor ingestor;
  private final ClientIdentity client;

  /**
   * @param tls null for plain HTTP
   * @param client with TLS, the only client certificate name accepted (others: 403, body unread)
   */
  public OtlpHttpReceiver(int port, ServerTls tls, ClientIdentity client, OtlpLogIngestor ingestor)
      throws IOException {
    if (tls != null && client == null) {
      throw new IllegalArgumentException(
          "a TLS receiver needs the name of the one client it accepts");
    }
    this.ingestor = ingestor;
    this.client = client;
    InetSocketAddress address = new InetSocketAddress(port);
    server =
        tls == null
            ? HttpEndpoint.plain(address, "otlp-http", 2)
            : HttpEndpoint.tls(address, tls.sslContext(), true, "otlp-http", 2);
    server.handle(PATH, this::handle);
  }

  public OtlpHttpReceiver start() {
    server.start();
    return this;
  }

  public int port() {
    return server.port();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      if (client != null) {
        var refusal = client.refusal(((HttpsExchange) exchange).getSSLSession());
        if (refusal.isPresent()) {
          respond(exchange, 403, "text/plain", refusal.get().getBytes(StandardCharsets.UTF_8));
          return;
        }
      }
      if (!"POST".equals(exchange.getRequestMethod())) {
        exchange.getResponseHeaders().add("Allow", "POST");
        exchange.sendResponseHeaders(405, -1);
        return;
      }
      if (!PATH.equals(exchange.getRequestURI().getPath())) {
        exchange.sendResponseHeaders(404, -1);
        return;
      }
      byte[] body;
      try {
        body = readBody(exchange);
      } catch (IOException e) {
        respond(
            exchange,
            400,
            "text/plain",
            ("unreadable body: " + e.getMessage()).getBytes(StandardCharsets.UTF_8));
        return;
      }
      if (body == null) {
        respond(
            exchange,
            413,
            "text/plain",
            "request larger than 16 MiB".getBytes(StandardCharsets.UTF_8));
        return;
      }
      String contentType = exchange.getRequestHeaders().getFirst("Content-Type");
      boolean json = contentType != null && contentType.startsWith("application/json");
      try {
        if (json) {
          ExportLogsServiceRequest request;
          try {
            request = decodeJson(body);
          } catch (InvalidProtocolBufferException e) {
            ingestor.rejected(
                body, "not an OTLP JSON ExportLogsServiceRequest: " + e.getMessage(), e);
            throw e;
          }
          ExportLogsServiceResponse response = ingestor.export(request);
          respond(
              exchange,
              200,
              "application/json",
              JsonFormat.printer().print(response).getBytes(StandardCharsets.UTF_8));
        } else {
          respond(exchange, 200, "application/x-protobuf", ingestor.export(body).toByteArray());
        }
      } catch (InvalidProtocolBufferException e) {
        respond(
            exchange,
            400,
            "text/plain",
            ("not an OTLP ExportLogsServiceRequest: " + e.getMessage())
                .getBytes(StandardCharsets.UTF_8));
      } catch (NotPublishedException e) {
        // OTLP/HTTP senders retry a 503 (after Retry-After when given).
        exchange.getResponseHeaders().add("Retry-After", "1");
        respond(exchange, 503, "text/plain", e.getMessage().getBytes(StandardCharsets.UTF_8));
      }
    }
  }

  /** An OTLP/HTTP JSON body (protobuf JSON mapping, unknown fields ignored). */
  static ExportLogsServiceRequest decodeJson(byte[] body) throws InvalidProtocolBufferException {
    ExportLogsServiceRequest.Builder request = ExportLogsServiceRequest.newBuilder();
    JsonFormat.parser()
        .ignoringUnknownFields()
        .merge(new String(body, StandardCharsets.UTF_8), request);
    return request.build();
  }

  /** The body, un-gzipped when needed; null when it is too large. */
  private static byte[] readBody(HttpExchange exchange) throws IOException {
    InputStream in = exchange.getRequestBody();
    if ("gzip".equalsIgnoreCase(exchange.getRequestHeaders().getFirst("Content-Encoding"))) {
      in = new GZIPInputStream(in);
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] chunk = new byte[8192];
    int n;
    while ((n = in.read(chunk)) > 0) {
      out.write(chunk, 0, n);
      if (out.size() > MAX_BODY_BYTES) {
        return null;
      }
    }
    return out.toByteArray();
  }

  private static void respond(HttpExchange exchange, int status, String contentType, byte[] body)
      throws IOException {
    exchange.getResponseHeaders().add("Content-Type", contentType);
    exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
    if (body.length > 0) {
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }
  }

  @Override
  public void close() {
    server.close();
  }
}
