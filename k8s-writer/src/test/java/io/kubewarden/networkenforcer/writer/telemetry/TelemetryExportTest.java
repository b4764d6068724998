package io.kubewarden.networkenforcer.writer.telemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsExchange;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.TlsServerCredentials;
import io.kubewarden.networkenforcer.common.config.ConfigException;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.common.tls.PemKeys;
import io.kubewarden.networkenforcer.testing.CertManagerKeys;
import io.kubewarden.networkenforcer.testing.ChartTemplates;
import io.kubewarden.networkenforcer.writer.Fixtures;
import io.kubewarden.networkenforcer.writer.observations.SourcedObservation;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.net.ssl.SSLParameters;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The events leave over OTLP with mutual TLS from PEM files, over HTTP and over gRPC. */
class TelemetryExportTest {
  static final String LOGS_SERVICE = "opentelemetry.proto.collector.logs.v1.LogsService";

  @TempDir Path dir;
  TestPki pki;
  Path ca;
  Path serverCert;
  Path serverKey;
  Path clientCert;
  Path clientKey;
  final List<byte[]> received = new CopyOnWriteArrayList<>();
  final List<String> clientNames = new CopyOnWriteArrayList<>();
  final List<Metadata> receivedHeaders = new CopyOnWriteArrayList<>();

  @BeforeEach
  void certificates() {
    pki = new TestPki();
    ca = TestPki.writePem(dir, "ca.pem", "CERTIFICATE", TestPki.der(pki.ca));
    serverCert = TestPki.writePem(dir, "server.pem", "CERTIFICATE", TestPki.der(pki.server));
    // Both keys as cert-manager writes them: the server's ECDSA key as SEC1, the client's RSA key
    // as PKCS#1.
    serverKey = write("server-key.pem", CertManagerKeys.pem(pki.serverKeys.getPrivate()));
    clientCert = TestPki.writePem(dir, "client.pem", "CERTIFICATE", TestPki.der(pki.client));
    clientKey = write("client-key.pem", CertManagerKeys.pem(pki.clientKeys.getPrivate()));
    assertThat(clientKey).content().startsWith("-----BEGIN RSA PRIVATE KEY-----");
    assertThat(serverKey).content().startsWith("-----BEGIN EC PRIVATE KEY-----");
  }

