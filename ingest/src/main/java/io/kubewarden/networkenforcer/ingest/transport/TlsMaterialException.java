package io.kubewarden.networkenforcer.ingest.transport;

/** Certificates or keys that are missing or unreadable. The message says which and where. */
public class TlsMaterialException extends RuntimeException {
  public TlsMaterialException(String message, Throwable cause) {
    super(message, cause);
  }
}
