package io.kubewarden.networkenforcer.cli.learn;

/** An input of {@code learn} that cannot be used; the message says what to fix (exit code 2). */
public final class LearnInputException extends RuntimeException {
  public LearnInputException(String message) {
    super(message);
  }
}
