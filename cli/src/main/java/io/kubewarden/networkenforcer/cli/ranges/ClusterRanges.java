package io.kubewarden.networkenforcer.cli.ranges;

import io.kubewarden.networkenforcer.processor.config.LearningSettings;
import java.util.List;
import java.util.function.Consumer;

/** Learning settings with the discovered cluster ranges merged into the configured ones. */
public final class ClusterRanges {
  private ClusterRanges() {}

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
