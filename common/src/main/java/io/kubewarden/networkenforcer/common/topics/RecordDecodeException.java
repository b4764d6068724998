package io.kubewarden.networkenforcer.common.topics;

import org.apache.kafka.common.errors.SerializationException;

/**
 * A record that cannot be read. Services route the original bytes to the dead-letter topic with
 * {@link #getMessage()} as the reason, and go on.
 */
public class RecordDecodeException extends SerializationException {
  private final String topic;

  public RecordDecodeException(String topic, String reason, Throwable cause) {
    super("cannot read record of topic " + topic + ": " + reason, cause);
    this.topic = topic;
  }

  public String topic() {
    return topic;
  }
}
