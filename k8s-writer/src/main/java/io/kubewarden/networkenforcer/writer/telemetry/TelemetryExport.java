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

  private final LoggerProvider provider;
  private final SdkLoggerProvider sdk;

  private TelemetryExport(LoggerProvider provider, SdkLoggerProvider sdk) {
    this.provider = provider;
    this.sdk = sdk;
  }

  public static TelemetryExport create(TelemetrySettings settings, String namespace) {
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
    return withExporter(exporter, endpoint, settings.strategy());
  }

  /** An SDK provider over any exporter (tests pass an in-memory one). */
  public static TelemetryExport withExporter(
      LogRecordExporter exporter, String endpoint, CollectorStrategy strategy) {
    SdkLoggerProvider sdk =
        SdkLoggerProvider.builder()
            .setResource(
                Resource.getDefault()
                    .merge(
                        Resource.builder()
                            .put(AttributeKey.stringKey("service.name"), "network-enforcer-writer")
                            .build()))
            .addLogRecordProcessor(BatchLogRecordProcessor.builder(exporter).build())
            .build();
    LOG.info("telemetry events go to {} (strategy {})", endpoint, strategy);
    return new TelemetryExport(sdk, sdk);
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
