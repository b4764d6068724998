package io.kubewarden.networkenforcer.ingest.file;

import io.kubewarden.networkenforcer.ingest.parsing.DropReason;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * What reading one capture file did.
 *
 * @param format the format read (detected or given), null when no line was recognizable
 * @param lines non-blank lines read
 * @param published flow records handed to the sink
 * @param dropped records that were valid but carried no usable flow, by reason
 * @param badLines lines that could not be decoded (sent to the dead-letter sink)
 * @param errors the first few bad lines as {@code line N: reason}
 * @param lostEvents events Hubble reported lost ({@code lost_events} records): the capture is
 *     incomplete
 * @param inferredFlows published flows with an endpoint whose workload was inferred from its pod
 *     name
 * @param unreadableNodes nodes Hubble Relay reported unavailable or in error during the capture:
 *     their flows for that time are missing, uncounted
 */
public record CaptureSummary(
    CaptureFormat format,
    long lines,
    long published,
    Map<DropReason, Long> dropped,
    long badLines,
    List<String> errors,
    long lostEvents,
    long inferredFlows,
    SortedSet<String> unreadableNodes) {

  public CaptureSummary {
    dropped = Map.copyOf(dropped);
    errors = List.copyOf(errors);
    unreadableNodes = Collections.unmodifiableSortedSet(new TreeSet<>(unreadableNodes));
  }

  public CaptureSummary(
      CaptureFormat format,
      long lines,
      long published,
      Map<DropReason, Long> dropped,
      long badLines,
      List<String> errors) {
    this(format, lines, published, dropped, badLines, errors, 0, 0, new TreeSet<>());
  }

  public long droppedTotal() {
    return dropped.values().stream().mapToLong(Long::longValue).sum();
  }
}
