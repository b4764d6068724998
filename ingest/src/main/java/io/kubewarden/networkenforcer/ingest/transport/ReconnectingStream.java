package io.kubewarden.networkenforcer.ingest.transport;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ClientInterceptors;
import io.grpc.ConnectivityState;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingClientCallListener;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
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
 * rebuilt (reloading certificates) and the call restarted after an exponential backoff with jitter.
 * Messages arrive as bytes for the caller to decode.
 *
 * <p>Ready means subscribed, not connected: a call counts once the server answered it (response
 * headers or a first message), or kept it open without failing for {@link #DEFAULT_SUBSCRIBE_GRACE}
 * (a server with nothing to send may hold its headers back; one that refuses the call, for a wrong
 * client certificate or method, fails it within milliseconds). Marking it on connect let a
 * restarted ingest say Ready before its stream was back.
 */
public final class ReconnectingStream<Req> implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ReconnectingStream.class);

  /** How long an open call without a word from the server takes to count as subscribed. */
  public static final Duration DEFAULT_SUBSCRIBE_GRACE = Duration.ofSeconds(5);

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
  private volatile boolean subscribed;
  private volatile boolean closed;
  private volatile long connects;
  private volatile long subscribes;

  /** Bumped per call: a grace timer of an earlier call must not mark a later one subscribed. */
  private volatile long generation;

  private volatile Duration subscribeGrace = DEFAULT_SUBSCRIBE_GRACE;

  /**
   * @param name the source name for logs and metrics ({@code hubble}, {@code goldmane})
   * @param channels builds a fresh channel (with freshly loaded certificates); may throw
   * @param request the request of each call: a resumed call can ask for what it missed
   */
  public ReconnectingStream(
      String name,
      Supplier<ManagedChannel> channels,
      MethodDescriptor<Req, byte[]> method,
      Supplier<Req> request,
      Consumer<byte[]> onMessage,
      Backoff backoff,
      IngestMetrics metrics) {
    this(name, name, channels, method, request, onMessage, backoff, metrics);
  }

  /**
   * @param where the peer and the setting that names it, for failure messages ({@code Hubble Relay
   *     localhost:4245 (--hubble-endpoint)})
   */
  public ReconnectingStream(
      String name,
      String where,
      Supplier<ManagedChannel> channels,
      MethodDescriptor<Req, byte[]> method,
      Supplier<Req> request,
      Consumer<byte[]> onMessage,
      Backoff backoff,
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
    this.scheduler =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "ingest-" + name + "-reconnect");
              t.setDaemon(true);
              return t;
            });
  }

  /** Before {@link #start()}: how long a silent open call takes to count as subscribed. */
  public ReconnectingStream<Req> subscribeGrace(Duration grace) {
    if (grace.isNegative()) {
      throw new IllegalArgumentException("subscribe grace must not be negative, got " + grace);
    }
    this.subscribeGrace = grace;
    return this;
  }

  public void start() {
    scheduler.execute(this::connect);
  }

  /** Ready when the server took the current call (see the class comment) on a connected channel. */
  public boolean isReady() {
    ManagedChannel c = channel;
    return streamOpen && subscribed && c != null && c.getState(false) == ConnectivityState.READY;
  }

  /** How many times a call was started (1 + reconnects). */
  public long connects() {
    return connects;
  }

  /** How many calls the server took (answered, or held open past the grace). */
  public long subscribes() {
    return subscribes;
  }

  /** The server took call {@code gen}: the stream is up (once per call). */
  private void subscribed(long gen, String why) {
    synchronized (lock) {
      if (gen != generation || subscribed || !streamOpen || closed) {
        return;
      }
      subscribed = true;
      subscribes++;
    }
    backoff.reset();
    up.set(1);
    LOG.info("{}: stream is up ({})", name, why);
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
        long gen = ++generation;
        subscribed = false;
        streamOpen = true;
        Channel answered = ClientInterceptors.intercept(channel, new AnswerWatch(gen));
        ClientCalls.asyncServerStreamingCall(
            answered.newCall(method, CallOptions.DEFAULT), request.get(), new Observer(gen));
        scheduler.schedule(
            () -> subscribed(gen, "open for " + subscribeGrace.toMillis() + " ms"),
            subscribeGrace.toMillis(),
            TimeUnit.MILLISECONDS);
      }
    } catch (RuntimeException e) {
      streamOpen = false;
      subscribed = false;
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

  /** Sees the server's response headers, which come before (or without) any message. */
  private final class AnswerWatch implements ClientInterceptor {
    private final long gen;

    AnswerWatch(long gen) {
      this.gen = gen;
    }

    @Override
    public <Q, R> ClientCall<Q, R> interceptCall(
        MethodDescriptor<Q, R> m, CallOptions options, Channel next) {
      return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(m, options)) {
        @Override
        public void start(Listener<R> listener, Metadata headers) {
          super.start(
              new ForwardingClientCallListener.SimpleForwardingClientCallListener<>(listener) {
                @Override
                public void onHeaders(Metadata h) {
                  subscribed(gen, "response headers");
                  super.onHeaders(h);
                }
              },
              headers);
        }
      };
    }
  }

  private final class Observer implements ClientResponseObserver<Req, byte[]> {
    private final long gen;
    private boolean receivedAny;

    Observer(long gen) {
      this.gen = gen;
    }

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
        subscribed(gen, "first message");
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
      ended(gen);
      if (closed) {
        return;
      }
      Status status = Status.fromThrowable(t);
      LOG.warn(
          "{}: stream from {} failed: {} {}{}",
          name,
          where,
          status.getCode(),
          status.getDescription(),
          status.getCause() == null ? "" : " (" + status.getCause() + ")");
      retry();
    }

    @Override
    public void onCompleted() {
      ended(gen);
      if (!closed) {
        LOG.info("{}: server ended the stream", name);
        retry();
      }
    }
  }

  /** The call ended: the next one must be taken again before the stream counts as up. */
  private void ended(long gen) {
    synchronized (lock) {
      if (gen == generation) {
        streamOpen = false;
        subscribed = false;
      }
    }
  }

  @Override
  public void close() {
    closed = true;
    streamOpen = false;
    subscribed = false;
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
