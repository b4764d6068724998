package io.kubewarden.networkenforcer.cli.learn;

import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.policy.Backend;
import io.kubewarden.networkenforcer.ingest.file.CaptureFile;
import io.kubewarden.networkenforcer.ingest.file.CaptureFormat;
import io.kubewarden.networkenforcer.ingest.file.CaptureInput;
import io.kubewarden.networkenforcer.ingest.file.CaptureSummary;
import io.kubewarden.networkenforcer.ingest.publishing.DeadLetterSink;
import io.kubewarden.networkenforcer.ingest.publishing.IngestMetrics;
import io.kubewarden.networkenforcer.ingest.resolution.ClusterView;
import io.kubewarden.networkenforcer.processor.config.LearningSettings;
import io.kubewarden.networkenforcer.processor.config.ProcessorConfig;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Comparator;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

/**
 * The real pipeline for one capture, in this process and without a broker: the ingest capture
 * reader (lines decoded in parallel, then resolved in file order) hands each flow record straight
 * to the processor's topology ({@link InProcessTopology}). {@link #run} returns when the last flow
 * is processed and evidence is flushed.
 */
final class InProcessPipeline implements AutoCloseable {
  private Optional<String> truncation = Optional.empty();
  private final Path workDir;
  private final MeterRegistry registry;
  private final LearningSettings learning;

  /** The topology {@link #startBuilding} started, until {@link #run} takes it. */
  private Building building;

  InProcessPipeline(MeterRegistry registry) {
    this(registry, LearningSettings.DEFAULTS);
  }

  InProcessPipeline(MeterRegistry registry, LearningSettings learning) {
    this.registry = registry;
    this.learning = learning;
    try {
      this.workDir = Files.createTempDirectory("network-enforcer-learn");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a temporary directory: " + e.getMessage(), e);
    }
  }

  LearnResult run(
      Path capture,
      CaptureFormat format,
      Backend backend,
      ClusterView view,
      Duration timeout,
      LearnProgress progress)
      throws InterruptedException {
    return run(
        capture,
        format,
        backend,
        new AtomicReference<>(view),
        timeout,
        progress,
        DeadLetterSink.discard());
  }

  /**
   * @param view the cluster view, handed over: it is let go once the capture is read (resolution is
   *     done then), so the end of the run (every proposal rendered, read back and written) has its
   *     memory; a large cluster's view is a quarter of the launcher's heap
   * @param unreadableLines receives every line that could not be read (the summary names its file)
   */
  LearnResult run(
      Path capture,
      CaptureFormat format,
      Backend backend,
      AtomicReference<ClusterView> view,
      Duration timeout,
      LearnProgress progress,
      DeadLetterSink unreadableLines)
      throws InterruptedException {
    IngestMetrics ingestMetrics = new IngestMetrics(registry);
    try (InProcessTopology topology = topology(format, backend)) {
      progress.phaseDone("output directory, topology ready");
      long totalBytes = CaptureInput.size(capture);
      try (TruncatedCapture reader =
          new TruncatedCapture(
              CaptureInput.open(capture, in -> progress.track(in, totalBytes)),
              capture.toString())) {
        LearnResult result =
            read(reader, format, view, timeout, progress, unreadableLines, ingestMetrics, topology);
        truncation = reader.broke();
        return result;
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot read capture file " + capture + ": " + e.getMessage(), e);
    }
  }

  /**
   * Starts building the topology for a capture of {@code format} on another thread, so that what
   * the caller does next (loading the cluster state) overlaps it: the driver's start is a few
   * hundred milliseconds of class loading, and a short capture's run is a few seconds. {@link #run}
   * takes it.
   */
  /** Where the capture of the last {@link #run} broke off, when it did. */
  Optional<String> truncation() {
    return truncation;
  }

  void startBuilding(CaptureFormat format, Backend backend) {
    ProcessorConfig config = config(format, backend);
    building =
        new Building(
            format,
            backend,
            CompletableFuture.supplyAsync(
                () -> new InProcessTopology(config, registry),
                r -> {
                  Thread t = new Thread(r, "learn-build");
                  t.setDaemon(true);
                  t.start();
                }));
  }

  private record Building(
      CaptureFormat format, Backend backend, CompletableFuture<InProcessTopology> topology) {}

  private InProcessTopology topology(CaptureFormat format, Backend backend) {
    Building started = building;
    building = null;
    if (started == null || started.format() != format || started.backend() != backend) {
      closeUnused(started);
      return new InProcessTopology(config(format, backend), registry);
    }
    try {
      return started.topology().join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException cause) {
        throw cause;
      }
      throw e;
    }
  }

  private ProcessorConfig config(CaptureFormat format, Backend backend) {
    // Heap stores: an offline run keeps nothing, and its state is one capture's allow-lists.
    // No broker is contacted: the address only satisfies the configuration's checks.
    KafkaSettings kafka = new KafkaSettings("localhost:9092", null, 1, (short) 1, Map.of());
    return InProcessTopology.settings(
        LearnSetup.processorConfig(
            kafka, format, backend, workDir.resolve("streams"), true, learning));
  }

  private static void closeUnused(Building started) {
    if (started == null) {
      return;
    }
    try {
      started.topology().join().close();
    } catch (RuntimeException e) {
      // It failed to build: nothing to close.
    }
  }

  private LearnResult read(
      BufferedReader reader,
      CaptureFormat format,
      AtomicReference<ClusterView> view,
      Duration timeout,
      LearnProgress progress,
      DeadLetterSink unreadableLines,
      IngestMetrics ingestMetrics,
      InProcessTopology topology)
      throws IOException, InterruptedException {
    CaptureSummary summary =
        resolveAndPublish(
            reader,
            format,
            view.getAndSet(null),
            progress,
            unreadableLines,
            ingestMetrics,
            topology);
    // Nothing here holds the cluster view (or the resolvers made of it) any more.
    return new LearnResult(summary, topology.finish(timeout, progress::phaseDone));
  }

  private static CaptureSummary resolveAndPublish(
      BufferedReader reader,
      CaptureFormat format,
      ClusterView view,
      LearnProgress progress,
      DeadLetterSink unreadableLines,
      IngestMetrics ingestMetrics,
      InProcessTopology topology)
      throws IOException, InterruptedException {
    // Bad lines are counted and listed in the summary, and written to the unreadable-lines file.
    CaptureFile.Reading reading =
        new CaptureFile(view, "cluster.local", unreadableLines, ingestMetrics, Clock.systemUTC())
            .reading(Optional.of(format), progress.countingSink(topology));
    ParallelCaptureRead.forThisMachine().read(reader, format, reading);
    progress.readDone();
    progress.phaseDone("capture read and resolved");
    return reading.summary();
  }

  @Override
  public void close() {
    closeUnused(building);
    building = null;
    try (Stream<Path> paths = Files.walk(workDir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // Best effort: it is a temporary directory.
    }
  }
}
