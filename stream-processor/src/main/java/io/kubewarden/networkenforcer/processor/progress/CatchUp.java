package io.kubewarden.networkenforcer.processor.progress;

import io.kubewarden.networkenforcer.processor.config.ProcessorConfig;
import io.kubewarden.networkenforcer.processor.config.ProposalEmission;
import io.kubewarden.networkenforcer.processor.metrics.ProcessorMetrics;
import io.kubewarden.networkenforcer.processor.topology.NetworkEnforcerTopology;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.KafkaStreams;

/**
 * Whether a running processor has caught up with everything published to it, from Kafka's own
 * bookkeeping rather than from waiting. Caught up means, in this order:
 *
 * <ol>
 *   <li>the processor's consumer group has committed the end of every input topic, checked in
 *       data-flow order (flows, policies, control, then the observations repartition topic, then
 *       the re-attribution loop), so nothing is in flight between two stages; consumed flows must
 *       also have left the observation combiner before the later stages count;
 *   <li>no learned allow-list holds evidence that the punctuator has not yet published;
 *   <li>the proposals topic holds every proposal record the processor counts as written (writes are
 *       flushed before the offsets they belong to are committed);
 *   <li>all of this has held for two commit intervals with no new proposal record: records a
 *       punctuator sent (evidence flushes) belong to no input offset, and the topic's end offsets
 *       count transaction markers too, so only a commit after the last send says they are
 *       committed, and Kafka Streams commits what it sent within a commit interval.
 * </ol>
 *
 * The offsets are the group's; the stores and counters are this instance's, so with several
 * instances each answers for its own tasks. A processor with {@link ProposalEmission#AT_FLUSH}
 * holds its changes where no query sees them, so it is refused.
 */
public final class CatchUp {
  private static final long POLL_MILLIS = 50;

  private final KafkaStreams streams;
  private final TopicBacklog offsets;
  private final LocalBacklog local;
  private final ProcessorMetrics metrics;
  private final String flowsTopic;

  /** The inputs after flows, in data-flow order. */
  private final List<String> laterInputs;

  private final String proposalsTopic;
  private final long settleNanos;

  /**
   * When the conditions were last seen to start holding, with the proposal count then; -1 while
   * not.
   */
  private long holdingSince = -1;

  private double writtenWhenHolding;

  /** Processing did not catch up within the time given; says how far it came. */
  public static final class TimedOut extends IllegalStateException {
    private final Progress progress;
    private final Duration timeout;

    TimedOut(Progress progress, Duration timeout) {
      super(
          "processing did not finish ("
              + progress.flowsConsumed()
              + " of "
              + progress.flowsPublished()
              + " flows consumed) within "
              + timeout.toSeconds()
              + " s");
      this.progress = progress;
      this.timeout = timeout;
    }

    public Progress progress() {
      return progress;
    }

    public Duration timeout() {
      return timeout;
    }
  }

  private CatchUp(
      Admin admin, ProcessorConfig config, KafkaStreams streams, ProcessorMetrics metrics) {
    this.streams = streams;
    this.offsets = new TopicBacklog(admin, config.applicationId());
    this.local = new LocalBacklog(streams);
    this.metrics = metrics;
    this.flowsTopic = config.topics().flows().name();
    this.laterInputs =
        List.of(
            config.topics().policies().name(),
            config.topics().control().name(),
            NetworkEnforcerTopology.observationsRepartitionTopic(config),
            config.reattributionTopic());
    this.proposalsTopic = config.topics().proposals().name();
    this.settleNanos = 2 * config.commitInterval().toNanos();
  }

  /**
   * The catch-up of the processor that runs {@code config} as {@code streams}, counting its writes
   * on {@code registry} (the registry its topology was built with).
   *
   * @param admin a client of the processor's cluster, owned by the caller
   */
  public static CatchUp of(
      Admin admin, ProcessorConfig config, KafkaStreams streams, MeterRegistry registry) {
    if (config.proposalEmission() == ProposalEmission.AT_FLUSH) {
      // Its changes live in the processor's memory until the flush, where no store query sees them.
      throw new IllegalArgumentException(
          "cannot tell when a processor with proposal emission AT_FLUSH has caught "
              + "up: it holds changed allow-lists in memory until its next flush; run it with EVERY_CHANGE");
    }
    return new CatchUp(admin, config, streams, new ProcessorMetrics(registry));
  }

  /** Where the processor is now; not caught up unless Kafka Streams is RUNNING. */
  public Progress check() {
    Map<TopicPartition, OffsetAndMetadata> committed = offsets.committed();
    TopicBacklog.Count flows = offsets.count(flowsTopic, committed);
    Progress notYet = new Progress(flows.consumed(), flows.published(), false);
    if (streams.state() != KafkaStreams.State.RUNNING || !flows.complete()) {
      return notHolding(notYet);
    }
    // Consumed flows may still wait in the combiner before they reach the repartition topic.
    if (local.combinationsWaiting()) {
      return notHolding(notYet);
    }
    // A later stage is only read after the earlier ones are known to be consumed, with offsets
    // committed after that, so what an earlier stage wrote to it is counted.
    for (String topic : laterInputs) {
      committed = offsets.committed();
      if (!offsets.count(topic, committed).complete()) {
        return notHolding(notYet);
      }
    }
    double written = metrics.proposalsWritten();
    boolean holding = !local.unpublishedEvidence() && offsets.published(proposalsTopic) >= written;
    return new Progress(flows.consumed(), flows.published(), settled(holding, written));
  }

  private Progress notHolding(Progress p) {
    settled(false, 0);
    return p;
  }

  /** Whether the conditions have held, with {@code written} unchanged, for two commit intervals. */
  private synchronized boolean settled(boolean holding, double written) {
    long now = System.nanoTime();
    if (!holding) {
      holdingSince = -1;
      return false;
    }
    if (holdingSince < 0 || written != writtenWhenHolding) {
      holdingSince = now;
      writtenWhenHolding = written;
    }
    return now - holdingSince >= settleNanos;
  }

  /**
   * Waits until Kafka Streams runs, then until the processor has caught up, telling {@code
   * onProgress} after each check.
   *
   * @return the progress that was caught up
   * @throws IllegalStateException when the processor stops or does not start within {@code timeout}
   * @throws TimedOut when it has not caught up within {@code timeout}
   */
  public Progress await(Duration timeout, Consumer<Progress> onProgress)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (streams.state() != KafkaStreams.State.RUNNING) {
      failIfStopped();
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "the stream processor did not start within " + timeout.toSeconds() + " s");
      }
      Thread.sleep(POLL_MILLIS);
    }
    while (true) {
      failIfStopped();
      Progress p = check();
      onProgress.accept(p);
      if (p.caughtUp()) {
        return p;
      }
      if (System.nanoTime() > deadline) {
        throw new TimedOut(p, timeout);
      }
      Thread.sleep(POLL_MILLIS);
    }
  }

  private void failIfStopped() {
    KafkaStreams.State s = streams.state();
    if (s == KafkaStreams.State.ERROR
        || s == KafkaStreams.State.NOT_RUNNING
        || s == KafkaStreams.State.PENDING_ERROR) {
      throw new IllegalStateException(
          "the stream processor stopped (" + s + "); see the log above");
    }
  }
}
