package io.kubewarden.networkenforcer.cli.learn;

import io.kubewarden.networkenforcer.ingest.resolution.ClusterIndex;
import io.kubewarden.networkenforcer.ingest.resolution.ClusterStateFile;
import java.io.PrintWriter;
import java.nio.file.Path;

/**
 * A {@code --cluster-state} file, loaded, with a warning when it holds no pod: flows name pods, so
 * such a file (an export of workloads only, {@code kubectl get deploy -A}) resolves nothing, and
 * every flow would be dropped without the reason being obvious.
 */
public final class ClusterStates {
  private ClusterStates() {}

  public static ClusterIndex load(Path file, PrintWriter err) {
    ClusterIndex index = ClusterStateFile.load(file);
    if (index.podCount() == 0) {
      err.println(
          "warning: cluster-state file "
              + file
              + " holds no pod, so no flow can be matched to a workload "
              + "through it; export pods too: kubectl get ns,deploy,sts,ds,rs,pods -A -o json > "
              + file.getFileName());
      err.flush();
    }
    return index;
  }
}
