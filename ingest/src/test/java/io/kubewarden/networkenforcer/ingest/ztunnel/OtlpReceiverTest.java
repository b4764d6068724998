package io.kubewarden.networkenforcer.ingest.ztunnel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.flow.Verdict;
import io.kubewarden.networkenforcer.common.tls.PemKeys;
import io.kubewarden.networkenforcer.ingest.Fixtures;
import io.kubewarden.networkenforcer.ingest.proto.otlp.collector.ExportLogsServiceRequest;
import io.kubewarden.networkenforcer.ingest.proto.otlp.collector.ExportLogsServiceResponse;
import io.kubewarden.networkenforcer.ingest.proto.otlp.collector.LogsServiceGrpc;
import io.kubewarden.networkenforcer.ingest.publishing.FlowIntake;
import io.kubewarden.networkenforcer.ingest.publishing.IngestMetrics;
import io.kubewarden.networkenforcer.ingest.resolution.WorkloadResolver;
import io.kubewarden.networkenforcer.ingest.transport.ClientIdentity;
import io.kubewarden.networkenforcer.ingest.transport.GrpcChannels;
import io.kubewarden.networkenforcer.ingest.transport.Keepalive;
import io.kubewarden.networkenforcer.ingest.transport.ReloadingTls;
import io.kubewarden.networkenforcer.ingest.transport.ServerTls;
import io.kubewarden.networkenforcer.ingest.transport.TlsMaterial;
import io.kubewarden.networkenforcer.ingest.transport.TlsMaterialException;
import io.kubewarden.networkenforcer.ingest.transport.TlsMode;
import io.kubewarden.networkenforcer.ingest.transport.TlsSettings;
import io.kubewarden.networkenforcer.testing.TestCertificates;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.api.common.KeyValue;
import io.opentelemetry.api.common.Value;
import io.opentelemetry.exporter.otlp.logs.OtlpGrpcLogRecordExporter;
import io.opentelemetry.sdk.logs.SdkLoggerProvider;
import io.opentelemetry.sdk.logs.export.SimpleLogRecordProcessor;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The OTLP logs receiver over real mutual TLS: gRPC and HTTP, fed by the OTel SDK and by
 * fluent-bit-shaped requests.
 */
class OtlpReceiverTest {
  private static final ClientIdentity FLUENT_BIT = new ClientIdentity("fluent-bit");
  @TempDir static Path dir;

  private static final List<FlowRecord> published = new CopyOnWriteArrayList<>();
  private static final List<String> deadLetters = new CopyOnWriteArrayList<>();
  private static OtlpGrpcReceiver grpc;
  private static OtlpHttpReceiver http;
  private static Path clientCerts;

  /**
   * Same CA, RSA keys in PKCS#1 as cert-manager writes them: fluent-bit's name, and another
   * workload's.
   */
  private static Path fluentBitRsaCerts;

  private static Path otherCerts;
  private static TestCertificates ca;
  private static List<String> ztunnelLines;

  @BeforeAll
  static void start() throws Exception {
    ca = TestCertificates.newCa("otlp-ca");
    Path serverCerts =
        ca.issue(
            dir.resolve("server"),
            "network-enforcer-otlp",
            List.of("localhost"),
            List.of("127.0.0.1"),
            false);
    clientCerts = ca.issue(dir.resolve("client"), "fluent-bit", List.of(), List.of(), false);
    fluentBitRsaCerts =
        ca.issue(dir.resolve("client-rsa"), "fluent-bit", List.of(), List.of(), true);
    otherCerts =
        ca.issue(
            dir.resolve("other"), "network-enforcer.network-enforcer", List.of(), List.of(), true);
    FlowIntake intake =
        new FlowIntake(
            List.of(published::add),
            (s, reason, p, e) -> deadLetters.add(reason),
            new IngestMetrics(new SimpleMeterRegistry()));
    OtlpLogIngestor ingestor =
        new OtlpLogIngestor(
            new ZtunnelLogParser(
                new WorkloadResolver(Fixtures.clusterState()), "cluster.local", Clock.systemUTC()),
            intake);
    ServerTls tls = ServerTls.fromDirectory(serverCerts, true, Duration.ofMinutes(1));
    grpc = new OtlpGrpcReceiver(0, tls, FLUENT_BIT, ingestor).start();
    http = new OtlpHttpReceiver(0, tls, FLUENT_BIT, ingestor).start();
    ztunnelLines = Files.readAllLines(Fixtures.file("ztunnel.jsonl"));
  }

