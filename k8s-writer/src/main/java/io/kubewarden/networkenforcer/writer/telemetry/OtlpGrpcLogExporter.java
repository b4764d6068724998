package io.kubewarden.networkenforcer.writer.telemetry;

import io.grpc.CallOptions;
import io.grpc.ChannelCredentials;
import io.grpc.ClientCall;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.TlsChannelCredentials;
import io.opentelemetry.exporter.internal.marshal.Marshaler;
import io.opentelemetry.exporter.internal.otlp.logs.LogsRequestMarshaler;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.logs.data.LogRecordData;
import io.opentelemetry.sdk.logs.export.LogRecordExporter;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * OTLP/gRPC export of log records over grpc-java, the gRPC stack the product already runs (the
 * ingest's Hubble and Goldmane clients), instead of the OpenTelemetry exporter's own OkHttp client:
 * one HTTP/2 stack in the image. The request is the SDK's own OTLP encoding ({@code
 * LogsRequestMarshaler}), sent as {@code opentelemetry.proto.collector.logs.v1.LogsService/Export}.
 *
 * <p>{@code https://} endpoints use TLS, trusting {@code caFile} (or the JVM's CAs) and presenting
 * the client certificate when one is given; {@code http://} endpoints are plain text, as with the
 * OpenTelemetry exporter.
 */
final class OtlpGrpcLogExporter implements LogRecordExporter {
  private static final Logger LOG = LoggerFactory.getLogger(OtlpGrpcLogExporter.class);
  private static final long TIMEOUT_SECONDS = 10;
  private static final MethodDescriptor<Marshaler, Void> EXPORT =
      MethodDescriptor.<Marshaler, Void>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName("opentelemetry.proto.collector.logs.v1.LogsService/Export")
          .setRequestMarshaller(new OtlpRequest())
          .setResponseMarshaller(new IgnoredResponse())
          .build();

  private final ManagedChannel channel;
  private final String endpoint;
  private final Map<String, String> headers;

  OtlpGrpcLogExporter(TelemetrySettings settings, String endpoint) {
    URI uri = URI.create(endpoint);
    if (uri.getHost() == null) {
      throw new IllegalArgumentException("OTLP gRPC endpoint needs a host: " + endpoint);
    }
    int port = uri.getPort() >= 0 ? uri.getPort() : "http".equals(uri.getScheme()) ? 80 : 443;
    this.endpoint = endpoint;
    this.headers = settings.headers();
    this.channel =
        Grpc.newChannelBuilderForAddress(uri.getHost(), port, credentials(settings, uri)).build();
  }

  private static ChannelCredentials credentials(TelemetrySettings s, URI uri) {
    if ("http".equals(uri.getScheme())) {
      return InsecureChannelCredentials.create();
    }
    try {
      TlsChannelCredentials.Builder tls = TlsChannelCredentials.newBuilder();
      if (s.caFile() != null) {
        tls.trustManager(s.caFile().toFile());
      }
      if (s.certFile() != null) {
        // gRPC's PEM reader takes PKCS#8 only; cert-manager writes PKCS#1 (RSA) or SEC1 (EC).
        tls.keyManager(
            new ByteArrayInputStream(Files.readAllBytes(s.certFile())),
            new ByteArrayInputStream(s.clientKeyPkcs8()));
      }
      return tls.build();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read telemetry TLS files", e);
    }
  }

  @Override
  public CompletableResultCode export(Collection<LogRecordData> logs) {
    CompletableResultCode result = new CompletableResultCode();
    Metadata metadata = new Metadata();
    headers.forEach(
        (k, v) -> metadata.put(Metadata.Key.of(k, Metadata.ASCII_STRING_MARSHALLER), v));
    ClientCall<Marshaler, Void> call =
        channel.newCall(
            EXPORT, CallOptions.DEFAULT.withDeadlineAfter(TIMEOUT_SECONDS, TimeUnit.SECONDS));
    call.start(
        new ClientCall.Listener<>() {
          @Override
          public void onClose(Status status, Metadata trailers) {
            if (status.isOk()) {
              result.succeed();
            } else {
              LOG.warn(
                  "the collector at {} refused {} telemetry events: {} {}",
                  endpoint,
                  logs.size(),
                  status.getCode(),
                  status.getDescription() == null ? "" : status.getDescription());
              result.fail();
            }
          }
        },
        metadata);
    call.request(1);
    call.sendMessage(LogsRequestMarshaler.create(logs));
    call.halfClose();
    return result;
  }

  @Override
  public CompletableResultCode flush() {
    return CompletableResultCode.ofSuccess();
  }

  @Override
  public CompletableResultCode shutdown() {
    channel.shutdown();
    try {
      if (!channel.awaitTermination(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        channel.shutdownNow();
      }
    } catch (InterruptedException e) {
      channel.shutdownNow();
      Thread.currentThread().interrupt();
    }
    return CompletableResultCode.ofSuccess();
  }

  /** The request in the SDK's own OTLP protobuf encoding. */
  private static final class OtlpRequest implements MethodDescriptor.Marshaller<Marshaler> {
    @Override
    public InputStream stream(Marshaler request) {
      ByteArrayOutputStream out = new ByteArrayOutputStream(request.getBinarySerializedSize());
      try {
        request.writeBinaryTo(out);
      } catch (IOException e) {
        throw new UncheckedIOException("could not encode telemetry events", e);
      }
      return new ByteArrayInputStream(out.toByteArray());
    }

    @Override
    public Marshaler parse(InputStream stream) {
      throw new UnsupportedOperationException("the writer only sends export requests");
    }
  }

  /** The collector's answer is not read: the call's status says whether the events were taken. */
  private static final class IgnoredResponse implements MethodDescriptor.Marshaller<Void> {
    @Override
    public InputStream stream(Void value) {
      throw new UnsupportedOperationException("the writer only receives export responses");
    }

    @Override
    public Void parse(InputStream stream) {
      try {
        stream.transferTo(OutputStream.nullOutputStream());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return null;
    }
  }
}
