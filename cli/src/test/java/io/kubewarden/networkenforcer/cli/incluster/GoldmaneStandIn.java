package io.kubewarden.networkenforcer.cli.incluster;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.ClientAuth;
import io.grpc.stub.StreamObserver;
import io.kubewarden.networkenforcer.ingest.goldmane.GoldmaneJson;
import io.kubewarden.networkenforcer.ingest.proto.goldmane.Action;
import io.kubewarden.networkenforcer.ingest.proto.goldmane.FlowResult;
import io.kubewarden.networkenforcer.ingest.proto.goldmane.FlowStreamRequest;
import io.kubewarden.networkenforcer.ingest.proto.goldmane.FlowsGrpc;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Stands in for Calico's Goldmane: the real {@code goldmane.Flows/Stream} over mutual TLS (client
 * certificates must be signed by the CA, as Goldmane's {@code RequireAndVerifyClientCert}), serving
 * a recorded capture of 15 s buckets. A call from now ({@code start_time_gte} 0) gets the capture
 * as the buckets that close after it opened; a call with a start time gets the capture's buckets
 * from it on, as Goldmane backfills from its ring buffer; either stream then stays open. The
 * request's action filter is honoured.
 */
final class GoldmaneStandIn implements AutoCloseable {
  private final List<FlowResult> capture;
  private final List<FlowStreamRequest> requests = new CopyOnWriteArrayList<>();
  private final List<AtomicInteger> sentPerCall = new CopyOnWriteArrayList<>();
  private final Server server;

  private GoldmaneStandIn(List<FlowResult> capture, NettyServerBuilder builder) throws IOException {
    this.capture = List.copyOf(capture);
    this.server = builder.addService(new Flows()).build().start();
  }

  /**
   * Serves the capture ({@code FlowResult} or bare {@code Flow} JSON lines) on a free port of that
   * address with Goldmane's key pair ({@code key} in PKCS#8), trusting clients of {@code ca}.
   */
  static GoldmaneStandIn serve(
      List<String> captureLines, String address, Path certificate, Path key, Path ca)
      throws IOException {
    ObjectMapper json = new ObjectMapper();
    List<FlowResult> capture = new ArrayList<>();
    for (String line : captureLines) {
      if (!line.isBlank()) {
        capture.add(GoldmaneJson.decode(line, json.readTree(line)));
      }
    }
    var tls =
        GrpcSslContexts.forServer(certificate.toFile(), key.toFile())
            .trustManager(ca.toFile())
            .clientAuth(ClientAuth.REQUIRE)
            .build();
    return new GoldmaneStandIn(
        capture, NettyServerBuilder.forAddress(new InetSocketAddress(address, 0)).sslContext(tls));
  }

  int port() {
    return server.getPort();
  }

  /** How many Stream calls were opened: one unless the client had to resume. */
  int calls() {
    return requests.size();
  }

  /** The {@code start_time_gte} of call {@code index} (0 first): 0 from now, else unix seconds. */
  long startTimeGte(int index) {
    return requests.get(index).getStartTimeGte();
  }

  /** How many of the capture's flows went out on call {@code index}. */
  int flowsSent(int index) {
    return sentPerCall.get(index).get();
  }

  /** How many flows went out, over all calls. */
  int flowsSent() {
    return sentPerCall.stream().mapToInt(AtomicInteger::get).sum();
  }

  /** How many flows the capture holds. */
  int capturedFlows() {
    return (int) capture.stream().filter(FlowResult::hasFlow).count();
  }

  private final class Flows extends FlowsGrpc.FlowsImplBase {
    @Override
    public void stream(FlowStreamRequest request, StreamObserver<FlowResult> out) {
      AtomicInteger sent = new AtomicInteger();
      sentPerCall.add(sent);
      requests.add(request);
      List<Action> actions = request.getFilter().getActionsList();
      for (FlowResult result : capture) {
        boolean inWindow =
            request.getStartTimeGte() <= 0
                || result.getFlow().getStartTime() >= request.getStartTimeGte();
        boolean wanted =
            actions.isEmpty() || actions.contains(result.getFlow().getKey().getAction());
        if (inWindow && wanted) {
          out.onNext(result);
          sent.incrementAndGet();
        }
      }
      // The stream stays open until the client or the server ends it.
    }
  }

  @Override
  public void close() throws InterruptedException {
    server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
  }
}
