package io.kubewarden.networkenforcer.processor.observation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubewarden.networkenforcer.common.codec.MalformedRecordException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class FlowBatchTest {
  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void eachRecordComesBackInOrderWithItsKeyValueAndTimestamp() {
    List<FlowBatch.Entry> entries =
        List.of(
            new FlowBatch.Entry(bytes("demo/a"), bytes("first"), 1_000L),
            new FlowBatch.Entry(null, bytes("no key"), 2_000L),
            new FlowBatch.Entry(bytes("demo/b"), null, 3_000L),
            new FlowBatch.Entry(bytes(""), new byte[0], -5L));
    List<String> seen = new ArrayList<>();

    FlowBatch.forEach(
        FlowBatch.encode(entries),
        (key, value, timestamp) ->
            seen.add(
                (key == null ? "null" : new String(key, StandardCharsets.UTF_8))
                    + "|"
                    + (value == null ? "null" : new String(value, StandardCharsets.UTF_8))
                    + "|"
                    + timestamp));

    assertThat(seen)
        .containsExactly("demo/a|first|1000", "null|no key|2000", "demo/b|null|3000", "||-5");
  }

  @Test
  void bytesThatAreNotABatchAreRefusedWithAReason() {
    byte[] batch = FlowBatch.encode(List.of(new FlowBatch.Entry(bytes("k"), bytes("value"), 1L)));

    assertThatThrownBy(
            () -> FlowBatch.forEach(Arrays.copyOf(batch, batch.length - 2), (k, v, t) -> {}))
        .isInstanceOf(MalformedRecordException.class)
        .hasMessageContaining("not a flow batch");
    assertThatThrownBy(
            () -> FlowBatch.forEach(Arrays.copyOf(batch, batch.length + 1), (k, v, t) -> {}))
        .isInstanceOf(MalformedRecordException.class)
        .hasMessageContaining("bytes after its last record");
    assertThatThrownBy(() -> FlowBatch.forEach(new byte[] {0, 1}, (k, v, t) -> {}))
        .isInstanceOf(MalformedRecordException.class);
  }
}
