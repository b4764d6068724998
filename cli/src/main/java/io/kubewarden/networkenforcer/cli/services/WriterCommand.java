package io.kubewarden.networkenforcer.cli.services;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubewarden.networkenforcer.cli.config.ConfigFileOption;
import io.kubewarden.networkenforcer.cli.config.KafkaOptions;
import io.kubewarden.networkenforcer.cli.config.ServiceOptions;
import io.kubewarden.networkenforcer.cli.version.VersionProvider;
import io.kubewarden.networkenforcer.common.config.Durations;
import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.writer.WriterConfig;
import io.kubewarden.networkenforcer.writer.WriterService;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code network-enforcer writer}: the leader-elected writer against a Kafka cluster and the API
 * server.
 */
@Command(
    name = "writer",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    sortOptions = false,
    description =
        "Runs the k8s-writer: the only component that writes to the API server (leader-elected): "
            + "proposals, promotion, native policies, violation status, OpenTelemetry events; publishes policies "
            + "and control commands.")
public final class WriterCommand implements Callable<Integer> {
  @Mixin ServiceOptions service;
  @Mixin KafkaOptions kafka;
  @Mixin WriterOptions writer;
  @Mixin ProviderNameOption provider;
  @Mixin ConfigFileOption configFile;
  @Mixin GroupInstanceIdOption groupInstanceId;

  @Option(
      names = "--convergence-quiet-period",
      paramLabel = "DURATION",
      defaultValue = "7d",
      description =
          "The processor's quiet period: events the data plane lost hold a proposal's Converged false "
              + "until this long has passed without loss (default: ${DEFAULT-VALUE}).")
  String quietPeriod;

  @Option(names = "--check-config", description = "Validate the configuration and exit.")
  boolean checkConfig;

  @Override
  public Integer call() throws Exception {
    service.validate();
    KafkaSettings settings = kafka.settings(null);
    WriterConfig config =
        writer.config(settings, service.podNamespace(), service.podName()).toBuilder()
            .convergenceQuietPeriod(Durations.parse("--convergence-quiet-period", quietPeriod))
            .groupInstanceId(groupInstanceId.value())
            .build()
            .validate();
    provider.validate();
    if (checkConfig) {
      return 0;
    }
    String apiServer = service.apiServerSource();
    try (ServiceRunner runner = ServiceRunner.of("writer", service)) {
      KubernetesClient client = runner.add(service.kubernetesClient());
      runner.startManagement(service.managementAccess(() -> client));
      ApiServerCheck.check(client, apiServer);
      if (kafka.createTopics()) {
        TopicSetup.createMissing(settings, kafka.flowsRetentionMs());
      }
      WriterService writerService =
          runner.add(WriterService.create(client, config, runner.registry()));
      runner.ready("writer", WriterReadiness.of(writerService));
      LiveViewPage.serve(runner, writerService, config);
      writerService.start();
      runner.awaitShutdown();
    }
    return 0;
  }
}
