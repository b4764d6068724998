package io.kubewarden.networkenforcer.cli.replay;

import io.kubewarden.networkenforcer.cli.history.FlowWindowReader;
import io.kubewarden.networkenforcer.cli.history.HistoryProgress;
import io.kubewarden.networkenforcer.cli.history.TimeWindow;
import io.kubewarden.networkenforcer.cli.learn.ProposalTopicReader;
import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.embedded.EmbeddedKafkaBroker;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.common.topics.Topic;
import io.kubewarden.networkenforcer.processor.app.TopicPreparation;
import io.kubewarden.networkenforcer.processor.config.ProcessorConfig;
import io.kubewarden.networkenforcer.processor.progress.CatchUp;
import io.kubewarden.networkenforcer.processor.topology.NetworkEnforcerTopology;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;

/**
 * Rebuilds the proposals of a window of the flows topic in isolation: the window's flows are copied
 * (with their keys and timestamps, through the topic's serde) into a private embedded KRaft broker
 * in a temporary directory, where the processor topology runs under its own application id and
 * state. Nothing of the live installation is written: no consumer group, no internal topic, no
 * violation, no status. With no policies in the private broker the topology only learns, as the
 * live processor did for targets without a policy.
 */
final class ReplayPipeline implements AutoCloseable {
  /** Short, so evidence reaches the private proposals topic soon after the last flow. */
  private static final Duration EVIDENCE_FLUSH = Duration.ofMillis(200);
  private static final Duration COMMIT_INTERVAL = Duration.ofMillis(100);

  private final Path workDir;
  private final MeterRegistry registry;
  private EmbeddedKafkaBroker broker;
  private KafkaStreams streams;

  /**
   * What a replay produced.
   *
   * @param read the window read from the live flows topic
   * @param replayed flows of the selected namespaces handed to the topology
   * @param proposals target key -> final proposal, selected namespaces only
   * @param providers the providers of the replayed flows, with their counts
   */
  record Result(FlowWindowReader.Summary read, long replayed, Map<String, ProposalSnapshot> proposals,
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
    return "network-enforcer-replay-" + window.from().toEpochMilli() + "-" + window.to().toEpochMilli();
  }

  static ProcessorConfig processorConfig(KafkaSettings kafka, TimeWindow window, Provider provider, Path stateDir) {
    return ProcessorConfig.builder(kafka)
        .applicationId(applicationId(window))
        // One private instance, no failover: at-least-once gives the same proposals with less overhead.
        .processingGuarantee(StreamsConfig.AT_LEAST_ONCE)
        .evidenceFlushInterval(EVIDENCE_FLUSH)
        .commitInterval(COMMIT_INTERVAL)
        .stateDir(stateDir)
        .inMemoryStores(true)
        .provider(provider)
        .backend(provider.backend())
        .build()
        .validate();
  }

  Result run(KafkaSettings live, TimeWindow window, Set<String> namespaces, Provider provider, Duration timeout,
      PrintWriter err) throws InterruptedException {
    broker = EmbeddedKafkaBroker.builder().dataDir(workDir.resolve("kafka")).build().start();
    KafkaSettings replay = new KafkaSettings(broker.bootstrapServers(), live.topicPrefix(), 1, (short) 1, Map.of())
        .validate();
    ProcessorConfig config = processorConfig(replay, window, provider, workDir.resolve("streams"));
    try (Admin admin = Admin.create(replay.clientConfig())) {
      new TopicPreparation(config).prepare(admin);
      streams = new KafkaStreams(NetworkEnforcerTopology.build(config, registry), config.streamsProperties());
      streams.start();

      long[] replayed = {0};
      Map<Provider, Long> providers = new EnumMap<>(Provider.class);
      FlowWindowReader.Summary read;
      Topic<String, FlowRecord> flows = replay.topics().flows();
      try (KafkaProducer<String, FlowRecord> producer = new KafkaProducer<>(producerConfig(replay),
          flows.keySerde().serializer(), flows.valueSerde().serializer())) {
        read = new FlowWindowReader(live).read(window, (key, flow, timestamp) -> {
          if (namespaces.isEmpty() || namespaces.contains(flow.src().namespace())
              || namespaces.contains(flow.dst().namespace())) {
            replayed[0]++;
            providers.merge(flow.provider(), 1L, Long::sum);
            producer.send(new ProducerRecord<>(flows.name(), null, timestamp, key, flow));
          }
        }, HistoryProgress.every2s(err, "reading flows"));
        producer.flush();
      }
      HistoryProgress progress = HistoryProgress.every2s(err, "learning");
      progress.start(replayed[0]);
      try {
        CatchUp.of(admin, config, streams, registry).await(timeout, p -> {
          if (p.caughtUp()) {
            progress.finish(p.flowsConsumed());
          } else {
            progress.update(p.flowsConsumed());
          }
        });
      } catch (CatchUp.TimedOut e) {
        throw new IllegalStateException("processing did not finish (" + e.progress().flowsConsumed() + " of "
            + e.progress().flowsPublished() + " flows consumed); raise --timeout for large windows within "
            + e.timeout().toSeconds() + " s", e);
      }
      Map<String, ProposalSnapshot> proposals = new TreeMap<>();
      new ProposalTopicReader(replay).readAll(replay.topics().proposals()).forEach((key, p) -> {
        if (namespaces.isEmpty() || namespaces.contains(p.namespace())) {
          proposals.put(key, p);
        }
      });
      return new Result(read, replayed[0], proposals, providers);
    }
  }

  private static Properties producerConfig(KafkaSettings kafka) {
    Properties p = kafka.clientConfig();
    p.put(ProducerConfig.LINGER_MS_CONFIG, "20");
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(256 * 1024));
    p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    return p;
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
        try (Stream<Path> paths = Files.walk(workDir)) {
          paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
          // Best effort: it is a temporary directory.
        }
      }
    }
  }
}
