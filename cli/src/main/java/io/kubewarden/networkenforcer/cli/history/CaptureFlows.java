package io.kubewarden.networkenforcer.cli.history;

import io.kubewarden.networkenforcer.cli.learn.CaptureClusterState;
import io.kubewarden.networkenforcer.cli.learn.CaptureInspection;
import io.kubewarden.networkenforcer.cli.learn.ClusterStates;
import io.kubewarden.networkenforcer.cli.learn.LearnInputException;
import io.kubewarden.networkenforcer.ingest.file.CaptureFile;
import io.kubewarden.networkenforcer.ingest.file.CaptureFormat;
import io.kubewarden.networkenforcer.ingest.file.CaptureSummary;
import io.kubewarden.networkenforcer.ingest.publishing.FlowSink;
import io.kubewarden.networkenforcer.ingest.resolution.ClusterView;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The flows of a capture file, offline: the same inspection, cluster view and parsing as {@code
 * learn} (the ingest's {@link CaptureFile} with the cluster-state file, or the view derived from
 * the capture's own labels), handed to a sink instead of a topic.
 */
public final class CaptureFlows {
  private CaptureFlows() {}

  /**
   * @param err where a warning about the cluster-state file goes
   */
  public static CaptureSummary read(
      Path capture, Optional<Path> clusterState, FlowSink sink, PrintWriter err) {
    clusterState.ifPresent(
        file -> {
          if (!Files.isRegularFile(file)) {
            throw new LearnInputException(
                "cluster-state file "
                    + file
                    + " does not exist; fix --cluster-state "
                    + "or write it with: kubectl get ns,deploy,sts,ds,rs,pods -A -o json > "
                    + file.getFileName());
          }
        });
    CaptureFormat format = CaptureInspection.inspect(capture, Optional.empty());
    ClusterView view =
        clusterState
            .<ClusterView>map(file -> ClusterStates.load(file, err))
            .orElseGet(() -> CaptureClusterState.derive(capture, format));
    return CaptureFile.read(capture, Optional.of(format), view, sink);
  }
}
