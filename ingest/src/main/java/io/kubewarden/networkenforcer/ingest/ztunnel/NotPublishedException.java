package io.kubewarden.networkenforcer.ingest.ztunnel;

/**
 * An export whose flows Kafka did not all acknowledge: the sender must send it again (gRPC
 * UNAVAILABLE, HTTP 503, both retried by fluent-bit and the OTel SDK). Some of its flows may have
 * arrived: a resend doubles those, the processor counts each flow record it reads.
 */
public final class NotPublishedException extends RuntimeException {
  public NotPublishedException(String message) {
    super(message);
  }
}
