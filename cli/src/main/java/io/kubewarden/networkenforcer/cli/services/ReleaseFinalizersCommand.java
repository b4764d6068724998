package io.kubewarden.networkenforcer.cli.services;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubewarden.networkenforcer.cli.config.ClusterOptions;
import io.kubewarden.networkenforcer.cli.version.VersionProvider;
import io.kubewarden.networkenforcer.writer.proposals.FinalizerRelease;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code network-enforcer release-finalizers}: the writer's finalizer off every proposal, for when
 * no writer runs any more (the chart's post-delete hook runs it after {@code helm uninstall}).
 */
@Command(
    name = "release-finalizers",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description =
        "Removes the writer's finalizer networkenforcer.kubewarden.io/learning-reset from every "
            + "WorkloadNetworkPolicyProposal of the cluster, so that proposals can be deleted once no "
            + "writer runs (the chart's post-delete hook runs it after helm uninstall). Needs get, list "
            + "and patch on workloadnetworkpolicyproposals.",
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:every proposal is free of the finalizer",
      "1:runtime failure (API server unreachable, refused, ...)",
      "2:bad options"
    })
public final class ReleaseFinalizersCommand implements Callable<Integer> {
  @Mixin ClusterOptions cluster = new ClusterOptions();

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    cluster.validate();
    String source = cluster.source(); // no cluster configured at all: say so, exit 2
    try (KubernetesClient client = cluster.commandLineClient()) {
      int released = FinalizerRelease.releaseAll(client);
      spec.commandLine()
          .getOut()
          .println("finalizer removed from " + released + " proposal(s), via " + source);
    }
    return 0;
  }
}
