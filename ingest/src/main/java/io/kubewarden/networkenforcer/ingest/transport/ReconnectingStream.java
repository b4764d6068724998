package io.kubewarden.networkenforcer.ingest.transport;

import io.grpc.CallOptions;
import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ClientResponseObserver;
import io.kubewarden.networkenforcer.common.retry.Backoff;
import io.kubewarden.networkenforcer.ingest.publishing.IngestMetrics;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One server-streaming call kept open for as long as we run: when it fails or ends, the channel is
 * rebuilt (reloading certificates) and the call restarted after an exponential backoff with
 * jitter. Messages arrive as bytes for the caller to decode.
 */
public final class ReconnectingStream<Req> implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ReconnectingStream.class);

  private final String name;
  private final String where;
  private final Supplier<ManagedChannel> channels;
  private final MethodDescriptor<Req, byte[]> method;
  private final Supplier<Req> request;
  private final Consumer<byte[]> onMessage;
  private final Backoff backoff;
  private final IngestMetrics metrics;
  private final AtomicInteger up;
  private final ScheduledExecutorService scheduler;
  private final Object lock = new Object();
  private ManagedChannel channel;
  private ClientCallStreamObserver<Req> call;
  private volatile boolean streamOpen;
  private volatile boolean closed;
  private volatile long connects;

  /**
   * @param name the source name for logs and metrics ({@code hubble}, {@code goldmane})
   * @param channels builds a fresh channel (with freshly loaded certificates); may throw
   * @param request the request of each call: a resumed call can ask for what it missed
   */
  public ReconnectingStream(String name, Supplier<ManagedChannel> channels, MethodDescriptor<Req, byte[]> method,
      Supplier<Req> request, Consumer<byte[]> onMessage, Backoff backoff, IngestMetrics metrics) {
    this(name, name, channels, method, request, onMessage, backoff, metrics);
  }

  /**
   * @param where the peer and the setting that names it, for failure messages
   *     ({@code Hubble Relay localhost:4245 (--hubble-endpoint)})
   */
  public ReconnectingStream(String name, String where, Supplier<ManagedChannel> channels,
      MethodDescriptor<Req, byte[]> method, Supplier<Req> request, Consumer<byte[]> onMessage, Backoff backoff,
      IngestMetrics metrics) {
    this.name = name;
    this.where = where;
    this.channels = channels;
    this.method = method;
    this.request = request;
    this.onMessage = onMessage;
    this.backoff = backoff;
    this.metrics = metrics;
    this.up = metrics.streamUp(name);
    this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "ingest-" + name + "-reconnect");
      t.setDaemon(true);
      return t;
    });
  }

  public void start() {
    scheduler.execute(this::connect);
  }

  /** Ready when the call is open on a connected channel. */
  public boolean isReady() {
    ManagedChannel c = channel;
    return streamOpen && c != null && c.getState(false) == ConnectivityState.READY;
  }

  /** How many times a call was started (1 + reconnects). */
  public long connects() {
    return connects;
  }

  private void connect() {
    if (closed) {
      return;
    }
    try {
      synchronized (lock) {
        if (channel == null) {
          channel = channels.get();
        }
        connects++;
        streamOpen = true;
        ClientCalls.asyncServerStreamingCall(channel.newCall(method, CallOptions.DEFAULT), request.get(),
            new Observer());
      }
    } catch (RuntimeException e) {
      streamOpen = false;
      LOG.warn("{}: cannot connect to {}: {}", name, where, e.getMessage());
      retry();
    }
  }

  private void retry() {
    if (closed) {
      return;
    }
    synchronized (lock) {
      if (channel != null) {
        channel.shutdownNow();
        channel = null;
      }
    }
    up.set(0);
    metrics.reconnect(name);
    Duration wait = backoff.next();
    LOG.info("{}: reconnecting in {} ms", name, wait.toMillis());
    scheduler.schedule(this::connect, wait.toMillis(), TimeUnit.MILLISECONDS);
  }

  private final class Observer implements ClientResponseObserver<Req, byte[]> {
    private boolean receivedAny;

    @Override
    public void beforeStart(ClientCallStreamObserver<Req> requestStream) {
      synchronized (lock) {
        call = requestStream;
      }
    }

    @Override
    public void onNext(byte[] message) {
      if (!receivedAny) {
        receivedAny = true;
        backoff.reset();
        up.set(1);
        LOG.info("{}: stream is up", name);
      }
      try {
        onMessage.accept(message);
      } catch (RuntimeException e) {
        // A bug in handling one message must not end the stream.
        LOG.error("{}: could not handle a message: {}", name, e.toString(), e);
      }
    }

    @Override
    public void onError(Throwable t) {
      streamOpen = false;
      if (closed) {
        return;
      }
      Status status = Status.fromThrowable(t);
      LOG.warn("{}: stream from {} failed: {} {}{}", name, where, status.getCode(), status.getDescription(),
          status.getCause() == null ? "" : " (" + status.getCause() + ")");
      retry();
    }

    @Override
    public void onCompleted() {
      streamOpen = false;
      if (!closed) {
        LOG.info("{}: server ended the stream", name);
        retry();
      }
    }
  }

  @Override
  public void close() {
    closed = true;
    streamOpen = false;
    synchronized (lock) {
      if (call != null) {
        call.cancel("shutting down", null);
      }
      if (channel != null) {
        channel.shutdownNow();
        try {
          channel.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
    scheduler.shutdownNow();
    up.set(0);
  }
}
