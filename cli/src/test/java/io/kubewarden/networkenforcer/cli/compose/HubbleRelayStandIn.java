package io.kubewarden.networkenforcer.cli.compose;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.ClientAuth;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.kubewarden.networkenforcer.ingest.hubble.HubbleJson;
import io.kubewarden.networkenforcer.ingest.proto.hubble.observer.GetFlowsRequest;
import io.kubewarden.networkenforcer.ingest.proto.hubble.observer.GetFlowsResponse;
import io.kubewarden.networkenforcer.ingest.proto.hubble.observer.ObserverGrpc;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Stands in for Hubble Relay: a plaintext gRPC Observer on one local address that answers {@code
 * GetFlows} with a capture ({@code hubble observe -o jsonpb} lines) and then, as Relay does with
 * {@code follow}, keeps the stream open. A resumed stream gets the flows after its {@code since}.
 */
public final class HubbleRelayStandIn implements AutoCloseable {
  private final List<GetFlowsResponse> capture;
  private final AtomicInteger calls = new AtomicInteger();
  private final AtomicInteger flowsSent = new AtomicInteger();

  /**
   * The open streams, for flows published after the capture (a cancelled one is dropped on the next
   * publish).
   */
  private final List<ServerCallStreamObserver<GetFlowsResponse>> streams =
      new CopyOnWriteArrayList<>();

  /** Per GetFlows call, in order: its request and how many captured flows went out on it. */
  private final List<GetFlowsRequest> requests = new CopyOnWriteArrayList<>();

  private final List<AtomicInteger> capturedSentPerCall = new CopyOnWriteArrayList<>();
  private final Server server;

  private HubbleRelayStandIn(List<GetFlowsResponse> capture, NettyServerBuilder builder)
      throws IOException {
    // Published records join it, as Relay's buffer keeps them, so a resumed stream gets them again.
    this.capture = new CopyOnWriteArrayList<>(capture);
    this.server = builder.addService(new Observer()).build().start();
  }

  /** Serves the capture file on that local address, on a free port. */
  public static HubbleRelayStandIn serve(Path captureFile, String address) {
    try {
      return new HubbleRelayStandIn(
          read(captureFile), NettyServerBuilder.forAddress(new InetSocketAddress(address, 0)));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot serve " + captureFile, e);
    }
  }

  /**
   * Serves the capture file over mutual TLS, as Relay does: its own certificate and key, and client
   * certificates must be signed by {@code clientCa}.
   */
  public static HubbleRelayStandIn serveTls(
      Path captureFile, String address, Path certificate, Path key, Path clientCa) {
    return serveTls(captureFile, address, 0, certificate, key, clientCa);
  }

  /**
   * As {@link #serveTls(Path, String, Path, Path, Path)} on a given port (0: a free one), e.g. a
   * relay served again.
   */
  public static HubbleRelayStandIn serveTls(
      Path captureFile, String address, int port, Path certificate, Path key, Path clientCa) {
    try {
      var tls =
          GrpcSslContexts.forServer(certificate.toFile(), key.toFile())
              .trustManager(clientCa.toFile())
              .clientAuth(ClientAuth.REQUIRE)
              .build();
      return new HubbleRelayStandIn(
          read(captureFile),
          NettyServerBuilder.forAddress(new InetSocketAddress(address, port)).sslContext(tls));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot serve " + captureFile, e);
    }
  }

  public int port() {
    return server.getPort();
  }

  /** How many GetFlows streams were opened: one unless the client had to resume. */
  public int calls() {
    return calls.get();
  }

  /**
   * The {@code since} of call {@code index} (0 first), null when it asked from now (not resumed).
   */
  public Instant since(int index) {
    GetFlowsRequest r = requests.get(index);
    return r.hasSince()
        ? Instant.ofEpochSecond(r.getSince().getSeconds(), r.getSince().getNanos())
        : null;
  }

  /** How many flows of the capture went out on call {@code index}. */
  public int capturedFlowsSent(int index) {
    return capturedSentPerCall.get(index).get();
  }

  /** How many flow records went out, over all streams. */
  public int flowsSent() {
    return flowsSent.get();
  }

  /** How many flow records the capture holds (node status and lost-event records aside). */
  public int capturedFlows() {
    return (int) capture.stream().filter(GetFlowsResponse::hasFlow).count();
  }

  int capturedResponses() {
    return capture.size();
  }

  /**
   * Sends one more record ({@code hubble observe -o jsonpb} line) on every open stream, as Relay
   * does when a new flow happens, and keeps it for streams opened later with a {@code since} before
   * it; returns on how many streams it went out.
   */
  public int publish(String jsonpbLine) {
    GetFlowsResponse response;
    try {
      response = HubbleJson.decode(jsonpbLine, new ObjectMapper().readTree(jsonpbLine));
    } catch (IOException e) {
      throw new UncheckedIOException("not a jsonpb record: " + jsonpbLine, e);
    }
    capture.add(response);
    int sent = 0;
    for (var stream : streams) {
      synchronized (stream) {
        try {
          stream.onNext(response);
        } catch (RuntimeException closed) {
          // The client went away (a restarted ingest opens a new stream).
          streams.remove(stream);
          continue;
        }
      }
      sent++;
      if (response.hasFlow()) {
        flowsSent.incrementAndGet();
      }
    }
    return sent;
  }

  private static List<GetFlowsResponse> read(Path file) throws IOException {
    ObjectMapper json = new ObjectMapper();
    List<GetFlowsResponse> responses = new ArrayList<>();
    for (String line : Files.readAllLines(file)) {
      if (!line.isBlank()) {
        JsonNode parsed = json.readTree(line);
        responses.add(HubbleJson.decode(line, parsed));
      }
    }
    return responses;
  }

  private final class Observer extends ObserverGrpc.ObserverImplBase {
    @Override
    public void getFlows(GetFlowsRequest request, StreamObserver<GetFlowsResponse> out) {
      AtomicInteger sentHere = new AtomicInteger();
      requests.add(request);
      capturedSentPerCall.add(sentHere);
      calls.incrementAndGet();
      if (out instanceof ServerCallStreamObserver<GetFlowsResponse> call) {
        streams.add(call);
      }
      // Held while the capture goes out, so a flow published meanwhile comes after it.
      synchronized (out) {
        for (GetFlowsResponse response : capture) {
          if (!request.hasSince() || !response.hasFlow() || isAfter(response, request)) {
            out.onNext(response);
            if (response.hasFlow()) {
              flowsSent.incrementAndGet();
              sentHere.incrementAndGet();
            }
          }
        }
      }
      // follow: the stream stays open until the client or the server ends it.
    }

    private boolean isAfter(GetFlowsResponse response, GetFlowsRequest request) {
      var time = response.getFlow().getTime();
      var since = request.getSince();
      return time.getSeconds() > since.getSeconds()
          || time.getSeconds() == since.getSeconds() && time.getNanos() > since.getNanos();
    }
  }

  @Override
  public void close() throws InterruptedException {
    server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
  }
}
