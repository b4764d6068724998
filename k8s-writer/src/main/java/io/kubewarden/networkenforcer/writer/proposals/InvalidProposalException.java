package io.kubewarden.networkenforcer.writer.proposals;

/**
 * A proposal record that can never be applied (no target, a key that is not a target, or an object
 * the API server rejects as invalid: 400 or 422). It goes to the dead-letter topic instead of blocking its
 * partition with retries.
 */
public class InvalidProposalException extends RuntimeException {
  public InvalidProposalException(String message, Throwable cause) {
    super(message, cause);
  }
}
