package io.kubewarden.networkenforcer.ingest.file;

import io.kubewarden.networkenforcer.ingest.DropReason;
import java.util.List;
import java.util.Map;

/**
 * What reading one capture file did.
 *
 * @param format the format read (detected or given), null when no line was recognizable
 * @param lines non-blank lines read
 * @param published flow records handed to the sink
 * @param dropped records that were valid but carried no usable flow, by reason
 * @param badLines lines that could not be decoded (sent to the dead-letter sink)
 * @param errors the first few bad lines as {@code line N: reason}
 */
public record CaptureSummary(CaptureFormat format, long lines, long published, Map<DropReason, Long> dropped,
    long badLines, List<String> errors) {

  public CaptureSummary {
    dropped = Map.copyOf(dropped);
    errors = List.copyOf(errors);
  }

  public long droppedTotal() {
    return dropped.values().stream().mapToLong(Long::longValue).sum();
  }
}
