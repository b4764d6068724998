package io.kubewarden.networkenforcer.cli.services;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubewarden.networkenforcer.cli.config.ConfigFileOption;
import io.kubewarden.networkenforcer.cli.config.KafkaOptions;
import io.kubewarden.networkenforcer.cli.config.ServiceOptions;
import io.kubewarden.networkenforcer.cli.ranges.ClusterRangeDiscovery;
import io.kubewarden.networkenforcer.cli.ranges.ClusterRanges;
import io.kubewarden.networkenforcer.cli.version.VersionProvider;
import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.processor.app.StreamProcessorApp;
import io.kubewarden.networkenforcer.processor.config.ProcessorConfig;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code network-enforcer processor}: the Kafka Streams topology. */
@Command(
    name = "processor",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    sortOptions = false,
    description =
        "Runs the stream processor: learns allow-lists from flows, emits proposals, stops learning "
            + "where a policy exists and turns denies and monitor-mode mismatches into violations.")
public final class ProcessorCommand implements Callable<Integer> {
  private static final Logger LOG = LoggerFactory.getLogger(ProcessorCommand.class);

  @Mixin ServiceOptions service;
  @Mixin ProviderNameOption provider;
  @Mixin StreamsOptions streams;
  @Mixin KafkaOptions kafka;
  @Mixin ConfigFileOption configFile;

  @Option(
      names = "--state-dir",
      paramLabel = "DIR",
      defaultValue = "/var/lib/network-enforcer/state",
      description = "Kafka Streams state (RocksDB) directory (default: ${DEFAULT-VALUE}).")
  Path stateDir;

  @Option(names = "--check-config", description = "Validate the configuration and exit.")
  boolean checkConfig;

  @Override
  public Integer call() throws Exception {
    service.validate();
    KafkaSettings settings = kafka.settings(null);
    ProcessorConfig config =
        streams.config(settings, provider.provider(), stateDir, kafka.createTopics());
    String apiServer = streams.discoverClusterCidrs() ? service.apiServerSource() : null;
    if (checkConfig) {
      return 0;
    }
    try (ServiceRunner runner = ServiceRunner.of("processor", service)) {
      // The processor's client reviews management requests' tokens and, with
      // --discover-cluster-cidrs, lists the cluster's ranges once here; it reads nothing else.
      runner.startManagement(
          service.managementAccess(() -> runner.add(service.kubernetesClient())));
      if (apiServer != null) {
        try (KubernetesClient client = service.kubernetesClient()) {
          config =
              config.toBuilder()
                  .learning(
                      ClusterRanges.withDiscovered(
                          config.learning(),
                          new ClusterRangeDiscovery(client, apiServer),
                          LOG::info))
                  .build()
                  .validate();
        }
      }
      if (kafka.createTopics()) {
        TopicSetup.createMissing(settings, kafka.flowsRetentionMs());
      }
      StreamProcessorApp processor = runner.add(new StreamProcessorApp(config, runner.registry()));
      runner.ready("kafka-streams", processor::isReady);
      // ERROR or stopped while the process still runs: only a restart brings processing back.
      runner.alive("kafka-streams", processor::isAlive);
      CaughtUpPage.serve(runner, processor);
      processor.start();
      runner.awaitShutdown();
    }
    return 0;
  }
}
