package io.kubewarden.networkenforcer.processor.app;

import io.kubewarden.networkenforcer.processor.config.ProcessorConfig;
import io.kubewarden.networkenforcer.processor.progress.CatchUp;
import io.kubewarden.networkenforcer.processor.progress.Progress;
import io.kubewarden.networkenforcer.processor.topology.NetworkEnforcerTopology;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.kafka.KafkaStreamsMetrics;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stream-processor service: prepares and checks the topics, then runs the topology with Kafka
 * Streams. Ready while the Streams client is RUNNING; a fatal error stops the client (the process
 * supervisor restarts it) rather than leaving a half-working instance.
 */
public final class StreamProcessorApp implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(StreamProcessorApp.class);
  private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(30);

  private final ProcessorConfig config;
  private final MeterRegistry registry;
  private final AtomicReference<KafkaStreams.State> state =
      new AtomicReference<>(KafkaStreams.State.CREATED);
  private final AtomicReference<Throwable> fatalError = new AtomicReference<>();
  private KafkaStreams streams;
  private KafkaStreamsMetrics streamsMetrics;

  /** Kept open after the topics are prepared: {@link #progress()} asks it for offsets. */
  private Admin admin;

  private volatile CatchUp catchUp;

  public StreamProcessorApp(ProcessorConfig config, MeterRegistry registry) {
    this.config = config.validate();
    this.registry = registry;
    // 0 before start, while rebalancing or restoring, and after a failure: the alert "not running".
    Gauge.builder(
            "network_enforcer.processor.running",
            state,
            s -> s.get() == KafkaStreams.State.RUNNING ? 1 : 0)
        .description("1 while Kafka Streams is RUNNING (processing), else 0")
        .register(registry);
  }

  /** Prepares the topics (fails on a co-partitioning mismatch) and starts processing. */
  public synchronized StreamProcessorApp start() {
    if (streams != null) {
      return this;
    }
    LOG.info(
        "starting stream processor {} against {} ({}, backend {})",
        config.applicationId(),
        config.kafka(),
        config.processingGuarantee(),
        config.backend());
    Admin a = Admin.create(config.kafka().clientConfig());
    KafkaStreams s;
    try {
      new TopicPreparation(config).prepare(a);
      Topology topology = NetworkEnforcerTopology.build(config, registry);
      LOG.debug("topology:\n{}", topology.describe());
      s = new KafkaStreams(topology, config.streamsProperties());
    } catch (RuntimeException e) {
      a.close();
      throw e;
    }
    s.setStateListener(
        (newState, oldState) -> {
          state.set(newState);
          LOG.info("stream processor {} -> {}", oldState, newState);
        });
    s.setUncaughtExceptionHandler(
        e -> {
          fatalError.set(e);
          LOG.error("stream processor failed, shutting down: {}", e.toString(), e);
          return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        });
    // The consumer group as a tag, like the writer's consumers: lag per group on one dashboard.
    streamsMetrics = new KafkaStreamsMetrics(s, Tags.of("group", config.applicationId()));
    streamsMetrics.bindTo(registry);
    admin = a;
    streams = s;
    catchUp = CatchUp.of(a, config, s, registry);
    s.start();
    return this;
  }

  /** Readiness: processing (not while rebalancing or restoring). */
  public boolean isReady() {
    return state.get() == KafkaStreams.State.RUNNING;
  }

  /** Liveness: not failed or stopped. */
  public boolean isAlive() {
    KafkaStreams.State s = state.get();
    return s != KafkaStreams.State.ERROR
        && s != KafkaStreams.State.PENDING_ERROR
        && s != KafkaStreams.State.NOT_RUNNING
        && s != KafkaStreams.State.PENDING_SHUTDOWN;
  }

  public KafkaStreams.State state() {
    return state.get();
  }

  /**
   * Whether this instance has caught up with everything published to its input topics (see {@link
   * CatchUp}); empty before {@link #start()} and after {@link #close()}. Asks Kafka for offsets and
   * scans this instance's learned allow-lists: meant for an operator polling, not for every record.
   */
  public Optional<Progress> progress() {
    CatchUp c = catchUp;
    return c == null ? Optional.empty() : Optional.of(c.check());
  }

  /** The error that stopped processing, if any. */
  public Throwable fatalError() {
    return fatalError.get();
  }

  @Override
  public synchronized void close() {
    catchUp = null;
    if (streams == null) {
      closeAdmin();
      return;
    }
    LOG.info("stopping stream processor {}", config.applicationId());
    if (streamsMetrics != null) {
      streamsMetrics.close();
    }
    streams.close(CLOSE_TIMEOUT);
    // close() can return before the listener has recorded the last transition (it runs on the
    // shutdown thread after the state changes): take the state from Kafka Streams itself.
    state.set(streams.state());
    streams = null;
    closeAdmin();
  }

  private void closeAdmin() {
    if (admin != null) {
      admin.close(CLOSE_TIMEOUT);
      admin = null;
    }
  }
}