  @AfterAll
  static void stop() {
    grpc.close();
    http.close();
  }

  @BeforeEach
  void clear() {
    published.clear();
    deadLetters.clear();
  }

  /** Every fixture line in one of the three shapes, plus an unrelated record. */
  private static ExportLogsServiceRequest fixtureRequest() throws Exception {
    return FluentBitRequests.request(
        List.of(
            FluentBitRequests.merged(ztunnelLines.get(0)),
            FluentBitRequests.merged(ztunnelLines.get(1)),
            FluentBitRequests.unmerged(ztunnelLines.get(1)),
            FluentBitRequests.bodyString(ztunnelLines.get(1)),
            FluentBitRequests.unmerged(ztunnelLines.get(2)),
            FluentBitRequests.bodyString(ztunnelLines.get(3)),
            FluentBitRequests.unrelated()));
  }

  private static ManagedChannel channel() {
    return channel(clientCerts);
  }

  private static ManagedChannel channel(Path certs) {
    TlsSettings tls = TlsSettings.fromDirectory(TlsMode.issuer, certs, null);
    return GrpcChannels.open(
        "localhost:" + grpc.port(),
        tls,
        ReloadingTls.fromDirectory(certs),
        Keepalive.grpcGoCompatible());
  }

  /**
   * Only fluent-bit's certificate name is accepted: a certificate of the same CA with another name
   * (any workload that may request one from the chart's issuer could hold it) is refused over gRPC
   * and HTTP, before its request is read; the pinned name with an RSA key in PKCS#1 is accepted.
   */
  @Test
  void aCertificateOfTheSameCaWithAnotherNameIsRefused() throws Exception {
    int attempts = 0;
    int refused = 0;
    ManagedChannel other = channel(otherCerts);
    try {
      attempts++;
      StatusRuntimeException denied =
          Assertions.assertThrows(
              StatusRuntimeException.class,
              () -> LogsServiceGrpc.newBlockingStub(other).export(fixtureRequest()));
      assertThat(denied.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
      assertThat(denied.getStatus().getDescription())
          .contains("network-enforcer.network-enforcer")
          .contains("is not fluent-bit");
      refused++;
    } finally {
      other.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    HttpClient otherHttp =
        HttpClient.newBuilder()
            .sslContext(ReloadingTls.fromDirectory(otherCerts).sslContext())
            .build();
    attempts++;
    HttpResponse<String> forbidden =
        otherHttp.send(
            HttpRequest.newBuilder(
                    URI.create("https://localhost:" + http.port() + OtlpHttpReceiver.PATH))
                .header("Content-Type", "application/x-protobuf")
                .POST(HttpRequest.BodyPublishers.ofByteArray(fixtureRequest().toByteArray()))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(forbidden.statusCode()).isEqualTo(403);
    refused++;
    assertThat(published).as("nothing of a refused client is published").isEmpty();
    assertThat(deadLetters).isEmpty();
    System.out.println(
        "OTLP receiver, foreign certificate: attempts refused: " + refused + " of " + attempts);

    ManagedChannel fluentBit = channel(fluentBitRsaCerts);
    try {
      LogsServiceGrpc.newBlockingStub(fluentBit).export(fixtureRequest());
      assertThreeInboundFlows();
    } finally {
      fluentBit.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  /**
   * Without the CA no client certificate could be checked: the receiver does not start (no quiet
   * downgrade).
   */
  @Test
  void aMissingCaIsAStartUpError() throws Exception {
    Path noCa =
        ca.issue(
            dir.resolve("no-ca"), "network-enforcer-otlp", List.of("localhost"), List.of(), true);
    Files.delete(noCa.resolve("ca.crt"));
    assertThatThrownBy(() -> ServerTls.fromDirectory(noCa, true, Duration.ZERO))
        .isInstanceOf(TlsMaterialException.class)
        .hasMessageContaining("has no ca.crt")
        .hasMessageContaining("--provider-tls-mode insecure");
  }

  private static void assertThreeInboundFlows() {
    assertThat(published)
        .hasSize(3)
        .allSatisfy(
            r -> {
              assertThat(r.provider()).isEqualTo(Provider.istio);
              assertThat(r.verdict()).isEqualTo(Verdict.FORWARDED);
              assertThat(r.dstPort()).isEqualTo(18080);
              assertThat(r.src().principal()).contains("cluster.local/ns/demo/sa/http-client-sa");
              assertThat(r.dst().workload().orElseThrow().key())
                  .isEqualTo("demo/Deployment/http-server");
            });
    // Shape (a) loses "time" to the record timestamp; the other shapes keep it in the JSON.
    assertThat(published)
        .extracting(FlowRecord::time)
        .containsOnly(Instant.parse("2026-08-03T15:40:01.081390Z"));
  }

  @Test
  void fluentBitShapedRequestsOverGrpc() throws Exception {
    ManagedChannel channel = channel();
    try {
      ExportLogsServiceResponse response =
          LogsServiceGrpc.newBlockingStub(channel).export(fixtureRequest());
      assertThat(response.hasPartialSuccess()).isFalse();
      assertThreeInboundFlows();

      StatusRuntimeException refused =
          Assertions.assertThrows(
              StatusRuntimeException.class,
              () ->
                  ClientCalls.blockingUnaryCall(
                      channel,
                      OtlpGrpcReceiver.EXPORT,
                      CallOptions.DEFAULT,
                      new byte[] {0x0a, 0x7f, 0x01, 0x02}));
      assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
      assertThat(deadLetters)
          .singleElement()
          .asString()
          .startsWith("not an OTLP ExportLogsServiceRequest");
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  @Test
  void fluentBitShapedRequestsOverHttpProtobufAndGzip() throws Exception {
    HttpClient client =
        HttpClient.newBuilder()
            .sslContext(ReloadingTls.fromDirectory(clientCerts).sslContext())
            .build();
    URI uri = URI.create("https://localhost:" + http.port() + OtlpHttpReceiver.PATH);
    HttpResponse<byte[]> ok =
        client.send(
            HttpRequest.newBuilder(uri)
                .header("Content-Type", "application/x-protobuf")
                .POST(HttpRequest.BodyPublishers.ofByteArray(fixtureRequest().toByteArray()))
                .build(),
            HttpResponse.BodyHandlers.ofByteArray());
    assertThat(ok.statusCode()).isEqualTo(200);
    assertThat(ExportLogsServiceResponse.parseFrom(ok.body()).hasPartialSuccess()).isFalse();
    assertThreeInboundFlows();

    ByteArrayOutputStream gz = new ByteArrayOutputStream();
    try (GZIPOutputStream out = new GZIPOutputStream(gz)) {
      out.write(
          FluentBitRequests.request(List.of(FluentBitRequests.merged(ztunnelLines.get(1))))
              .toByteArray());
    }
    HttpResponse<byte[]> gzipped =
        client.send(
            HttpRequest.newBuilder(uri)
                .header("Content-Type", "application/x-protobuf")
                .header("Content-Encoding", "gzip")
                .POST(HttpRequest.BodyPublishers.ofByteArray(gz.toByteArray()))
                .build(),
            HttpResponse.BodyHandlers.ofByteArray());
    assertThat(gzipped.statusCode()).isEqualTo(200);
    assertThat(published).hasSize(4);

    HttpResponse<String> garbage =
        client.send(
            HttpRequest.newBuilder(uri)
                .header("Content-Type", "application/x-protobuf")
                .POST(HttpRequest.BodyPublishers.ofByteArray(new byte[] {0x0a, 0x7f, 0x01}))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(garbage.statusCode()).isEqualTo(400);
    assertThat(deadLetters).hasSize(1);

    HttpResponse<String> get =
        client.send(
            HttpRequest.newBuilder(uri).GET().build(), HttpResponse.BodyHandlers.ofString());
    assertThat(get.statusCode()).isEqualTo(405);
  }

  @Test
  void httpWithoutAClientCertificateIsRefused() throws Exception {
    TlsMaterial trustOnly =
        new TlsMaterial(null, null, Files.readAllBytes(clientCerts.resolve("ca.crt")));
    ReloadingTls tls =
        ReloadingTls.start("CA only", () -> trustOnly, ReloadingTls.Role.CLIENT, Duration.ZERO);
    HttpClient client = HttpClient.newBuilder().sslContext(tls.sslContext()).build();
    URI uri = URI.create("https://localhost:" + http.port() + OtlpHttpReceiver.PATH);
    assertThatThrownBy(
            () ->
                client.send(
                    HttpRequest.newBuilder(uri)
                        .POST(
                            HttpRequest.BodyPublishers.ofByteArray(fixtureRequest().toByteArray()))
                        .build(),
                    HttpResponse.BodyHandlers.ofString()))
        .isInstanceOf(IOException.class);
    assertThat(published).isEmpty();
  }

  @Test
  void openTelemetrySdkExporterDeliversZtunnelLines() throws Exception {
    OtlpGrpcLogRecordExporter exporter =
        OtlpGrpcLogRecordExporter.builder()
            .setEndpoint("https://localhost:" + grpc.port())
            .setTrustedCertificates(Files.readAllBytes(clientCerts.resolve("ca.crt")))
            // The OpenTelemetry SDK, a stand-in sender, reads PKCS#8 only; the key is written as
            // cert-manager does.
            .setClientTls(
                PemKeys.toPkcs8Pem(Files.readAllBytes(clientCerts.resolve("tls.key"))),
                Files.readAllBytes(clientCerts.resolve("tls.crt")))
            .setTimeout(Duration.ofSeconds(10))
            .build();
    SdkLoggerProvider provider =
        SdkLoggerProvider.builder()
            .addLogRecordProcessor(SimpleLogRecordProcessor.create(exporter))
            .build();
    try {
      var logger = provider.get("fluent-bit");
      // Body string with the raw JSON line (shape c).
      logger.logRecordBuilder().setTimestamp(Instant.now()).setBody(ztunnelLines.get(1)).emit();
      // Body kvlist with the keys at the root (shape a), numbers as ints.
      logger
          .logRecordBuilder()
          .setBody(
              Value.of(
                  KeyValue.of("level", Value.of("info")),
                  KeyValue.of("scope", Value.of("access")),
                  KeyValue.of("message", Value.of("connection complete")),
                  KeyValue.of("src.addr", Value.of("10.244.2.244:46586")),
                  KeyValue.of("src.workload", Value.of("http-client-29e797ec96-1e669")),
                  KeyValue.of("src.namespace", Value.of("demo")),
                  KeyValue.of(
                      "src.identity", Value.of("spiffe://cluster.local/ns/demo/sa/http-client-sa")),
                  KeyValue.of("dst.hbone_addr", Value.of("10.244.1.103:18080")),
                  KeyValue.of("dst.workload", Value.of("http-server-a7c45ae475-cf0f3")),
                  KeyValue.of("dst.namespace", Value.of("demo")),
                  KeyValue.of(
                      "dst.identity", Value.of("spiffe://cluster.local/ns/demo/sa/http-server-sa")),
                  KeyValue.of("direction", Value.of("inbound")),
                  KeyValue.of("bytes_sent", Value.of(120L))))
          .emit();
      logger.logRecordBuilder().setBody("not a ztunnel line").emit();
      provider.forceFlush().join(10, TimeUnit.SECONDS);
      await().atMost(Duration.ofSeconds(20)).until(() -> published.size() == 2);
      assertThat(published).allSatisfy(r -> assertThat(r.dstPort()).isEqualTo(18080));
      assertThat(deadLetters).isEmpty();
    } finally {
      provider.shutdown().join(10, TimeUnit.SECONDS);
    }
  }
}
