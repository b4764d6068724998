package io.kubewarden.networkenforcer.ingest.publishing;

/** Where input that cannot be read goes, unchanged, with the reason. */
@FunctionalInterface
public interface DeadLetterSink {

  /**
   * @param source the component and input, for example {@code ingest/hubble}
   * @param reason what is wrong, in words an operator understands
   * @param payload the original bytes
   * @param error the exception, or null
   */
  void deadLetter(String source, String reason, byte[] payload, Throwable error);

  /** Drops everything (for callers that count bad input themselves). */
  static DeadLetterSink discard() {
    return (source, reason, payload, error) -> {};
  }
}
