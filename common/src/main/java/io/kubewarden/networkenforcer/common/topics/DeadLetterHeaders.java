package io.kubewarden.networkenforcer.common.topics;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * Headers of a dead-letter record: the original key and value are kept as they were, the error and
 * where the record came from travel in these headers.
 */
public final class DeadLetterHeaders {
  public static final String REASON = "network-enforcer.error.reason";
  public static final String EXCEPTION = "network-enforcer.error.exception";
  public static final String SOURCE = "network-enforcer.error.source";
  public static final String ORIGIN_TOPIC = "network-enforcer.error.topic";
  public static final String ORIGIN_PARTITION = "network-enforcer.error.partition";
  public static final String ORIGIN_OFFSET = "network-enforcer.error.offset";

  private DeadLetterHeaders() {}

  /**
   * Headers for a record that failed.
   *
   * @param source the component and input that rejected it, for example {@code ingest/hubble}
   * @param originTopic the topic it was read from, or null when it never was in Kafka
   */
  public static Headers of(
      String source,
      String reason,
      Throwable error,
      String originTopic,
      int partition,
      long offset) {
    Headers h = new RecordHeaders();
    h.add(SOURCE, bytes(source));
    h.add(REASON, bytes(reason == null ? "unknown" : reason));
    if (error != null) {
      h.add(EXCEPTION, bytes(error.getClass().getName()));
    }
    if (originTopic != null) {
      h.add(ORIGIN_TOPIC, bytes(originTopic));
      h.add(ORIGIN_PARTITION, bytes(Integer.toString(partition)));
      h.add(ORIGIN_OFFSET, bytes(Long.toString(offset)));
    }
    return h;
  }

  /** The value of a header as text, or null. */
  public static String get(Headers headers, String key) {
    var h = headers.lastHeader(key);
    return h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
