package io.kubewarden.networkenforcer.cli.standalone;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubewarden.networkenforcer.cli.config.ConfigFileOption;
import io.kubewarden.networkenforcer.cli.config.KafkaOptions;
import io.kubewarden.networkenforcer.cli.config.ServiceOptions;
import io.kubewarden.networkenforcer.cli.ranges.ClusterRangeDiscovery;
import io.kubewarden.networkenforcer.cli.ranges.ClusterRanges;
import io.kubewarden.networkenforcer.cli.services.ApiServerCheck;
import io.kubewarden.networkenforcer.cli.services.CaughtUpPage;
import io.kubewarden.networkenforcer.cli.services.IngestOptions;
import io.kubewarden.networkenforcer.cli.services.LiveViewPage;
import io.kubewarden.networkenforcer.cli.services.ProviderNameOption;
import io.kubewarden.networkenforcer.cli.services.ServiceRunner;
import io.kubewarden.networkenforcer.cli.services.StreamsOptions;
import io.kubewarden.networkenforcer.cli.services.TopicSetup;
import io.kubewarden.networkenforcer.cli.services.WriterOptions;
import io.kubewarden.networkenforcer.cli.services.WriterReadiness;
import io.kubewarden.networkenforcer.cli.version.VersionProvider;
import io.kubewarden.networkenforcer.common.config.ConfigException;
import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.http.AccessCheck;
import io.kubewarden.networkenforcer.embedded.EmbeddedKafkaBroker;
import io.kubewarden.networkenforcer.ingest.IngestConfig;
import io.kubewarden.networkenforcer.ingest.IngestService;
import io.kubewarden.networkenforcer.processor.app.StreamProcessorApp;
import io.kubewarden.networkenforcer.processor.config.ProcessorConfig;
import io.kubewarden.networkenforcer.writer.WriterConfig;
import io.kubewarden.networkenforcer.writer.WriterService;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code network-enforcer standalone}: ingest, the stream processor and the writer in one JVM with
 * an embedded single-node KRaft broker whose data directory survives restarts.
 */
@Command(
    name = "standalone",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    sortOptions = false,
    description =
        "Runs ingest, the stream processor and the writer in one process with an embedded single-node "
            + "Kafka (KRaft) broker; Kafka data and Streams state live under --data-dir. For small clusters and "
            + "local use.")
public final class StandaloneCommand implements Callable<Integer> {
  private static final Logger LOG = LoggerFactory.getLogger(StandaloneCommand.class);

  @Mixin ServiceOptions service;
  @Mixin ProviderNameOption provider;
  @Mixin IngestOptions ingest;
  @Mixin StreamsOptions streams;
  @Mixin WriterOptions writer;
  @Mixin KafkaOptions kafka;
  @Mixin ConfigFileOption configFile;

  @Option(
      names = "--data-dir",
      paramLabel = "DIR",
      defaultValue = "/var/lib/network-enforcer",
      description =
          "Kafka log and Streams state directory, kept across restarts (default: ${DEFAULT-VALUE}).")
  Path dataDir;

  @Option(
      names = "--embedded-kafka-port",
      paramLabel = "PORT",
      defaultValue = "9092",
      description =
          "Port of the embedded broker on 127.0.0.1 (0 = any free port; default: ${DEFAULT-VALUE}).")
  int kafkaPort;

  @Option(names = "--check-config", description = "Validate the configuration and exit.")
  boolean checkConfig;

