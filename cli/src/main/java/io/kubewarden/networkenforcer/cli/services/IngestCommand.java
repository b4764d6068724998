package io.kubewarden.networkenforcer.cli.services;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubewarden.networkenforcer.cli.config.ConfigFileOption;
import io.kubewarden.networkenforcer.cli.config.KafkaOptions;
import io.kubewarden.networkenforcer.cli.config.ServiceOptions;
import io.kubewarden.networkenforcer.cli.version.VersionProvider;
import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.http.AccessCheck;
import io.kubewarden.networkenforcer.ingest.IngestConfig;
import io.kubewarden.networkenforcer.ingest.IngestService;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code network-enforcer ingest}: the provider source publishing normalized flows to Kafka. */
@Command(
    name = "ingest",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    sortOptions = false,
    description =
        "Runs ingest: reads flows from the provider (Hubble Relay, Goldmane, or ztunnel logs over OTLP "
            + "from fluent-bit), resolves pods to workloads with read-only informers and publishes flow records to "
            + "the flows topic.")
public final class IngestCommand implements Callable<Integer> {
  @Mixin ServiceOptions service;
  @Mixin ProviderNameOption provider;
  @Mixin IngestOptions ingest;
  @Mixin KafkaOptions kafka;
  @Mixin ConfigFileOption configFile;

  @Option(names = "--check-config", description = "Validate the configuration and exit.")
  boolean checkConfig;

  @Override
  public Integer call() throws Exception {
    service.validate();
    KafkaSettings settings = kafka.settings(null);
    IngestConfig config = ingest.config(provider.provider());
    if (checkConfig) {
      return 0;
    }
    try (ServiceRunner runner = ServiceRunner.of("ingest", service)) {
      KubernetesClient client = runner.add(service.kubernetesClient());
      AccessCheck access = service.managementAccess(() -> client);
      runner.startManagement(access);
      if (config.clusterStateFile() == null) {
        ApiServerCheck.check(client, service.apiServerSource());
      }
      if (kafka.createTopics()) {
        TopicSetup.createMissing(settings, kafka.flowsRetentionMs());
      }
      IngestService ingestService =
          runner.add(
              new IngestService(config, settings, runner.registry(), client).dumperAccess(access));
      runner.ready("ingest", ingestService::isReady);
      // Not ready while the brokers do not answer: senders keep their flows in their own buffers.
      runner.ready("kafka", ingestService::kafkaReachable);
      ingestService.start();
      runner.awaitShutdown();
    }
    return 0;
  }
}
