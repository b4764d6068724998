package io.kubewarden.networkenforcer.common.codec;

/** Binary record bytes that cannot be read: truncated, a bad tag, an unknown enum code. */
public final class MalformedRecordException extends RuntimeException {

  public MalformedRecordException(String message) {
    super(message);
  }
}
