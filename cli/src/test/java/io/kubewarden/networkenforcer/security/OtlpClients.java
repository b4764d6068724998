package io.kubewarden.networkenforcer.security;

import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.kubewarden.networkenforcer.cli.CliRun;
import io.kubewarden.networkenforcer.ingest.proto.otlp.collector.ExportLogsServiceRequest;
import io.kubewarden.networkenforcer.ingest.proto.otlp.collector.LogsServiceGrpc;
import io.kubewarden.networkenforcer.ingest.proto.otlp.common.AnyValue;
import io.kubewarden.networkenforcer.ingest.proto.otlp.logs.LogRecord;
import io.kubewarden.networkenforcer.ingest.proto.otlp.logs.ResourceLogs;
import io.kubewarden.networkenforcer.ingest.proto.otlp.logs.ScopeLogs;
import io.kubewarden.networkenforcer.ingest.transport.GrpcChannels;
import io.kubewarden.networkenforcer.ingest.transport.Keepalive;
import io.kubewarden.networkenforcer.ingest.transport.ReloadingTls;
import io.kubewarden.networkenforcer.ingest.transport.TlsMaterial;
import io.kubewarden.networkenforcer.ingest.transport.TlsMode;
import io.kubewarden.networkenforcer.ingest.transport.TlsSettings;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Senders to ingest's OTLP receiver, each with its own credential, sending what fluent-bit sends (a
 * ztunnel access log line as the record's body); each answers with what the receiver said: a gRPC
 * status code name, an HTTP status code, or the exception that ended the connection.
 */
final class OtlpClients {
  private final int grpcPort;
  private final int httpPort;

  OtlpClients(int grpcPort, int httpPort) {
    this.grpcPort = grpcPort;
    this.httpPort = httpPort;
  }

  /** Over gRPC with the certificate, key and CA of a mounted Secret's directory. */
  String grpcWith(Path certs) throws Exception {
    return grpcExport(() -> tlsChannel(ReloadingTls.fromDirectory(certs)));
  }

  /** Over gRPC, trusting the receiver's CA but presenting no certificate. */
  String grpcWithoutCertificate(Path caCrt) throws Exception {
    TlsMaterial trustOnly = new TlsMaterial(null, null, Files.readAllBytes(caCrt));
    return grpcExport(
        () ->
            tlsChannel(
                ReloadingTls.start(
                    "CA only", () -> trustOnly, ReloadingTls.Role.CLIENT, Duration.ZERO)));
  }

  /** Over gRPC in plain text. */
  String grpcPlaintext() throws Exception {
    return grpcExport(
        () ->
            GrpcChannels.open(
                "localhost:" + grpcPort,
                TlsSettings.insecure(),
                null,
                Keepalive.grpcGoCompatible()));
  }

  /** Over OTLP/HTTP with the certificate, key and CA of a mounted Secret's directory. */
  String httpWith(Path certs) throws Exception {
    HttpClient client =
        HttpClient.newBuilder().sslContext(ReloadingTls.fromDirectory(certs).sslContext()).build();
    try {
      return Integer.toString(
          client
              .send(
                  HttpRequest.newBuilder(URI.create("https://localhost:" + httpPort + "/v1/logs"))
                      .header("Content-Type", "application/x-protobuf")
                      .timeout(Duration.ofSeconds(10))
                      .POST(HttpRequest.BodyPublishers.ofByteArray(ztunnelRequest().toByteArray()))
                      .build(),
                  HttpResponse.BodyHandlers.ofString())
              .statusCode());
    } catch (IOException e) {
      return e.getClass().getSimpleName();
    }
  }

  private ManagedChannel tlsChannel(ReloadingTls tls) {
    return GrpcChannels.open(
        "localhost:" + grpcPort,
        // Only the mode matters here: the key material comes from tls.
        TlsSettings.fromDirectory(TlsMode.issuer, Path.of("."), null),
        tls,
        Keepalive.grpcGoCompatible());
  }

  private static String grpcExport(Supplier<ManagedChannel> open) throws Exception {
    ManagedChannel channel = open.get();
    try {
      LogsServiceGrpc.newBlockingStub(channel)
          .withDeadlineAfter(10, TimeUnit.SECONDS)
          .export(ztunnelRequest());
      return "OK";
    } catch (StatusRuntimeException e) {
      return e.getStatus().getCode().name();
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  private static ExportLogsServiceRequest ztunnelRequest() throws IOException {
    String line = Files.readAllLines(CliRun.sample("ztunnel.jsonl")).get(1);
    return ExportLogsServiceRequest.newBuilder()
        .addResourceLogs(
            ResourceLogs.newBuilder()
                .addScopeLogs(
                    ScopeLogs.newBuilder()
                        .addLogRecords(
                            LogRecord.newBuilder()
                                .setTimeUnixNano(1_785_771_600_000_000_000L)
                                .setBody(AnyValue.newBuilder().setStringValue(line)))))
        .build();
  }
}
