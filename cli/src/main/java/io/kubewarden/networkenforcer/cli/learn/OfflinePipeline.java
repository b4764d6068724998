package io.kubewarden.networkenforcer.cli.learn;

import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.embedded.EmbeddedKafkaBroker;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.policy.Backend;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.ingest.file.CaptureFile;
import io.kubewarden.networkenforcer.ingest.file.CaptureInput;
import io.kubewarden.networkenforcer.ingest.file.CaptureFormat;
import io.kubewarden.networkenforcer.ingest.file.CaptureSummary;
import io.kubewarden.networkenforcer.ingest.publishing.DeadLetterPublisher;
import io.kubewarden.networkenforcer.ingest.publishing.DeadLetterSink;
import io.kubewarden.networkenforcer.ingest.publishing.FlowPublisher;
import io.kubewarden.networkenforcer.ingest.publishing.IngestMetrics;
import io.kubewarden.networkenforcer.ingest.publishing.ProducerTuning;
import io.kubewarden.networkenforcer.ingest.resolution.ClusterView;
import io.kubewarden.networkenforcer.processor.app.TopicPreparation;
import io.kubewarden.networkenforcer.processor.config.LearningSettings;
import io.kubewarden.networkenforcer.processor.config.ProcessorConfig;
import io.kubewarden.networkenforcer.processor.topology.NetworkEnforcerTopology;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;

/**
 * The real pipeline on one machine for one capture: an embedded KRaft broker in a temporary
 * directory, the ingest file source publishing to the flows topic, and the stream-processor
 * topology under Kafka Streams. {@link #run} returns once every published flow has been processed
 * and the proposals topic is complete.
 */
final class OfflinePipeline implements AutoCloseable {
  static final String APPLICATION_ID = "network-enforcer-learn";
  /** Short, so evidence reaches the proposals topic soon after the last flow. */
  private static final Duration EVIDENCE_FLUSH = Duration.ofMillis(200);
  private static final Duration COMMIT_INTERVAL = Duration.ofMillis(100);
  private static final Duration POLL = Duration.ofMillis(50);

  private final Path workDir;
  private final MeterRegistry registry;
  private EmbeddedKafkaBroker broker;
  private KafkaStreams streams;

  /** What a run produced. */
  record Result(CaptureSummary capture, Map<String, ProposalSnapshot> proposals) {}

  private final LearningSettings learning;

  OfflinePipeline(MeterRegistry registry) {
    this(registry, LearningSettings.DEFAULTS);
  }

  OfflinePipeline(MeterRegistry registry, LearningSettings learning) {
    this.registry = registry;
    this.learning = learning;
    try {
      this.workDir = Files.createTempDirectory("network-enforcer-learn");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a temporary directory: " + e.getMessage(), e);
    }
  }

  /** The provider whose records a capture format holds. */
  static Provider providerOf(CaptureFormat format) {
    return switch (format) {
      case HUBBLE -> Provider.cilium;
      case GOLDMANE -> Provider.calico;
      case ZTUNNEL -> Provider.istio;
    };
  }

  /** Checks the processor settings before anything starts (a backend that does not fit the provider). */
  static ProcessorConfig processorConfig(KafkaSettings kafka, CaptureFormat format, Backend backend, Path stateDir) {
    return processorConfig(kafka, format, backend, stateDir, LearningSettings.DEFAULTS);
  }

  static ProcessorConfig processorConfig(KafkaSettings kafka, CaptureFormat format, Backend backend, Path stateDir,
      LearningSettings learning) {
    return ProcessorConfig.builder(kafka)
        .applicationId(APPLICATION_ID)
        // One instance, no failover: at-least-once gives the same result with less overhead.
        .processingGuarantee(StreamsConfig.AT_LEAST_ONCE)
        .evidenceFlushInterval(EVIDENCE_FLUSH)
        .commitInterval(COMMIT_INTERVAL)
        .combineInterval(COMMIT_INTERVAL)
        .stateDir(stateDir)
        .provider(providerOf(format))
        .backend(backend)
        .learning(learning)
        .build()
        .validate();
  }

  /** Fails before anything starts when the backend does not fit the capture's provider. */
  static void checkBackend(CaptureFormat format, Backend backend) {
    processorConfig(KafkaSettings.of("127.0.0.1:9092"), format, backend, Path.of("unused"));
  }

