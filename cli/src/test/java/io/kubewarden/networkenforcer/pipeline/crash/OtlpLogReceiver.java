package io.kubewarden.networkenforcer.pipeline.crash;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.kubewarden.networkenforcer.common.http.HttpEndpoint;
import io.kubewarden.networkenforcer.ingest.proto.otlp.collector.ExportLogsServiceRequest;
import io.kubewarden.networkenforcer.ingest.proto.otlp.collector.ExportLogsServiceResponse;
import io.kubewarden.networkenforcer.ingest.proto.otlp.common.KeyValue;
import io.kubewarden.networkenforcer.ingest.proto.otlp.logs.LogRecord;
import io.kubewarden.networkenforcer.ingest.proto.otlp.logs.ResourceLogs;
import io.kubewarden.networkenforcer.ingest.proto.otlp.logs.ScopeLogs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An OTLP/HTTP logs receiver standing in for the collector: it decodes every export with the OTLP
 * protobuf schema and counts the writers' events by name and {@code log.record.uid}, so a repeat
 * (same id twice) and a doubled event (the same violation under two ids) can be told apart.
 */
public final class OtlpLogReceiver implements AutoCloseable {
  static final String UID = "log.record.uid";
  private final HttpServer server;

  /** event name → uid → times received. */
  public final Map<String, Map<String, AtomicInteger>> received = new ConcurrentHashMap<>();

  /** uid → the policy the event names. */
  final Map<String, String> policyOf = new ConcurrentHashMap<>();

  public OtlpLogReceiver() {
    try {
      // The JVM's first JDK server fixes its limits: the product's, as in the product.
      HttpEndpoint.configureJdkLimits();
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.setExecutor(
        Executors.newFixedThreadPool(
            2,
            r -> {
              Thread t = new Thread(r, "otlp-receiver");
              t.setDaemon(true);
              return t;
            }));
    server.createContext("/v1/logs", this::export);
    server.start();
  }

  public String endpoint() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  private void export(HttpExchange exchange) throws IOException {
    try (exchange) {
      ExportLogsServiceRequest request =
          ExportLogsServiceRequest.parseFrom(exchange.getRequestBody());
      for (ResourceLogs resource : request.getResourceLogsList()) {
        for (ScopeLogs scope : resource.getScopeLogsList()) {
          scope.getLogRecordsList().forEach(this::count);
        }
      }
      byte[] ok = ExportLogsServiceResponse.getDefaultInstance().toByteArray();
      exchange.getResponseHeaders().set("Content-Type", "application/x-protobuf");
      exchange.sendResponseHeaders(200, ok.length == 0 ? -1 : ok.length);
      if (ok.length > 0) {
        exchange.getResponseBody().write(ok);
      }
    }
  }

  private void count(LogRecord record) {
    String uid = attribute(record, UID);
    String name =
        !record.getEventName().isEmpty()
            ? record.getEventName()
            : attribute(record, "event.name") != null
                ? attribute(record, "event.name")
                : record.getBody().getStringValue();
    if (uid == null) {
      return;
    }
    received
        .computeIfAbsent(name, k -> new ConcurrentHashMap<>())
        .computeIfAbsent(uid, k -> new AtomicInteger())
        .incrementAndGet();
    String policy = attribute(record, "policy.ref.name");
    if (policy != null) {
      policyOf.put(uid, policy);
    }
  }

  private static String attribute(LogRecord record, String key) {
    for (KeyValue kv : record.getAttributesList()) {
      if (kv.getKey().equals(key)) {
        return kv.getValue().getStringValue();
      }
    }
    return null;
  }

  /** Distinct ids of that event about that policy. */
  public long distinct(String event, String policy) {
    return received.getOrDefault(event, Map.of()).keySet().stream()
        .filter(uid -> policy.equals(policyOf.get(uid)))
        .count();
  }

  /** Sends of that event beyond the first of each id (a collector drops these by id). */
  public long repeats(String event) {
    return received.getOrDefault(event, Map.of()).values().stream()
        .mapToLong(c -> c.get() - 1L)
        .sum();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
