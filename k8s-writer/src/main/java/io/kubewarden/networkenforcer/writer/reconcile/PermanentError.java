package io.kubewarden.networkenforcer.writer.reconcile;

/**
 * A failure that retrying cannot fix (the API server refuses the object as invalid or forbidden).
 * The controller reports it on the object and does not retry the key until it changes again.
 *
 * @see Reconciler#permanentFailure
 */
public class PermanentError extends RuntimeException {
  private final String reason;

  /**
   * @param reason a CamelCase condition reason, for example {@code Forbidden}
   */
  public PermanentError(String reason, String message, Throwable cause) {
    super(message, cause);
    this.reason = reason;
  }

  public String reason() {
    return reason;
  }
}
