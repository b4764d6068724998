package io.kubewarden.networkenforcer.cli.ranges;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubewarden.networkenforcer.cli.config.ClusterOptions;
import io.kubewarden.networkenforcer.cli.config.ClusterRangeOptions;
import io.kubewarden.networkenforcer.common.config.ConfigException;
import io.kubewarden.networkenforcer.processor.config.LearningSettings;
import java.io.PrintWriter;
import java.util.List;
import java.util.function.Consumer;

/** Learning settings with the discovered cluster ranges merged into the configured ones. */
public final class ClusterRanges {
  private ClusterRanges() {}

  /**
   * For a command line ({@code learn}, {@code replay}): with {@code --discover-cluster-cidrs} the
   * configured ranges and those of the cluster {@code --kubeconfig}/{@code --context} name (as
   * kubectl finds it otherwise), the line going to {@code err}; without it the configured ones, and
   * a named cluster is refused rather than ignored.
   */
  public static LearningSettings forCommandLine(
      LearningSettings configured,
      ClusterRangeOptions ranges,
      ClusterOptions cluster,
      PrintWriter err) {
    if (!ranges.discover()) {
      if (cluster.given()) {
        throw new ConfigException(
            "--kubeconfig and --context only name the cluster --discover-cluster-cidrs reads its "
                + "ranges from; add --discover-cluster-cidrs or drop them");
      }
      return configured;
    }
    cluster.validate();
    String apiServer = cluster.source();
    try (KubernetesClient client = cluster.commandLineClient()) {
      return withDiscovered(configured, new ClusterRangeDiscovery(client, apiServer), err::println);
    }
  }

  /**
   * Discovers, merges (configured first, see {@link DiscoveredRanges#mergedWith}) and reports one
   * line of what came from where to {@code log}.
   */
  public static LearningSettings withDiscovered(
      LearningSettings settings, ClusterRangeDiscovery discovery, Consumer<String> log) {
    DiscoveredRanges discovered = discovery.discover();
    List<String> configured = settings.clusterCidrs();
    List<String> merged = discovered.mergedWith(configured);
    log.accept(
        "cluster ranges: "
            + discovered.describe(configured)
            + " => never learned as outside peers and excepted from the widened rule: "
            + (merged.isEmpty()
                ? "none (the widened rule is 0.0.0.0/0 and ::/0 without except)"
                : merged));
    return settings.withClusterCidrs(merged).validate();
  }
}