  Result run(Path capture, CaptureFormat format, Backend backend, ClusterView view, Duration timeout,
      LearnProgress progress) throws InterruptedException {
    return run(capture, format, backend, view, timeout, progress, DeadLetterSink.discard());
  }

  /** @param unreadableLines also receives every line that could not be read (besides the dead-letter topic) */
  Result run(Path capture, CaptureFormat format, Backend backend, ClusterView view, Duration timeout,
      LearnProgress progress, DeadLetterSink unreadableLines) throws InterruptedException {
    broker = EmbeddedKafkaBroker.builder().dataDir(workDir.resolve("kafka")).build().start();
    KafkaSettings kafka = new KafkaSettings(broker.bootstrapServers(), null, 1, (short) 1, Map.of()).validate();
    ProcessorConfig config = processorConfig(kafka, format, backend, workDir.resolve("streams"), learning);
    try (Admin admin = Admin.create(kafka.clientConfig())) {
      new TopicPreparation(config).prepare(admin);
      streams = new KafkaStreams(NetworkEnforcerTopology.build(config, registry), config.streamsProperties());
      streams.start();

      IngestMetrics ingestMetrics = new IngestMetrics(registry);
      long totalBytes = CaptureInput.size(capture);
      CaptureSummary summary;
      try (FlowPublisher flows = new FlowPublisher(kafka, ProducerTuning.defaults(), ingestMetrics);
          DeadLetterPublisher deadLetters = new DeadLetterPublisher(kafka, ingestMetrics);
          BufferedReader reader = CaptureInput.open(capture, in -> progress.track(in, totalBytes))) {
        DeadLetterSink bothDeadLetters = (source, reason, payload, error) -> {
          deadLetters.deadLetter(source, reason, payload, error);
          unreadableLines.deadLetter(source, reason, payload, error);
        };
        summary = new CaptureFile(view, "cluster.local", bothDeadLetters, ingestMetrics, Clock.systemUTC())
            .read(reader, capture.getFileName().toString(), Optional.of(format), progress.countingSink(flows));
        flows.flush();
        deadLetters.flush();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read capture file " + capture + ": " + e.getMessage(), e);
      }
      progress.readDone();

      awaitDrained(admin, config, timeout, progress::processing);
      Map<String, ProposalSnapshot> proposals = new ProposalTopicReader(kafka).readAll(config.topics().proposals());
      return new Result(summary, proposals);
    }
  }

  private void awaitDrained(Admin admin, ProcessorConfig config, Duration timeout,
      Consumer<PipelineDrain.Progress> onProgress) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (streams.state() != KafkaStreams.State.RUNNING) {
      failIfStopped();
      checkDeadline(deadline, timeout, "the stream processor did not start");
      Thread.sleep(POLL.toMillis());
    }
    PipelineDrain drain = new PipelineDrain(admin, APPLICATION_ID, List.of(config.topics().flows().name(),
        NetworkEnforcerTopology.observationsRepartitionTopic(config), config.reattributionTopic()),
        config.topics().proposals().name(), registry);
    while (true) {
      failIfStopped();
      PipelineDrain.Progress p = drain.check(streams);
      onProgress.accept(p);
      if (p.done()) {
        return;
      }
      checkDeadline(deadline, timeout, "processing did not finish (" + p.flowsConsumed() + " of "
          + p.flowsPublished() + " flows consumed); raise --timeout for large captures");
      Thread.sleep(POLL.toMillis());
    }
  }

  private void failIfStopped() {
    KafkaStreams.State s = streams.state();
    if (s == KafkaStreams.State.ERROR || s == KafkaStreams.State.NOT_RUNNING
        || s == KafkaStreams.State.PENDING_ERROR) {
      throw new IllegalStateException("the stream processor stopped (" + s + "); see the log above");
    }
  }

  private static void checkDeadline(long deadline, Duration timeout, String what) {
    if (System.nanoTime() > deadline) {
      throw new IllegalStateException(what + " within " + timeout.toSeconds() + " s");
    }
  }

  @Override
  public void close() {
    try {
      if (streams != null) {
        streams.close(Duration.ofSeconds(30));
      }
    } finally {
      try {
        if (broker != null) {
          broker.close();
        }
      } finally {
        deleteRecursively(workDir);
      }
    }
  }

  private static void deleteRecursively(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // Best effort: it is a temporary directory.
    }
  }
}
