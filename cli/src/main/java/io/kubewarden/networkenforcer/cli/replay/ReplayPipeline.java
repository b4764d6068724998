package io.kubewarden.networkenforcer.cli.replay;

import io.kubewarden.networkenforcer.cli.history.FlowWindowReader;
import io.kubewarden.networkenforcer.cli.history.HistoryProgress;
import io.kubewarden.networkenforcer.cli.history.TimeWindow;
import io.kubewarden.networkenforcer.cli.learn.InProcessTopology;
import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.policy.Backend;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.processor.config.LearningSettings;
import io.kubewarden.networkenforcer.processor.config.ProcessorConfig;
import io.kubewarden.networkenforcer.processor.config.ProposalEmission;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.stream.Stream;
import org.apache.kafka.streams.StreamsConfig;

/**
 * Rebuilds the proposals of a window of the flows topic in isolation: the window's records are read
 * from the live flows topic (committed records only, each partition between the offsets of the
 * window's start and end) and handed as they are, with their keys and timestamps, to the processor
 * topology running in this process ({@link InProcessTopology}, as {@code learn} runs it). Nothing
 * of the live installation is written: no consumer group, no internal topic, no violation, no
 * status. With no policies the topology only learns, as the live processor did for targets without
 * a policy.
 */
final class ReplayPipeline implements AutoCloseable {
  /** Short, so evidence is flushed soon after the last flow. */
  private static final Duration EVIDENCE_FLUSH = Duration.ofMillis(200);

  private static final Duration COMMIT_INTERVAL = Duration.ofMillis(100);

  private final Path workDir;
  private final MeterRegistry registry;

  /**
   * What a replay produced.
   *
   * @param read the window read from the live flows topic
   * @param replayed flows of the selected namespaces handed to the topology
   * @param proposals target key -> final proposal, selected namespaces only
   * @param providers the providers of the replayed flows, with their counts
   */
  record Result(
      FlowWindowReader.Summary read,
      long replayed,
      Map<String, ProposalSnapshot> proposals,
      Map<Provider, Long> providers) {}

  ReplayPipeline(MeterRegistry registry) {
    this.registry = registry;
    try {
      this.workDir = Files.createTempDirectory("network-enforcer-replay");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a temporary directory: " + e.getMessage(), e);
    }
  }

  /** The replay's own application id: it names the window, never the live processor's. */
  static String applicationId(TimeWindow window) {
    return "network-enforcer-replay-"
        + window.from().toEpochMilli()
        + "-"
        + window.to().toEpochMilli();
  }

  /**
   * The processor settings of one replay: {@code learn}'s in-process settings with the live topic
   * names (the prefix), the installation's provider, backend and learning settings and the window's
   * application id.
   */
  static ProcessorConfig processorConfig(
      KafkaSettings live,
      TimeWindow window,
      Provider provider,
      Backend backend,
      LearningSettings learning,
      Path stateDir) {
    // No broker is contacted: the address only satisfies the configuration's checks, and none of
    // the
    // live client settings (TLS files, credentials) reaches the driver.
    KafkaSettings offline =
        new KafkaSettings("localhost:9092", live.topicPrefix(), 1, (short) 1, Map.of());
    return InProcessTopology.settings(
        ProcessorConfig.builder(offline)
            .applicationId(applicationId(window))
            // One private instance, no failover: at-least-once gives the same proposals with less
            // overhead.
            .processingGuarantee(StreamsConfig.AT_LEAST_ONCE)
            .evidenceFlushInterval(EVIDENCE_FLUSH)
            .commitInterval(COMMIT_INTERVAL)
            .stateDir(stateDir)
            .inMemoryStores(true)
            .provider(provider)
            .backend(backend)
            .learning(learning)
            // Only the last proposal of each target is kept: render each changed target once per
            // flush.
            .proposalEmission(ProposalEmission.AT_FLUSH)
            // Nothing is restored: the stores' state ends with the run.
            .storeChangelogs(false)
            .build()
            .validate());
  }

  Result run(
      KafkaSettings live,
      TimeWindow window,
      Set<String> namespaces,
      Provider provider,
      Backend backend,
      LearningSettings learning,
      Duration timeout,
      PrintWriter err)
      throws InterruptedException {
    ProcessorConfig config =
        processorConfig(live, window, provider, backend, learning, workDir.resolve("streams"));
    // The driver's start (a few hundred milliseconds, mostly class loading) overlaps finding the
    // window's
    // offsets; the first flow waits for it.
    CompletableFuture<InProcessTopology> building =
        CompletableFuture.supplyAsync(
            () -> new InProcessTopology(config, registry),
            r -> {
              Thread t = new Thread(r, "replay-build");
              t.setDaemon(true);
              t.start();
            });
    try {
      long[] replayed = {0};
      Map<Provider, Long> providers = new EnumMap<>(Provider.class);
      FlowWindowReader.Summary read =
          new FlowWindowReader(live)
              .read(
                  window,
                  (key, value, flow, timestamp) -> {
                    if (namespaces.isEmpty()
                        || namespaces.contains(flow.src().namespace())
                        || namespaces.contains(flow.dst().namespace())) {
                      replayed[0]++;
                      providers.merge(flow.provider(), 1L, Long::sum);
                      built(building).accept(key, value, Instant.ofEpochMilli(timestamp));
                    }
                  },
                  HistoryProgress.every2s(err, "reading flows"));
      Map<String, ProposalSnapshot> proposals = new TreeMap<>();
      built(building)
          .finish(timeout, phase -> {})
          .forEach(
              (key, p) -> {
                if (namespaces.isEmpty() || namespaces.contains(p.namespace())) {
                  proposals.put(key, p);
                }
              });
      return new Result(read, replayed[0], proposals, providers);
    } finally {
      try {
        built(building).close();
      } catch (RuntimeException e) {
        // It failed to build: nothing to close, and the failure was reported where it was used.
      }
    }
  }

  private static InProcessTopology built(CompletableFuture<InProcessTopology> building) {
    try {
      return building.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException cause) {
        throw cause;
      }
      throw e;
    }
  }

  @Override
  public void close() {
    try (Stream<Path> paths = Files.walk(workDir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // Best effort: it is a temporary directory.
    }
  }
}
