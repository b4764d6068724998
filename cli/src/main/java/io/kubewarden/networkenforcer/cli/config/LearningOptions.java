package io.kubewarden.networkenforcer.cli.config;

import io.kubewarden.networkenforcer.common.config.Durations;
import io.kubewarden.networkenforcer.processor.config.LearningSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * How learning treats addresses outside the cluster and when a proposal converges (processor,
 * standalone, learn).
 */
public class LearningOptions {
  @Option(
      names = "--cluster-cidr",
      paramLabel = "CIDR",
      split = ",",
      description =
          "The cluster's pod and service ranges (repeatable or comma-separated): never learned as "
              + "outside peers, and excepted from the widened outside rule.")
  List<String> clusterCidrs = new ArrayList<>();

  @Option(
      names = "--external-peers",
      paramLabel = "address|outside-cluster",
      defaultValue = "address",
      description =
          "How calls to addresses outside the cluster are learned: one ipBlock per observed address "
              + "(address, default), or every address outside --cluster-cidr on the observed ports (outside-cluster).")
  String externalPeers;

  @Option(
      names = "--external-peers-widen-above",
      paramLabel = "N",
      defaultValue = "10",
      description =
          "With --external-peers address: once more than N distinct outside addresses use one port "
              + "of one workload (its clients, or the addresses behind a name it calls), that port "
              + "is learned as one rule for every address outside --cluster-cidr, their DNS names "
              + "kept as evidence; 1 to 10000 (default: ${DEFAULT-VALUE}).")
  int externalPeersWidenAbove;

  @Option(
      names = "--cilium-entities",
      description =
          "With --backend cilium: learn the rule for every address outside the cluster as Cilium's "
              + "entity world (toEntities/fromEntities), which needs no --cluster-cidr, instead of "
              + "0.0.0.0/0 and ::/0 except --cluster-cidr.")
  boolean ciliumEntities;

  @Option(
      names = "--learn-l7-http",
      description =
          "With --backend cilium: learn on every ingress port that HTTP requests reached through "
              + "Cilium's L7 proxy the method and path of each (toPorts[].rules.http, path as an "
              + "anchored regex); more than "
              + LearningSettings.MAX_HTTP_RULES_PER_PORT
              + " on one port leave it L3/L4 only. Off by default.")
  boolean l7Http;

  @Option(
      names = "--convergence-quiet-period",
      paramLabel = "DURATION",
      defaultValue = "7d",
      description =
          "A proposal is Converged after this long (flow time) without a new peer or port "
              + "(default: ${DEFAULT-VALUE}).")
  String quietPeriod;

  @Option(
      names = "--convergence-min-observations",
      paramLabel = "N",
      defaultValue = "100",
      description = "... and at least this many observations (default: ${DEFAULT-VALUE}).")
  long minObservations;

  public LearningSettings settings() {
    List<String> cidrs = clusterCidrs.stream().map(String::trim).filter(s -> !s.isEmpty()).toList();
    Duration quiet = Durations.parse("--convergence-quiet-period", quietPeriod);
    return new LearningSettings(
            cidrs,
            LearningSettings.ExternalPeers.parse(externalPeers),
            quiet,
            minObservations,
            externalPeersWidenAbove,
            ciliumEntities,
            l7Http)
        .validate();
  }
}