  @Override
  public Integer call() throws Exception {
    service.validate();
    if (kafka.bootstrapServers() != null && !kafka.bootstrapServers().isBlank()) {
      throw new ConfigException(
          "standalone runs its own Kafka broker; remove --kafka-bootstrap-servers "
              + "(NE_KAFKA_BOOTSTRAP_SERVERS), or run ingest, processor and writer against your Kafka");
    }
    if (kafkaPort < 0 || kafkaPort > 65535) {
      throw new ConfigException("--embedded-kafka-port " + kafkaPort + " is not a port (0-65535)");
    }
    Provider p = provider.provider();
    IngestConfig ingestConfig = ingest.config(p);
    if (ingestConfig.hubbleNodeLocal() != null) {
      throw new ConfigException(
          "--hubble-node-local reads one node's Hubble server: the one standalone pod would "
              + "learn that node's flows only; read Relay (--hubble-endpoint), or run ingest per node with processor "
              + "and writer against your Kafka");
    }
    // Validate everything with a placeholder address before the broker exists.
    KafkaSettings placeholder = singleNode(kafka.settings("127.0.0.1:9092"));
    streams.config(placeholder, p, dataDir.resolve("streams"), true);
    writer.config(placeholder, service.podNamespace(), service.podName());
    if (checkConfig) {
      return 0;
    }
    String apiServer = service.apiServerSource();
    try {
      Files.createDirectories(dataDir);
    } catch (IOException e) {
      throw new ConfigException(
          "cannot create --data-dir "
              + dataDir
              + " ("
              + e
              + "); choose a writable "
              + "directory with --data-dir (NE_DATA_DIR)");
    }
    if (!Files.isWritable(dataDir)) {
      throw new ConfigException(
          "--data-dir "
              + dataDir
              + " is not writable; choose a writable directory with "
              + "--data-dir (NE_DATA_DIR)");
    }
    requireFreePort(kafkaPort);
    try (ServiceRunner runner = ServiceRunner.of("standalone", service)) {
      KubernetesClient client = runner.add(service.kubernetesClient());
      AccessCheck access = service.managementAccess(() -> client);
      runner.startManagement(access);
      ApiServerCheck.check(client, apiServer);
      EmbeddedKafkaBroker broker =
          runner.add(
              EmbeddedKafkaBroker.builder()
                  .dataDir(dataDir.resolve("kafka"))
                  .port(kafkaPort)
                  .build()
                  .start());
      KafkaSettings settings = singleNode(kafka.settings(broker.bootstrapServers()));
      TopicSetup.createMissing(settings, kafka.flowsRetentionMs());

      ProcessorConfig processorConfig =
          streams.config(settings, p, dataDir.resolve("streams"), true);
      if (streams.discoverClusterCidrs()) {
        processorConfig =
            processorConfig.toBuilder()
                .learning(
                    ClusterRanges.withDiscovered(
                        processorConfig.learning(),
                        new ClusterRangeDiscovery(client, apiServer),
                        LOG::info))
                .build()
                .validate();
      }
      StreamProcessorApp processor =
          runner.add(new StreamProcessorApp(processorConfig, runner.registry()));
      CaughtUpPage.serve(runner, processor);
      processor.start();
      // One quiet period: the processor's for new peers, the writer's for lost events.
      WriterConfig writerConfig =
          writer.config(settings, service.podNamespace(), service.podName()).toBuilder()
              .convergenceQuietPeriod(processorConfig.learning().quietPeriod())
              // One name for the pod's members: the writer's groups add their own suffix.
              .groupInstanceId(processorConfig.groupInstanceId())
              .build()
              .validate();
      WriterService writerService =
          runner.add(WriterService.create(client, writerConfig, runner.registry()));
      LiveViewPage.serve(runner, writerService, writerConfig);
      writerService.start();
      IngestService ingestService =
          runner.add(
              new IngestService(ingestConfig, settings, runner.registry(), client)
                  .dumperAccess(access));
      ingestService.start();

      runner.ready("kafka-streams", processor::isReady);
      runner.ready("ingest", ingestService::isReady);
      runner.ready("writer", WriterReadiness.of(writerService));
      runner.alive("kafka-streams", processor::isAlive);
      runner.awaitShutdown();
    }
    return 0;
  }

  /**
   * The embedded broker's port, checked before anything starts so the message can say what to
   * change.
   */
  private static void requireFreePort(int port) {
    if (port == 0) {
      return;
    }
    try (ServerSocket socket = new ServerSocket()) {
      socket.setReuseAddress(true);
      socket.bind(new InetSocketAddress("127.0.0.1", port));
    } catch (IOException e) {
      throw new ConfigException(
          "the embedded Kafka cannot listen on 127.0.0.1:"
              + port
              + " ("
              + e.getMessage()
              + "; another Kafka running?); choose a free port with --embedded-kafka-port (NE_EMBEDDED_KAFKA_PORT), "
              + "or 0 for any free port");
    }
  }

  /** One broker: every topic has one replica, whatever the option says. */
  private static KafkaSettings singleNode(KafkaSettings s) {
    return new KafkaSettings(
        s.bootstrapServers(),
        s.topicPrefix(),
        s.partitions(),
        (short) 1,
        Map.copyOf(s.clientProperties()));
  }
}