  private Path write(String file, String content) {
    try {
      return Files.writeString(dir.resolve(file), content);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The stand-in collector's credentials: grpc-java, like the writer, reads PKCS#8 only. */
  TlsServerCredentials.Builder collectorTls() throws IOException {
    return TlsServerCredentials.newBuilder()
        .keyManager(
            new ByteArrayInputStream(Files.readAllBytes(serverCert)),
            new ByteArrayInputStream(PemKeys.toPkcs8Pem(Files.readAllBytes(serverKey))));
  }

  void emitOneViolation(TelemetrySettings settings) {
    try (TelemetryExport export = TelemetryExport.create(settings.validate(), "network-enforcer")) {
      new ViolationEvents(export.provider())
          .observed(
              SourcedObservation.unsourced(Fixtures.violation("api", "web", 8080, Instant.now())));
    } // close() flushes the batch
  }

  boolean receivedTheEvent() {
    return received.stream()
        .map(b -> new String(b, StandardCharsets.ISO_8859_1))
        .anyMatch(
            s ->
                s.contains("policy_violation_observed")
                    && s.contains("destination.port")
                    && s.contains("network-enforcer"));
  }

  @Test
  void theResourceNamesTheServiceItsNamespaceAndTheReplica() {
    var resource = TelemetryExport.resource("ne-system", "network-enforcer-writer-7c9d-x2");
    assertThat(resource.getAttribute(TelemetryExport.SERVICE_NAME))
        .isEqualTo("network-enforcer-writer");
    assertThat(resource.getAttribute(TelemetryExport.SERVICE_NAMESPACE)).isEqualTo("ne-system");
    assertThat(resource.getAttribute(TelemetryExport.SERVICE_INSTANCE_ID))
        .isEqualTo("network-enforcer-writer-7c9d-x2");
    var unnamed = TelemetryExport.resource(null, " ");
    assertThat(unnamed.getAttribute(TelemetryExport.SERVICE_INSTANCE_ID)).isNull();
    assertThat(unnamed.getAttribute(TelemetryExport.SERVICE_NAMESPACE)).isNull();
  }

  @Test
  void aKeyFileWithoutAKeyIsRefusedAtStartWithItsFileNamed() {
    Path notAKey =
        write("not-a-key.pem", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n");
    assertThatThrownBy(
            () ->
                new TelemetrySettings(
                        CollectorStrategy.external,
                        "https://localhost:4317",
                        OtlpProtocol.grpc,
                        ca,
                        clientCert,
                        notAKey)
                    .validate())
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(notAKey.toString())
        .hasMessageContaining("CERTIFICATE is not an unencrypted private key");
  }

  @Test
  void otlpHttpWithMutualTls() throws Exception {
    HttpsServer server = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setHttpsConfigurator(
        new HttpsConfigurator(pki.serverContext()) {
          @Override
          public void configure(HttpsParameters params) {
            SSLParameters p = getSSLContext().getDefaultSSLParameters();
            p.setNeedClientAuth(true);
            params.setSSLParameters(p);
          }
        });
    server.createContext(
        "/v1/logs",
        exchange -> {
          received.add(exchange.getRequestBody().readAllBytes());
          clientNames.add(((HttpsExchange) exchange).getSSLSession().getPeerPrincipal().getName());
          exchange.getResponseHeaders().add("Content-Type", "application/x-protobuf");
          exchange.sendResponseHeaders(200, -1);
          exchange.close();
        });
    server.start();
    try {
      emitOneViolation(
          new TelemetrySettings(
              CollectorStrategy.external,
              "https://127.0.0.1:" + server.getAddress().getPort(),
              OtlpProtocol.http,
              ca,
              clientCert,
              clientKey));
      await().atMost(Duration.ofSeconds(30)).until(this::receivedTheEvent);
      assertThat(clientNames).contains("CN=network-enforcer-writer");
    } finally {
      server.stop(0);
    }
  }

  @Test
  void otlpGrpcWithMutualTls() throws Exception {
    MethodDescriptor<byte[], byte[]> export = exportMethod();
    ServerServiceDefinition service =
        ServerServiceDefinition.builder(LOGS_SERVICE).addMethod(export, collector()).build();
    Server server =
        Grpc.newServerBuilderForPort(
                0,
                collectorTls()
                    .trustManager(ca.toFile())
                    .clientAuth(TlsServerCredentials.ClientAuth.REQUIRE)
                    .build())
            .addService(service)
            .build()
            .start();
    try {
      emitOneViolation(
          new TelemetrySettings(
              CollectorStrategy.external,
              "https://localhost:" + server.getPort(),
              OtlpProtocol.grpc,
              ca,
              clientCert,
              clientKey));
      await().atMost(Duration.ofSeconds(30)).until(this::receivedTheEvent);
    } finally {
      server.shutdownNow();
    }
  }

  @Test
  void withoutTheClientCertificateTheCollectorRefusesTheEvents() throws Exception {
    Server server =
        Grpc.newServerBuilderForPort(
                0,
                collectorTls()
                    .trustManager(ca.toFile())
                    .clientAuth(TlsServerCredentials.ClientAuth.REQUIRE)
                    .build())
            .addService(
                ServerServiceDefinition.builder(LOGS_SERVICE)
                    .addMethod(exportMethod(), collector())
                    .build())
            .build()
            .start();
    try {
      // TLS without a client certificate: the handshake fails, nothing arrives, nothing breaks.
      emitOneViolation(
          new TelemetrySettings(
              CollectorStrategy.external,
              "https://localhost:" + server.getPort(),
              OtlpProtocol.grpc,
              ca,
              null,
              null));
      assertThat(received).isEmpty();
    } finally {
      server.shutdownNow();
    }
  }

  // ---- The writer with the exact environment the chart renders for each telemetry mode ----

  /** The environment of the container that exports events, as {@code helm template} renders it. */
  static Map<String, String> chartEnvironment(String... sets) throws IOException {
    List<String> args = new ArrayList<>();
    for (String set : sets) {
      args.add("--set");
      args.add(set);
    }
    String yaml = ChartTemplates.render(args.toArray(String[]::new));
    Map<String, String> env = new LinkedHashMap<>();
    try (MappingIterator<JsonNode> docs = Json.yaml().readerFor(JsonNode.class).readValues(yaml)) {
      while (docs.hasNext()) {
        JsonNode doc = docs.next();
        for (JsonNode c : doc.path("spec").path("template").path("spec").path("containers")) {
          boolean exporter = false;
          for (JsonNode e : c.path("env")) {
            exporter |= e.path("name").asText().equals("NE_TELEMETRY_COLLECTOR_STRATEGY");
          }
          if (exporter) {
            c.path("env")
                .forEach(
                    e -> {
                      if (e.has("value")) {
                        env.put(e.path("name").asText(), e.path("value").asText());
                      }
                    });
          }
        }
      }
    }
    assertThat(env).as("a container exports events").containsKey("NE_TELEMETRY_COLLECTOR_STRATEGY");
    return env;
  }

  /**
   * The chart's mounted PEM files (ca.crt, tls.crt, tls.key under the otel dir) are this test's
   * files.
   */
  Map<String, String> mounted(Map<String, String> env) {
    Map<String, String> out = new LinkedHashMap<>(env);
    out.replaceAll(
        (k, v) ->
            v.endsWith("/ca.crt")
                ? ca.toString()
                : v.endsWith("/tls.crt")
                    ? clientCert.toString()
                    : v.endsWith("/tls.key") ? clientKey.toString() : v);
    return out;
  }

  /**
   * What the writer makes of that environment when no flag is given (WriterOptions does exactly
   * this).
   */
  static TelemetrySettings settingsFrom(Map<String, String> env) {
    return OtlpEnvironment.complete(
            new TelemetrySettings(
                CollectorStrategy.parse(env.get("NE_TELEMETRY_COLLECTOR_STRATEGY")),
                null,
                null,
                null,
                null,
                null),
            null,
            env)
        .validate();
  }

  Server plainGrpcCollector() throws IOException {
    return Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create())
        .addService(
            ServerServiceDefinition.builder(LOGS_SERVICE)
                .addMethod(exportMethod(), collector())
                .build())
        .build()
        .start();
  }

  @Test
  void chartExternalGrpcHostPortWithoutACertificateSecretSendsInPlainText() throws Exception {
    Server server = plainGrpcCollector();
    try {
      Map<String, String> env =
          chartEnvironment(
              "telemetry.collectorStrategy=external",
              "telemetry.externalCollector.endpoint=127.0.0.1:" + server.getPort(),
              "telemetry.externalCollector.protocol=grpc");
      assertThat(env.get("OTEL_EXPORTER_OTLP_ENDPOINT"))
          .as("host:port, as the values document it")
          .isEqualTo("127.0.0.1:" + server.getPort());
      emitOneViolation(settingsFrom(env));
      await().atMost(Duration.ofSeconds(30)).until(this::receivedTheEvent);
    } finally {
      server.shutdownNow();
    }
  }

  @Test
  void chartExternalGrpcHostPortWithCaAndClientCertificateUsesMutualTls() throws Exception {
    Server server =
        Grpc.newServerBuilderForPort(
                0,
                collectorTls()
                    .trustManager(ca.toFile())
                    .clientAuth(TlsServerCredentials.ClientAuth.REQUIRE)
                    .build())
            .addService(
                ServerServiceDefinition.builder(LOGS_SERVICE)
                    .addMethod(exportMethod(), collector())
                    .build())
            .build()
            .start();
    try {
      Map<String, String> env =
          chartEnvironment(
              "telemetry.collectorStrategy=external",
              "telemetry.externalCollector.endpoint=localhost:" + server.getPort(),
              "telemetry.externalCollector.protocol=grpc",
              "telemetry.externalCollector.otelCollectorCertificateSecret=otel-ca",
              "telemetry.externalCollector.otelCollectorClientCertificateSecret=otel-client");
      TelemetrySettings settings = settingsFrom(mounted(env));
      assertThat(settings.effectiveEndpoint("network-enforcer"))
          .isEqualTo("https://localhost:" + server.getPort());
      emitOneViolation(settings);
      await().atMost(Duration.ofSeconds(30)).until(this::receivedTheEvent);
    } finally {
      server.shutdownNow();
    }
  }

  @Test
  void chartExternalHttpProtobufUrlWithCa() throws Exception {
    HttpsServer server = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setHttpsConfigurator(new HttpsConfigurator(pki.serverContext()));
    server.createContext(
        "/v1/logs",
        exchange -> {
          received.add(exchange.getRequestBody().readAllBytes());
          exchange.getResponseHeaders().add("Content-Type", "application/x-protobuf");
          exchange.sendResponseHeaders(200, -1);
          exchange.close();
        });
    server.start();
    try {
      Map<String, String> env =
          chartEnvironment(
              "telemetry.collectorStrategy=external",
              "telemetry.externalCollector.endpoint=https://127.0.0.1:"
                  + server.getAddress().getPort(),
              "telemetry.externalCollector.protocol=http/protobuf",
              "telemetry.externalCollector.otelCollectorCertificateSecret=otel-ca");
      TelemetrySettings settings = settingsFrom(mounted(env));
      assertThat(settings.protocol()).isEqualTo(OtlpProtocol.http);
      emitOneViolation(settings);
      await().atMost(Duration.ofSeconds(30)).until(this::receivedTheEvent);
    } finally {
      server.stop(0);
    }
  }

  @Test
  void chartDefaultStrategyReachesTheBundledCollectorOverTlsWithTheChartCertificates()
      throws Exception {
    TelemetrySettings settings =
        settingsFrom(mounted(chartEnvironment("telemetry.collectorStrategy=default")));
    assertThat(settings.strategy()).isEqualTo(CollectorStrategy.DEFAULT);
    assertThat(settings.protocol()).isEqualTo(OtlpProtocol.grpc);
    assertThat(settings.effectiveEndpoint("anything"))
        .isEqualTo(
            "https://ne-network-enforcer-otel-collector.network-enforcer.svc.cluster.local:4317");
    assertThat(settings.caFile()).isEqualTo(ca);
    assertThat(settings.certFile()).isEqualTo(clientCert);
    assertThat(settings.keyFile()).isEqualTo(clientKey);
    try (TelemetryExport export = TelemetryExport.create(settings, "network-enforcer")) {
      assertThat(export.provider()).isNotNull();
    }
  }

  @Test
  void chartNoneStrategyExportsNothing() throws Exception {
    Map<String, String> env = chartEnvironment("telemetry.collectorStrategy=none");
    assertThat(env.keySet()).noneMatch(k -> k.startsWith("OTEL_EXPORTER_OTLP_"));
    assertThat(settingsFrom(env).strategy()).isEqualTo(CollectorStrategy.none);
  }

  @Test
  void theStandardHeadersVariableReachesTheCollector() throws Exception {
    Server server = plainGrpcCollector();
    try {
      Map<String, String> env =
          Map.of(
              "NE_TELEMETRY_COLLECTOR_STRATEGY",
              "external",
              "OTEL_EXPORTER_OTLP_ENDPOINT",
              "http://127.0.0.1:" + server.getPort(),
              "OTEL_EXPORTER_OTLP_HEADERS",
              "authorization=Bearer%20s3cret,x-tenant=shop");
      emitOneViolation(settingsFrom(env));
      await().atMost(Duration.ofSeconds(30)).until(this::receivedTheEvent);
      Metadata h = receivedHeaders.get(0);
      assertThat(h.get(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER)))
          .isEqualTo("Bearer s3cret");
      assertThat(h.get(Metadata.Key.of("x-tenant", Metadata.ASCII_STRING_MARSHALLER)))
          .isEqualTo("shop");
    } finally {
      server.shutdownNow();
    }
  }

  @Test
  void theLogsSignalVariablesWinAndBadValuesAreNamed() {
    TelemetrySettings s =
        settingsFrom(
            Map.of(
                "NE_TELEMETRY_COLLECTOR_STRATEGY",
                "external",
                "OTEL_EXPORTER_OTLP_ENDPOINT",
                "collector:4317",
                "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT",
                "logs-collector:4318",
                "OTEL_EXPORTER_OTLP_LOGS_PROTOCOL",
                "http/protobuf"));
    assertThat(s.effectiveEndpoint("x")).isEqualTo("https://logs-collector:4318");
    assertThat(s.protocol()).isEqualTo(OtlpProtocol.http);
    assertThatThrownBy(
            () ->
                settingsFrom(
                    Map.of(
                        "NE_TELEMETRY_COLLECTOR_STRATEGY",
                        "external",
                        "OTEL_EXPORTER_OTLP_ENDPOINT",
                        "collector")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("host:port");
    assertThatThrownBy(
            () ->
                settingsFrom(
                    Map.of(
                        "NE_TELEMETRY_COLLECTOR_STRATEGY",
                        "external",
                        "OTEL_EXPORTER_OTLP_ENDPOINT",
                        "collector:4317",
                        "OTEL_EXPORTER_OTLP_HEADERS",
                        "no-equals-sign")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("OTEL_EXPORTER_OTLP_HEADERS");
  }

  static MethodDescriptor<byte[], byte[]> exportMethod() {
    return MethodDescriptor.<byte[], byte[]>newBuilder()
        .setType(MethodDescriptor.MethodType.UNARY)
        .setFullMethodName(MethodDescriptor.generateFullMethodName(LOGS_SERVICE, "Export"))
        .setRequestMarshaller(new Bytes())
        .setResponseMarshaller(new Bytes())
        .build();
  }

  /** LogsService/Export: keeps the request, answers with an empty ExportLogsServiceResponse. */
  ServerCallHandler<byte[], byte[]> collector() {
    return new ServerCallHandler<byte[], byte[]>() {
      @Override
      public ServerCall.Listener<byte[]> startCall(
          ServerCall<byte[], byte[]> call, Metadata headers) {
        receivedHeaders.add(headers);
        call.request(1);
        return new ServerCall.Listener<byte[]>() {
          @Override
          public void onMessage(byte[] request) {
            received.add(request);
            call.sendHeaders(new Metadata());
            call.sendMessage(new byte[0]);
            call.close(Status.OK, new Metadata());
          }
        };
      }
    };
  }

  /** Raw bytes: the test collector does not decode the protobuf, it looks for the strings in it. */
  static final class Bytes implements MethodDescriptor.Marshaller<byte[]> {
    @Override
    public InputStream stream(byte[] value) {
      return new ByteArrayInputStream(value);
    }

    @Override
    public byte[] parse(InputStream stream) {
      try {
        return stream.readAllBytes();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
