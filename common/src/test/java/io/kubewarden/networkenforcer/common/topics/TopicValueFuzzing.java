package io.kubewarden.networkenforcer.common.topics;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.common.serialization.Deserializer;

/**
 * What the topic fuzz targets check: a record value decodes to a value, or the serde refuses it
 * with {@link RecordDecodeException} (which the consumers dead-letter), never another exception.
 */
final class TopicValueFuzzing {
  private TopicValueFuzzing() {}

  static <V> void decode(Topic<String, V> topic, byte[] value) {
    Deserializer<V> deserializer = topic.valueSerde().deserializer();
    V decoded;
    try {
      decoded = deserializer.deserialize(topic.name(), value);
    } catch (RecordDecodeException e) {
      assertThat(e.topic()).isEqualTo(topic.name());
      return;
    }
    assertThat(decoded).as("a non-null payload is a record, not a tombstone").isNotNull();
  }
}
