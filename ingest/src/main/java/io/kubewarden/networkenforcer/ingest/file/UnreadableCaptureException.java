package io.kubewarden.networkenforcer.ingest.file;

/** A capture that cannot be read as text; the message names the problem and what to do. */
public final class UnreadableCaptureException extends RuntimeException {
  public UnreadableCaptureException(String message) {
    super(message);
  }

  public UnreadableCaptureException(String message, Throwable cause) {
    super(message, cause);
  }
}
