package io.kubewarden.networkenforcer.ingest.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.kubewarden.networkenforcer.common.retry.Backoff;
import io.kubewarden.networkenforcer.ingest.proto.hubble.observer.GetFlowsRequest;
import io.kubewarden.networkenforcer.ingest.publishing.IngestMetrics;
import io.kubewarden.networkenforcer.testing.TestCertificates;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Readiness of the provider stream against a real gRPC server over mutual TLS: ready means the
 * server took the call (headers, a first message, or the call held open past the grace), not that a
 * call was started on a connected channel. A restarted ingest said Ready before its stream was
 * back; a refused call must never count.
 */
class ReconnectingStreamReadinessTest {
  private static final String METHOD = "observer.Observer/GetFlows";
  private static final Duration LONG_GRACE = Duration.ofHours(1);

  @TempDir Path dir;

  private final List<byte[]> received = new CopyOnWriteArrayList<>();
  private Path serverCerts;
  private Path clientCerts;
  private Server server;
  private ClientTls clientTls;
  private ReconnectingStream<GetFlowsRequest> stream;

  @BeforeEach
  void certificates() throws Exception {
    TestCertificates ca = TestCertificates.newCa("relay-ca");
    serverCerts = ca.issue(dir.resolve("server"), "relay", List.of("localhost"), List.of(), false);
    clientCerts = ca.issue(dir.resolve("client"), "ingest", List.of(), List.of(), true);
  }

  @AfterEach
  void stop() {
    if (stream != null) {
      stream.close();
    }
    if (clientTls != null) {
      clientTls.close();
    }
    if (server != null) {
      server.shutdownNow();
    }
  }

  @Test
  void aCallTheServerHoldsSilentlyIsNotReadyUntilItsFirstMessage() throws Exception {
    ScriptedStreamService<GetFlowsRequest> relay =
        new ScriptedStreamService<>(
            "observer.Observer", METHOD, GetFlowsRequest.getDefaultInstance());
    server = TestServers.mutualTls(serverCerts, relay.definition());
    start(LONG_GRACE);

    StreamObserver<byte[]> first = relay.nextCall();
    // The server has the call and the channel is connected: the old readiness said Ready here.
    assertThat(stream.isReady()).as("ready before the server answered").isFalse();
    first.onNext(new byte[] {1});
    await().atMost(Duration.ofSeconds(20)).until(stream::isReady);
    assertThat(stream.subscribes()).isEqualTo(1);

    // A break: not ready again until the new call is answered.
    first.onError(Status.UNAVAILABLE.withDescription("relay restarting").asRuntimeException());
    StreamObserver<byte[]> second = relay.nextCall();
    assertThat(stream.isReady()).as("ready on the resumed call before its answer").isFalse();
    assertThat(stream.connects()).isEqualTo(2);
    second.onNext(new byte[] {2});
    await().atMost(Duration.ofSeconds(20)).until(stream::isReady);
    assertThat(stream.subscribes()).isEqualTo(2);
    assertThat(received).hasSize(2);
  }

  @Test
  void responseHeadersWithoutAMessageMakeTheStreamReady() throws Exception {
    MethodDescriptor<GetFlowsRequest, byte[]> method = method();
    ServerCallHandler<GetFlowsRequest, byte[]> headersOnly =
        new ServerCallHandler<>() {
          @Override
          public ServerCall.Listener<GetFlowsRequest> startCall(
              ServerCall<GetFlowsRequest, byte[]> call, Metadata headers) {
            call.sendHeaders(new Metadata());
            call.request(1);
            return new ServerCall.Listener<>() {};
          }
        };
    server =
        TestServers.mutualTls(
            serverCerts,
            ServerServiceDefinition.builder("observer.Observer")
                .addMethod(method, headersOnly)
                .build());
    start(LONG_GRACE);

    await().atMost(Duration.ofSeconds(20)).until(stream::isReady);
    assertThat(stream.subscribes()).isEqualTo(1);
    assertThat(received).isEmpty();
  }

  @Test
  void aCallTheServerRefusesNeverCountsAsSubscribed() throws Exception {
    AtomicInteger refused = new AtomicInteger();
    server =
        TestServers.mutualTls(
            serverCerts,
            ServerServiceDefinition.builder("observer.Observer")
                .addMethod(
                    method(),
                    ServerCalls.asyncServerStreamingCall(
                        (GetFlowsRequest request, StreamObserver<byte[]> out) -> {
                          refused.incrementAndGet();
                          out.onError(
                              Status.PERMISSION_DENIED
                                  .withDescription("not on the list")
                                  .asRuntimeException());
                        }))
                .build());
    start(LONG_GRACE);

    await().atMost(Duration.ofSeconds(30)).until(() -> refused.get() >= 3);
    assertThat(stream.isReady()).isFalse();
    assertThat(stream.subscribes()).as("calls counted as taken").isZero();
  }

  @Test
  void aCallHeldOpenSilentlyCountsAsSubscribedAfterTheGrace() throws Exception {
    ScriptedStreamService<GetFlowsRequest> quiet =
        new ScriptedStreamService<>(
            "observer.Observer", METHOD, GetFlowsRequest.getDefaultInstance());
    server = TestServers.mutualTls(serverCerts, quiet.definition());
    start(Duration.ofMillis(200));

    quiet.nextCall();
    await().atMost(Duration.ofSeconds(20)).until(stream::isReady);
    assertThat(stream.subscribes()).isEqualTo(1);
    assertThat(stream.connects()).isEqualTo(1);
    assertThat(received).isEmpty();
  }

  private void start(Duration grace) {
    TlsSettings tls = TlsSettings.fromDirectory(TlsMode.existingSecret, clientCerts, "localhost");
    clientTls = new ClientTls(new TlsMaterialLoader(null), tls, GrpcChannels.TLS_RELOAD_PERIOD);
    stream =
        new ReconnectingStream<>(
                "hubble",
                () ->
                    GrpcChannels.open(
                        "localhost:" + server.getPort(),
                        tls,
                        clientTls.get(),
                        Keepalive.grpcGoCompatible()),
                method(),
                () -> GetFlowsRequest.newBuilder().setFollow(true).build(),
                received::add,
                new Backoff(Duration.ofMillis(50), Duration.ofMillis(400)),
                new IngestMetrics(new SimpleMeterRegistry()))
            .subscribeGrace(grace);
    stream.start();
  }

  private static MethodDescriptor<GetFlowsRequest, byte[]> method() {
    return MethodDescriptor.<GetFlowsRequest, byte[]>newBuilder()
        .setType(MethodDescriptor.MethodType.SERVER_STREAMING)
        .setFullMethodName(METHOD)
        .setRequestMarshaller(ProtoUtils.marshaller(GetFlowsRequest.getDefaultInstance()))
        .setResponseMarshaller(RawBytes.INSTANCE)
        .build();
  }
}
