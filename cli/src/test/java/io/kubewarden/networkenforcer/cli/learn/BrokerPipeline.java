package io.kubewarden.networkenforcer.cli.learn;

import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.policy.Backend;
import io.kubewarden.networkenforcer.embedded.EmbeddedKafkaBroker;
import io.kubewarden.networkenforcer.ingest.file.CaptureFile;
import io.kubewarden.networkenforcer.ingest.file.CaptureFormat;
import io.kubewarden.networkenforcer.ingest.file.CaptureInput;
import io.kubewarden.networkenforcer.ingest.file.CaptureSummary;
import io.kubewarden.networkenforcer.ingest.publishing.DeadLetterPublisher;
import io.kubewarden.networkenforcer.ingest.publishing.FlowPublisher;
import io.kubewarden.networkenforcer.ingest.publishing.IngestMetrics;
import io.kubewarden.networkenforcer.ingest.publishing.ProducerTuning;
import io.kubewarden.networkenforcer.ingest.resolution.ClusterView;
import io.kubewarden.networkenforcer.processor.app.TopicPreparation;
import io.kubewarden.networkenforcer.processor.config.LearningSettings;
import io.kubewarden.networkenforcer.processor.config.ProcessorConfig;
import io.kubewarden.networkenforcer.processor.config.ProposalEmission;
import io.kubewarden.networkenforcer.processor.progress.CatchUp;
import io.kubewarden.networkenforcer.processor.topology.NetworkEnforcerTopology;
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
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.streams.KafkaStreams;

/**
 * The test oracle for {@code learn}: what it did before it ran in-process, an embedded KRaft broker
 * in a temporary directory, the ingest file source publishing to the flows topic, and the
 * stream-processor topology under Kafka Streams. {@link #run} returns once every published flow has
 * been processed and the proposals topic is complete.
 */
final class BrokerPipeline implements AutoCloseable {

  private final Path workDir;
  private final MeterRegistry registry;
  private EmbeddedKafkaBroker broker;
  private KafkaStreams streams;

  private final LearningSettings learning;

  BrokerPipeline(MeterRegistry registry) {
    this(registry, LearningSettings.DEFAULTS);
  }

  BrokerPipeline(MeterRegistry registry, LearningSettings learning) {
    this.registry = registry;
    this.learning = learning;
    try {
      this.workDir = Files.createTempDirectory("network-enforcer-learn-broker");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a temporary directory: " + e.getMessage(), e);
    }
  }

  LearnResult run(
      Path capture, CaptureFormat format, Backend backend, ClusterView view, Duration timeout)
      throws InterruptedException {
    broker = EmbeddedKafkaBroker.builder().dataDir(workDir.resolve("kafka")).build().start();
    KafkaSettings kafka =
        new KafkaSettings(broker.bootstrapServers(), null, 1, (short) 1, Map.of()).validate();
    // The oracle runs the service's emission (every change published, changelogged stores), not
    // learn's AT_FLUSH: the in-process result must equal it, and CatchUp reads the stores to
    // know when evidence is published, which AT_FLUSH holds in memory until the flush.
    ProcessorConfig config =
        LearnSetup.processorConfig(
                kafka, format, backend, workDir.resolve("streams"), false, learning)
            .toBuilder()
            .proposalEmission(ProposalEmission.EVERY_CHANGE)
            .storeChangelogs(true)
            .build()
            .validate();
    try (Admin admin = Admin.create(kafka.clientConfig())) {
      new TopicPreparation(config).prepare(admin);
      streams =
          new KafkaStreams(
              NetworkEnforcerTopology.build(config, registry), config.streamsProperties());
      streams.start();

      IngestMetrics ingestMetrics = new IngestMetrics(registry);
      long totalBytes = CaptureInput.size(capture);
      CaptureSummary summary;
      try (FlowPublisher flows =
              new FlowPublisher(kafka, ProducerTuning.defaults(), ingestMetrics);
          DeadLetterPublisher deadLetters = new DeadLetterPublisher(kafka, ingestMetrics);
          BufferedReader reader = CaptureInput.open(capture)) {
        summary =
            new CaptureFile(view, "cluster.local", deadLetters, ingestMetrics, Clock.systemUTC())
                .read(reader, capture.getFileName().toString(), Optional.of(format), flows);
        flows.flush();
        deadLetters.flush();
      } catch (IOException e) {
        throw new UncheckedIOException(
            "cannot read capture file " + capture + ": " + e.getMessage(), e);
      }

      CatchUp.of(admin, config, streams, registry).await(timeout, p -> {});
      return new LearnResult(
          summary,
          new TreeMap<>(new ProposalTopicReader(kafka).readAll(config.topics().proposals())));
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
