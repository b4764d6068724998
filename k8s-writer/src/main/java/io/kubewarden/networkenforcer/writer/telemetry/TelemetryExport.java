package io.kubewarden.networkenforcer.writer.telemetry;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.logs.LoggerProvider;
import io.opentelemetry.exporter.otlp.http.logs.OtlpHttpLogRecordExporter;
import io.opentelemetry.exporter.otlp.http.logs.OtlpHttpLogRecordExporterBuilder;
import io.opentelemetry.sdk.logs.SdkLoggerProvider;
import io.opentelemetry.sdk.logs.export.BatchLogRecordProcessor;
import io.opentelemetry.sdk.logs.export.LogRecordExporter;
import io.opentelemetry.sdk.resources.Resource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The logger provider of the chosen strategy: a no-op for {@code none}, otherwise an SDK provider
 * batching to an OTLP gRPC exporter (grpc-java, {@link OtlpGrpcLogExporter}) or the SDK's OTLP/HTTP
 * exporter (on the JDK's HTTP client), with TLS/mTLS from PEM files.
 */
public final class TelemetryExport implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TelemetryExport.class);

  static final AttributeKey<String> SERVICE_NAME = AttributeKey.stringKey("service.name");
  static final AttributeKey<String> SERVICE_NAMESPACE = AttributeKey.stringKey("service.namespace");
  static final AttributeKey<String> SERVICE_INSTANCE_ID =
      AttributeKey.stringKey("service.instance.id");

  private final LoggerProvider provider;
  private final SdkLoggerProvider sdk;

  private TelemetryExport(LoggerProvider provider, SdkLoggerProvider sdk) {
    this.provider = provider;
    this.sdk = sdk;
  }

  public static TelemetryExport create(TelemetrySettings settings, String namespace) {
    return create(settings, namespace, null);
  }

  /**
   * As {@link #create(TelemetrySettings, String)}, with this replica's name as the resource's
   * {@code service.instance.id}: a collector or backend can tell which writer sent an event (after
   * a writer's crash, the next leader may send an event again under the same {@code
   * log.record.uid}; the instance tells the two copies apart).
   */
  public static TelemetryExport create(
      TelemetrySettings settings, String namespace, String instance) {
    if (settings.strategy() == CollectorStrategy.none) {
      LOG.info(
          "telemetry export is off (strategy none); violations are recorded on the policy status only");
      return new TelemetryExport(LoggerProvider.noop(), null);
    }
    String endpoint = settings.effectiveEndpoint(namespace);
    LogRecordExporter exporter =
        settings.protocol() == OtlpProtocol.grpc
            ? grpc(settings, endpoint)
            : http(settings, endpoint);
    return withExporter(exporter, endpoint, settings.strategy(), namespace, instance);
  }

  /** An SDK provider over any exporter (tests pass an in-memory one). */
  public static TelemetryExport withExporter(
      LogRecordExporter exporter, String endpoint, CollectorStrategy strategy) {
    return withExporter(exporter, endpoint, strategy, null, null);
  }

  static TelemetryExport withExporter(
      LogRecordExporter exporter,
      String endpoint,
      CollectorStrategy strategy,
      String namespace,
      String instance) {
    SdkLoggerProvider sdk =
        SdkLoggerProvider.builder()
            .setResource(resource(namespace, instance))
            .addLogRecordProcessor(BatchLogRecordProcessor.builder(exporter).build())
            .build();
    LOG.info("telemetry events go to {} (strategy {})", endpoint, strategy);
    return new TelemetryExport(sdk, sdk);
  }

  /** The writer's resource: its service name, and where known its namespace and replica name. */
  static Resource resource(String namespace, String instance) {
    var own = Resource.builder().put(SERVICE_NAME, "network-enforcer-writer");
    if (namespace != null && !namespace.isBlank()) {
      own.put(SERVICE_NAMESPACE, namespace);
    }
    if (instance != null && !instance.isBlank()) {
      own.put(SERVICE_INSTANCE_ID, instance);
    }
    return Resource.getDefault().merge(own.build());
  }

  private static LogRecordExporter grpc(TelemetrySettings s, String endpoint) {
    return new OtlpGrpcLogExporter(s, endpoint);
  }

  private static LogRecordExporter http(TelemetrySettings s, String endpoint) {
    String url =
        endpoint.endsWith("/v1/logs") ? endpoint : endpoint.replaceAll("/+$", "") + "/v1/logs";
    OtlpHttpLogRecordExporterBuilder b = OtlpHttpLogRecordExporter.builder().setEndpoint(url);
    if (s.caFile() != null) {
      b.setTrustedCertificates(read(s.caFile()));
    }
    if (s.certFile() != null) {
      b.setClientTls(s.clientKeyPkcs8(), read(s.certFile()));
    }
    s.headers().forEach(b::addHeader);
    return b.build();
  }

  private static byte[] read(Path p) {
    try {
      return Files.readAllBytes(p);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read telemetry TLS file " + p, e);
    }
  }

  public LoggerProvider provider() {
    return provider;
  }

  @Override
  public void close() {
    if (sdk != null) {
      sdk.shutdown().join(10, TimeUnit.SECONDS);
    }
  }
}
