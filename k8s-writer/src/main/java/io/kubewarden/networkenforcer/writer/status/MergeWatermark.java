package io.kubewarden.networkenforcer.writer.status;

import io.kubewarden.networkenforcer.common.crd.MergedOffset;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyStatus;
import io.kubewarden.networkenforcer.writer.observations.SourcedObservation;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The status's merge watermark (one next offset per topic partition): what it says is counted
 * already is skipped, and it moves past what a merge counts, in the same status update.
 */
final class MergeWatermark {
  private MergeWatermark() {}

  /** Drops what the watermark says is merged already (a re-read after a crash or hand-over). */
  static List<SourcedObservation> notYetMerged(
      WorkloadNetworkPolicyStatus s, List<SourcedObservation> observations) {
    Map<String, Long> watermark = new HashMap<>();
    s.getMergedOffsets()
        .forEach(m -> watermark.put(m.getTopic() + "/" + m.getPartition(), m.getOffset()));
    List<SourcedObservation> fresh = new ArrayList<>();
    for (SourcedObservation o : observations) {
      if (!o.sourced()
          || o.offset() >= watermark.getOrDefault(o.topic() + "/" + o.partition(), 0L)) {
        fresh.add(o);
        if (o.sourced()) {
          // The same record twice in one input counts once.
          watermark.put(o.topic() + "/" + o.partition(), o.offset() + 1);
        }
      }
    }
    return fresh;
  }

  /** The watermark moves past every record merged now; written in the same status update. */
  static void advance(WorkloadNetworkPolicyStatus s, List<SourcedObservation> merged) {
    Map<String, MergedOffset> byPartition = new TreeMap<>();
    s.getMergedOffsets()
        .forEach(
            m ->
                byPartition.put(
                    m.getTopic() + "/" + m.getPartition(),
                    new MergedOffset(m.getTopic(), m.getPartition(), m.getOffset())));
    for (SourcedObservation o : merged) {
      if (o.sourced()) {
        byPartition.merge(
            o.topic() + "/" + o.partition(),
            new MergedOffset(o.topic(), o.partition(), o.offset() + 1),
            (a, b) -> a.getOffset() >= b.getOffset() ? a : b);
      }
    }
    s.setMergedOffsets(new ArrayList<>(byPartition.values()));
  }
}
