package io.kubewarden.networkenforcer.ingest.goldmane;

import com.google.protobuf.InvalidProtocolBufferException;
import io.grpc.MethodDescriptor;
import io.grpc.protobuf.ProtoUtils;
import io.kubewarden.networkenforcer.common.config.ConfigException;
import io.kubewarden.networkenforcer.common.retry.Backoff;
import io.kubewarden.networkenforcer.ingest.parsing.ParseOutcome;
import io.kubewarden.networkenforcer.ingest.proto.goldmane.Action;
import io.kubewarden.networkenforcer.ingest.proto.goldmane.Filter;
import io.kubewarden.networkenforcer.ingest.proto.goldmane.FlowResult;
import io.kubewarden.networkenforcer.ingest.proto.goldmane.FlowStreamRequest;
import io.kubewarden.networkenforcer.ingest.proto.goldmane.FlowsGrpc;
import io.kubewarden.networkenforcer.ingest.publishing.FlowIntake;
import io.kubewarden.networkenforcer.ingest.publishing.ProtoJson;
import io.kubewarden.networkenforcer.ingest.resolution.WorkloadResolver;
import io.kubewarden.networkenforcer.ingest.transport.ClientTls;
import io.kubewarden.networkenforcer.ingest.transport.GrpcChannels;
import io.kubewarden.networkenforcer.ingest.transport.RawBytes;
import io.kubewarden.networkenforcer.ingest.transport.ReconnectingStream;
import io.kubewarden.networkenforcer.ingest.transport.StreamSettings;
import io.kubewarden.networkenforcer.ingest.transport.TlsMaterialLoader;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Follows Goldmane's {@code Flows.Stream} (allowed and denied flows) over mutual TLS. */
public final class GoldmaneSource implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(GoldmaneSource.class);
  public static final String SOURCE = "goldmane";

  static final MethodDescriptor<FlowStreamRequest, byte[]> STREAM =
      MethodDescriptor.<FlowStreamRequest, byte[]>newBuilder()
          .setType(MethodDescriptor.MethodType.SERVER_STREAMING)
          .setFullMethodName(FlowsGrpc.getStreamMethod().getFullMethodName())
          .setRequestMarshaller(ProtoUtils.marshaller(FlowStreamRequest.getDefaultInstance()))
          .setResponseMarshaller(RawBytes.INSTANCE)
          .build();

  /** Allowed and denied flows only. */
  private static final Filter ACTIONS =
      Filter.newBuilder().addActions(Action.Allow).addActions(Action.Deny).build();

  private final ClientTls clientTls;
  private final ReconnectingStream<FlowStreamRequest> stream;
  private final GoldmaneFlowParser parser;
  private final FlowIntake intake;

  /** Start of the newest 15 s bucket seen: a resumed stream asks for the buckets after it. */
  private volatile long lastBucketStart;

  public GoldmaneSource(
      StreamSettings settings,
      TlsMaterialLoader tls,
      WorkloadResolver resolver,
      FlowIntake intake,
      Clock clock) {
    if (settings.tls().isInsecure()) {
      throw new ConfigException(
          "Goldmane only accepts mutual TLS: controller.provider.calico.tls.mode cannot be "
              + "insecure; use existingSecret (the default, Secret calico-system/goldmane-key-pair) or issuer");
    }
    this.parser = new GoldmaneFlowParser(resolver, clock);
    this.intake = intake;
    LOG.info(
        "goldmane: following Flows.Stream on {} with TLS {}",
        settings.target(),
        settings.tls().describe());
    this.clientTls = new ClientTls(tls, settings.tls(), GrpcChannels.TLS_RELOAD_PERIOD);
    this.stream =
        new ReconnectingStream<>(
            SOURCE,
            "Goldmane " + settings.target() + " (--goldmane-endpoint, NE_GOLDMANE_ENDPOINT)",
            () ->
                GrpcChannels.open(
                    settings.target(), settings.tls(), clientTls.get(), settings.keepalive()),
            STREAM,
            this::request,
            this::handle,
            new Backoff(settings.initialBackoff(), settings.maxBackoff(), new SecureRandom()),
            intake.metrics());
  }

  /**
   * Where the first request starts instead of "now": a restart resumes what it published last. The
   * request asks for buckets after this one, so the bucket of {@code time} itself is asked too.
   */
  public void resumeFrom(Instant time) {
    lastBucketStart = time.getEpochSecond() - 1;
  }

  public void start() {
    stream.start();
  }

  public boolean isReady() {
    return stream.isReady();
  }

  public long connects() {
    return stream.connects();
  }

  /** From now (start_time_gte 0); after a break, from the bucket after the last one seen. */
  FlowStreamRequest request() {
    long last = lastBucketStart;
    return FlowStreamRequest.newBuilder()
        .setStartTimeGte(last > 0 ? last + 1 : 0)
        .setFilter(ACTIONS)
        .build();
  }

  void handle(byte[] message) {
    FlowResult result;
    try {
      result = FlowResult.parseFrom(message);
    } catch (InvalidProtocolBufferException e) {
      intake.invalid(SOURCE, "not a FlowResult: " + e.getMessage(), message, e);
      return;
    }
    ParseOutcome outcome;
    try {
      outcome = parser.parse(result);
    } catch (RuntimeException e) {
      intake.invalid(SOURCE, "cannot read flow: " + e.getMessage(), message, e);
      return;
    }
    if (result.hasFlow() && result.getFlow().getStartTime() > lastBucketStart) {
      lastBucketStart = result.getFlow().getStartTime();
    }
    intake.accept(SOURCE, outcome, () -> ProtoJson.print(result));
  }

  @Override
  public void close() {
    stream.close();
    clientTls.close();
  }
}
