package io.kubewarden.networkenforcer.writer.telemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsExchange;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.TlsServerCredentials;
import io.kubewarden.networkenforcer.writer.Fixtures;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import io.kubewarden.networkenforcer.writer.status.SourcedObservation;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.net.ssl.SSLParameters;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The events leave over OTLP with mutual TLS from PEM files, over HTTP and over gRPC. */
class TelemetryExportTest {
  static final String LOGS_SERVICE = "opentelemetry.proto.collector.logs.v1.LogsService";

  @TempDir
  Path dir;
  TestPki pki;
  Path ca;
  Path serverCert;
  Path serverKey;
  Path clientCert;
  Path clientKey;
  final List<byte[]> received = new CopyOnWriteArrayList<>();
  final List<String> clientNames = new CopyOnWriteArrayList<>();

  @BeforeEach
  void certificates() {
    pki = new TestPki();
    ca = TestPki.writePem(dir, "ca.pem", "CERTIFICATE", TestPki.der(pki.ca));
    serverCert = TestPki.writePem(dir, "server.pem", "CERTIFICATE", TestPki.der(pki.server));
    serverKey = TestPki.writePem(dir, "server-key.pem", "PRIVATE KEY", pki.serverKeys.getPrivate().getEncoded());
    clientCert = TestPki.writePem(dir, "client.pem", "CERTIFICATE", TestPki.der(pki.client));
    clientKey = TestPki.writePem(dir, "client-key.pem", "PRIVATE KEY", pki.clientKeys.getPrivate().getEncoded());
  }

  void emitOneViolation(TelemetrySettings settings) {
    try (TelemetryExport export = TelemetryExport.create(settings.validate(), "network-enforcer")) {
      new ViolationEvents(export.provider()).observed(
          SourcedObservation.unsourced(Fixtures.violation("api", "web", 8080, Instant.now())));
    } // close() flushes the batch
  }

  boolean receivedTheEvent() {
    return received.stream().map(b -> new String(b, StandardCharsets.ISO_8859_1))
        .anyMatch(s -> s.contains("policy_violation_observed") && s.contains("destination.port")
            && s.contains("network-enforcer"));
  }

  @Test
  void otlpHttpWithMutualTls() throws Exception {
    HttpsServer server = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setHttpsConfigurator(new HttpsConfigurator(pki.serverContext()) {
      @Override
      public void configure(HttpsParameters params) {
        SSLParameters p = getSSLContext().getDefaultSSLParameters();
        p.setNeedClientAuth(true);
        params.setSSLParameters(p);
      }
    });
    server.createContext("/v1/logs", exchange -> {
      received.add(exchange.getRequestBody().readAllBytes());
      clientNames.add(((HttpsExchange) exchange).getSSLSession().getPeerPrincipal().getName());
      exchange.getResponseHeaders().add("Content-Type", "application/x-protobuf");
      exchange.sendResponseHeaders(200, -1);
      exchange.close();
    });
    server.start();
    try {
      emitOneViolation(new TelemetrySettings(CollectorStrategy.external,
          "https://127.0.0.1:" + server.getAddress().getPort(), OtlpProtocol.http, ca, clientCert, clientKey));
      await().atMost(Duration.ofSeconds(30)).until(this::receivedTheEvent);
      assertThat(clientNames).contains("CN=network-enforcer-writer");
    } finally {
      server.stop(0);
    }
  }

  @Test
  void otlpGrpcWithMutualTls() throws Exception {
    MethodDescriptor<byte[], byte[]> export = exportMethod();
    ServerServiceDefinition service = ServerServiceDefinition.builder(LOGS_SERVICE)
        .addMethod(export, collector()).build();
    Server server = Grpc.newServerBuilderForPort(0, TlsServerCredentials.newBuilder()
            .keyManager(serverCert.toFile(), serverKey.toFile()).trustManager(ca.toFile())
            .clientAuth(TlsServerCredentials.ClientAuth.REQUIRE).build())
        .addService(service).build().start();
    try {
      emitOneViolation(new TelemetrySettings(CollectorStrategy.external, "https://localhost:" + server.getPort(),
          OtlpProtocol.grpc, ca, clientCert, clientKey));
      await().atMost(Duration.ofSeconds(30)).until(this::receivedTheEvent);
    } finally {
      server.shutdownNow();
    }
  }

  @Test
  void withoutTheClientCertificateTheCollectorRefusesTheEvents() throws Exception {
    Server server = Grpc.newServerBuilderForPort(0, TlsServerCredentials.newBuilder()
            .keyManager(serverCert.toFile(), serverKey.toFile()).trustManager(ca.toFile())
            .clientAuth(TlsServerCredentials.ClientAuth.REQUIRE).build())
        .addService(ServerServiceDefinition.builder(LOGS_SERVICE).addMethod(exportMethod(), collector()).build())
        .build().start();
    try {
      // TLS without a client certificate: the handshake fails, nothing arrives, nothing breaks.
      emitOneViolation(new TelemetrySettings(CollectorStrategy.external, "https://localhost:" + server.getPort(),
          OtlpProtocol.grpc, ca, null, null));
      assertThat(received).isEmpty();
    } finally {
      server.shutdownNow();
    }
  }

  static MethodDescriptor<byte[], byte[]> exportMethod() {
    return MethodDescriptor.<byte[], byte[]>newBuilder()
        .setType(MethodDescriptor.MethodType.UNARY)
        .setFullMethodName(MethodDescriptor.generateFullMethodName(LOGS_SERVICE, "Export"))
        .setRequestMarshaller(new Bytes()).setResponseMarshaller(new Bytes()).build();
  }

  /** LogsService/Export: keeps the request, answers with an empty ExportLogsServiceResponse. */
  ServerCallHandler<byte[], byte[]> collector() {
    return new ServerCallHandler<byte[], byte[]>() {
      @Override
      public ServerCall.Listener<byte[]> startCall(ServerCall<byte[], byte[]> call, Metadata headers) {
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
