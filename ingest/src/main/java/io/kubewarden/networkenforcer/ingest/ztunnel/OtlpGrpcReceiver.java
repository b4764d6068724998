package io.kubewarden.networkenforcer.ingest.ztunnel;

import com.google.protobuf.InvalidProtocolBufferException;
import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerCredentials;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.TlsServerCredentials;
import io.grpc.stub.ServerCalls;
import io.kubewarden.networkenforcer.ingest.proto.otlp.collector.LogsServiceGrpc;
import io.kubewarden.networkenforcer.ingest.transport.ClientIdentity;
import io.kubewarden.networkenforcer.ingest.transport.RawBytes;
import io.kubewarden.networkenforcer.ingest.transport.ServerTls;
import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The OTLP logs gRPC server ({@code LogsService/Export}). Requests arrive as bytes and are decoded
 * by us, so that an undecodable request is dead-lettered and answered INVALID_ARGUMENT (which
 * fluent-bit does not retry) instead of vanishing inside the framework.
 */
public final class OtlpGrpcReceiver implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(OtlpGrpcReceiver.class);
  private static final int MAX_REQUEST_BYTES = 16 * 1024 * 1024;

  static final MethodDescriptor<byte[], byte[]> EXPORT =
      MethodDescriptor.<byte[], byte[]>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName(LogsServiceGrpc.getExportMethod().getFullMethodName())
          .setRequestMarshaller(RawBytes.INSTANCE)
          .setResponseMarshaller(RawBytes.INSTANCE)
          .build();

  private final Server server;

  /**
   * @param tls null for plaintext (h2c, as fluent-bit 4+ speaks with {@code grpc on})
   * @param client with TLS, the only client certificate name accepted (calls of others end
   *     PERMISSION_DENIED before they are read)
   */
  public OtlpGrpcReceiver(
      int port, ServerTls tls, ClientIdentity client, OtlpLogIngestor ingestor) {
    if (tls != null && client == null) {
      throw new IllegalArgumentException(
          "a TLS receiver needs the name of the one client it accepts");
    }
    ServerServiceDefinition service =
        ServerServiceDefinition.builder(LogsServiceGrpc.SERVICE_NAME)
            .addMethod(
                EXPORT,
                ServerCalls.asyncUnaryCall(
                    (request, response) -> {
                      try {
                        response.onNext(ingestor.export(request).toByteArray());
                        response.onCompleted();
                      } catch (InvalidProtocolBufferException e) {
                        response.onError(
                            Status.INVALID_ARGUMENT
                                .withDescription(
                                    "not an OTLP ExportLogsServiceRequest: " + e.getMessage())
                                .asRuntimeException());
                      } catch (NotPublishedException e) {
                        // Retryable for OTLP senders: the export is sent again.
                        response.onError(
                            Status.UNAVAILABLE
                                .withDescription(e.getMessage())
                                .asRuntimeException());
                      }
                    }))
            .build();
    ServerCredentials credentials;
    if (tls == null) {
      credentials = InsecureServerCredentials.create();
    } else {
      // ServerTls refuses to start without a CA, so every client shows a certificate of it.
      credentials =
          TlsServerCredentials.newBuilder()
              .keyManager(tls.keyManager())
              .trustManager(tls.trustManager())
              .clientAuth(TlsServerCredentials.ClientAuth.REQUIRE)
              .build();
    }
    this.server =
        Grpc.newServerBuilderForPort(port, credentials)
            .maxInboundMessageSize(MAX_REQUEST_BYTES)
            .addService(
                tls == null
                    ? service
                    : ServerInterceptors.intercept(service, new OnlyClient(client)))
            .build();
  }

  /** Ends every call whose TLS client certificate does not carry the pinned name. */
  private record OnlyClient(ClientIdentity client) implements ServerInterceptor {
    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(
        ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
      Optional<String> refusal =
          client.refusal(call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION));
      if (refusal.isPresent()) {
        LOG.warn("OTLP call refused: {}", refusal.get());
        call.close(Status.PERMISSION_DENIED.withDescription(refusal.get()), new Metadata());
        return new ServerCall.Listener<>() {};
      }
      return next.startCall(call, headers);
    }
  }

  public OtlpGrpcReceiver start() throws IOException {
    server.start();
    return this;
  }

  public int port() {
    return server.getPort();
  }

  public boolean isRunning() {
    return !server.isShutdown();
  }

  @Override
  public void close() {
    server.shutdown();
    try {
      if (!server.awaitTermination(5, TimeUnit.SECONDS)) {
        server.shutdownNow();
      }
    } catch (InterruptedException e) {
      server.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }
}
