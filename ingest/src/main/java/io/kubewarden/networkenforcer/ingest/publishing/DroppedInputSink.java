package io.kubewarden.networkenforcer.ingest.publishing;

import io.kubewarden.networkenforcer.ingest.parsing.DropReason;
import java.util.function.Supplier;

/**
 * Where provider records that became no flow go, with the reason (the flow dumper's {@code
 * /flow?dropped=true}). The input is rendered only when a sink wants it.
 */
@FunctionalInterface
public interface DroppedInputSink {
  /**
   * @param source {@code hubble}, {@code goldmane}, {@code ztunnel} or {@code file}
   * @param input the provider record as text (JSON for Hubble and Goldmane, the log line for
   *     ztunnel)
   */
  void dropped(String source, DropReason reason, Supplier<String> input);
}
