package io.kubewarden.networkenforcer.cli.services;

import io.kubewarden.networkenforcer.cli.config.ClusterRangeOptions;
import io.kubewarden.networkenforcer.cli.config.LearningOptions;
import io.kubewarden.networkenforcer.common.config.ConfigException;
import io.kubewarden.networkenforcer.common.config.Durations;
import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.policy.Backend;
import io.kubewarden.networkenforcer.processor.config.ProcessorConfig;
import java.nio.file.Path;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** The stream processor's options (processor and standalone), named like the chart's variables. */
public class StreamsOptions {
  @Option(
      names = "--application-id",
      paramLabel = "ID",
      defaultValue = ProcessorConfig.DEFAULT_APPLICATION_ID,
      description =
          "Kafka Streams application id: consumer group and internal topic prefix (default: ${DEFAULT-VALUE}).")
  String applicationId;

  @Option(
      names = "--processing-guarantee",
      paramLabel = "exactly_once_v2|at_least_once",
      defaultValue = "exactly_once_v2",
      description = "Default: ${DEFAULT-VALUE} (violation counts never double).")
  String processingGuarantee;

  @Option(
      names = "--num-standby-replicas",
      paramLabel = "N",
      defaultValue = "0",
      description =
          "Warm copies of each task's state on other instances (default: ${DEFAULT-VALUE}).")
  int standbyReplicas;

  @Option(
      names = "--num-stream-threads",
      paramLabel = "N",
      defaultValue = "1",
      description = "Stream threads of this instance (default: ${DEFAULT-VALUE}).")
  int streamThreads;

  @Option(
      names = "--evidence-flush-interval",
      paramLabel = "DURATION",
      defaultValue = "30s",
      description =
          "How often changed evidence is published to proposals (default: ${DEFAULT-VALUE}).")
  String evidenceFlushInterval;

  @Option(
      names = "--commit-interval",
      paramLabel = "DURATION",
      defaultValue = "1s",
      description = "Offset and transaction commit interval (default: ${DEFAULT-VALUE}).")
  String commitInterval;

  @Option(
      names = "--observation-combine-interval",
      paramLabel = "DURATION",
      defaultValue = "1s",
      description =
          "How long repeated observations of one target and flow are combined before the repartition "
              + "(the repartition then carries aggregates, not flows; violation counts stay exact); 0 sends each alone "
              + "(default: ${DEFAULT-VALUE}).")
  String combineInterval;

  @Option(
      names = "--proposal-interval",
      paramLabel = "DURATION",
      defaultValue = "10s",
      description =
          "A target's proposal is published when its allow-list changes, then at most once per interval "
              + "with every change since (a target gaining many peers at once is rendered once, not once per peer); "
              + "0 publishes every change at once (default: ${DEFAULT-VALUE}).")
  String proposalInterval;

  @Mixin GroupInstanceIdOption groupInstanceId = new GroupInstanceIdOption();

  @Option(
      names = "--backend",
      paramLabel = "kubernetes|istio|cilium",
      description =
          "The policy model proposals are learned in: kubernetes (NetworkPolicy), istio "
              + "(AuthorizationPolicy) or cilium (CiliumNetworkPolicy: external egress by DNS name; provider "
              + "cilium only). Default: the provider's (istio for istio, kubernetes otherwise).")
  String backend;

  @Mixin LearningOptions learning = new LearningOptions();

  @Mixin ClusterRangeOptions ranges = new ClusterRangeOptions();

  /** Whether the cluster's ranges are read from the API server at start. */
  public boolean discoverClusterCidrs() {
    return ranges.discover();
  }

  private Backend backend(Provider provider) {
    if (backend == null || backend.isBlank()) {
      return provider.backend();
    }
    try {
      return Backend.parse(backend.trim());
    } catch (IllegalArgumentException e) {
      throw new ConfigException("--backend (NE_BACKEND): " + e.getMessage());
    }
  }

  /** The validated processor configuration; its state lives in {@code stateDir}. */
  public ProcessorConfig config(
      KafkaSettings kafka, Provider provider, Path stateDir, boolean createTopics) {
    if (stateDir == null) {
      throw new ConfigException(
          "the processor needs a state directory; set --state-dir (NE_STATE_DIR)");
    }
    return ProcessorConfig.builder(kafka)
        .applicationId(applicationId)
        .processingGuarantee(processingGuarantee)
        .standbyReplicas(standbyReplicas)
        .streamThreads(streamThreads)
        .evidenceFlushInterval(Durations.parse("--evidence-flush-interval", evidenceFlushInterval))
        .commitInterval(Durations.parse("--commit-interval", commitInterval))
        .combineInterval(Durations.parse("--observation-combine-interval", combineInterval))
        .proposalInterval(Durations.parse("--proposal-interval", proposalInterval))
        .stateDir(stateDir)
        .provider(provider)
        .backend(backend(provider))
        .createTopics(createTopics)
        .learning(learning.settings())
        .groupInstanceId(groupInstanceId.value())
        .build()
        .validate();
  }
}
