package io.kubewarden.networkenforcer.ingest.dumper;

import com.fasterxml.jackson.databind.ObjectWriter;
import com.sun.net.httpserver.HttpExchange;
import io.kubewarden.networkenforcer.common.http.AccessCheck;
import io.kubewarden.networkenforcer.common.http.HttpEndpoint;
import io.kubewarden.networkenforcer.common.json.Json;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.util.List;

/**
 * Serves {@code GET /flow}: drains the dumper's buffer as JSON lines (one FlowRecord per line);
 * {@code GET /flow?dropped=true} drains the dropped provider records instead, one {@link
 * DroppedFlow} (time, source, reason, the record) per line.
 */
public final class FlowDumperServer implements AutoCloseable {
  private final HttpEndpoint server;
  private final FlowDumper dumper;
  private final ObjectWriter writer = Json.mapper().writer();

  /**
   * {@code access} decides who may read (and so drain) the buffer: it holds the cluster's traffic.
   */
  public FlowDumperServer(FlowDumper dumper, InetSocketAddress address, AccessCheck access)
      throws IOException {
    this.dumper = dumper;
    this.server = HttpEndpoint.plain(address, "flow-dumper", 2);
    server.handle("/flow", this::handle, access);
  }

  public FlowDumperServer start() {
    server.start();
    return this;
  }

  public int port() {
    return server.port();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      if (!"GET".equals(exchange.getRequestMethod())) {
        exchange.getResponseHeaders().add("Allow", "GET");
        exchange.sendResponseHeaders(405, -1);
        return;
      }
      if (!"/flow".equals(exchange.getRequestURI().getPath())) {
        exchange.sendResponseHeaders(404, -1);
        return;
      }
      List<?> records =
          wantsDropped(exchange.getRequestURI().getRawQuery())
              ? dumper.drainDropped()
              : dumper.drain();
      ByteArrayOutputStream body = new ByteArrayOutputStream();
      for (Object r : records) {
        body.write(writer.writeValueAsBytes(r));
        body.write('\n');
      }
      exchange.getResponseHeaders().add("Content-Type", "application/x-ndjson");
      exchange.sendResponseHeaders(200, body.size() == 0 ? -1 : body.size());
      if (body.size() > 0) {
        try (OutputStream out = exchange.getResponseBody()) {
          body.writeTo(out);
        }
      }
    }
  }

  private static boolean wantsDropped(String query) {
    if (query == null) {
      return false;
    }
    for (String parameter : query.split("&")) {
      if (parameter.equals("dropped") || parameter.equals("dropped=true")) {
        return true;
      }
    }
    return false;
  }

  @Override
  public void close() {
    server.close();
  }
}
