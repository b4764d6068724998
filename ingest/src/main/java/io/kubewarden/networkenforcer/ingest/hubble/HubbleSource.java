package io.kubewarden.networkenforcer.ingest.hubble;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Timestamp;
import com.google.protobuf.util.Timestamps;
import io.grpc.MethodDescriptor;
import io.grpc.protobuf.ProtoUtils;
import io.kubewarden.networkenforcer.common.retry.Backoff;
import io.kubewarden.networkenforcer.ingest.parsing.ParseOutcome;
import io.kubewarden.networkenforcer.ingest.proto.hubble.observer.GetFlowsRequest;
import io.kubewarden.networkenforcer.ingest.proto.hubble.observer.GetFlowsResponse;
import io.kubewarden.networkenforcer.ingest.proto.hubble.observer.ObserverGrpc;
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

/**
 * Follows Hubble's {@code GetFlows} stream, Relay's (every node) or, node-local, the agent's of
 * this node only, and feeds every response to the intake.
 */
public final class HubbleSource implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(HubbleSource.class);
  public static final String SOURCE = "hubble";

  /**
   * GetFlows with the responses left as bytes: we decode them and dead-letter what does not decode.
   */
  static final MethodDescriptor<GetFlowsRequest, byte[]> GET_FLOWS =
      MethodDescriptor.<GetFlowsRequest, byte[]>newBuilder()
          .setType(MethodDescriptor.MethodType.SERVER_STREAMING)
          .setFullMethodName(ObserverGrpc.getGetFlowsMethod().getFullMethodName())
          .setRequestMarshaller(ProtoUtils.marshaller(GetFlowsRequest.getDefaultInstance()))
          .setResponseMarshaller(RawBytes.INSTANCE)
          .build();

  private final ClientTls clientTls;
  private final ReconnectingStream<GetFlowsRequest> stream;
  private final HubbleFlowParser parser;
  private final FlowIntake intake;

  /** The time of the newest flow seen: a resumed stream asks Relay for flows since then. */
  private volatile Timestamp lastFlowTime;

  public HubbleSource(
      StreamSettings settings,
      TlsMaterialLoader tls,
      WorkloadResolver resolver,
      FlowIntake intake,
      Clock clock) {
    this(settings, null, tls, resolver, intake, clock);
  }

  /**
   * @param nodeLocal the node whose Hubble server {@code settings} point at, or null for Relay
   */
  public HubbleSource(
      StreamSettings settings,
      NodeLocalHubble nodeLocal,
      TlsMaterialLoader tls,
      WorkloadResolver resolver,
      FlowIntake intake,
      Clock clock) {
    this.parser =
        new HubbleFlowParser(resolver, clock, nodeLocal == null ? null : nodeLocal.clusterName());
    this.intake = intake;
    LOG.info(
        "hubble: following GetFlows on {} with TLS {}{}",
        settings.target(),
        settings.tls().describe(),
        nodeLocal == null ? "" : " (node-local: node " + nodeLocal.nodeName() + " only)");
    this.clientTls = new ClientTls(tls, settings.tls(), GrpcChannels.TLS_RELOAD_PERIOD);
    this.stream =
        new ReconnectingStream<>(
            SOURCE,
            nodeLocal == null
                ? "Hubble Relay " + settings.target() + " (--hubble-endpoint, NE_HUBBLE_ENDPOINT)"
                : "the Hubble server of node "
                    + nodeLocal.nodeName()
                    + " at "
                    + settings.target()
                    + " (--node-ip, NE_NODE_IP; --hubble-node-port)",
            () ->
                GrpcChannels.open(
                    settings.target(), settings.tls(), clientTls.get(), settings.keepalive()),
            GET_FLOWS,
            this::request,
            this::handle,
            new Backoff(settings.initialBackoff(), settings.maxBackoff(), new SecureRandom()),
            intake.metrics());
  }

  /** Where the first request starts instead of "now": a restart resumes what it published last. */
  public void resumeFrom(Instant time) {
    lastFlowTime = Timestamps.fromMillis(time.toEpochMilli());
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

  /**
   * Follow from now; after a break, from the last flow seen, so nothing in Relay's buffer is
   * missed. The flows seen twice that way are dropped as duplicate reports by the parser.
   */
  GetFlowsRequest request() {
    GetFlowsRequest.Builder b = GetFlowsRequest.newBuilder().setFollow(true);
    Timestamp since = lastFlowTime;
    if (since != null) {
      b.setSince(since);
    }
    return b.build();
  }

  void handle(byte[] message) {
    GetFlowsResponse response;
    try {
      response = GetFlowsResponse.parseFrom(message);
    } catch (InvalidProtocolBufferException e) {
      intake.invalid(SOURCE, "not a GetFlowsResponse: " + e.getMessage(), message, e);
      return;
    }
    ParseOutcome outcome;
    try {
      outcome = parser.parse(response);
    } catch (RuntimeException e) {
      intake.invalid(SOURCE, "cannot read flow: " + e.getMessage(), message, e);
      return;
    }
    if (response.hasFlow() && response.getFlow().hasTime()) {
      Timestamp t = response.getFlow().getTime();
      Timestamp last = lastFlowTime;
      if (last == null || Timestamps.compare(t, last) > 0) {
        lastFlowTime = t;
      }
    }
    intake.accept(SOURCE, outcome, () -> ProtoJson.print(response));
  }

  @Override
  public void close() {
    stream.close();
    clientTls.close();
  }
}
