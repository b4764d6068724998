package io.kubewarden.networkenforcer.writer.status;

import static io.kubewarden.networkenforcer.writer.Fixtures.violation;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class ViolationBufferTest {
  static final TopicPartition P0 = new TopicPartition("violations", 0);
  static final TopicPartition P1 = new TopicPartition("violations", 1);
  static final Instant T = Instant.parse("2026-03-01T10:00:00Z");

  @Test
  void anOffsetAdvancesOnlyPastWrittenRecords() {
    ViolationBuffer b = new ViolationBuffer();
    b.add(P0, 10, violation("api", "web", 80, T));
    b.add(P0, 11, violation("db", "api", 5432, T));
    b.add(P0, 12, violation("api", "web", 80, T));

    assertThat(b.committable()).as("nothing written yet: offset 10 stays pinned").isEmpty();
    b.written("shop/deployment-db-ingress");
    assertThat(b.committable()).as("record 10 (api) is still unwritten").isEmpty();
    b.written("shop/deployment-api-ingress");
    assertThat(b.committable().get(P0).offset()).isEqualTo(13);
    assertThat(b.size()).isZero();
  }

  @Test
  void writtenRecordsBeforeAnUnwrittenOneCommitUpToIt() {
    ViolationBuffer b = new ViolationBuffer();
    b.add(P0, 0, violation("db", "api", 5432, T));
    b.add(P0, 1, violation("api", "web", 80, T));
    b.written("shop/deployment-db-ingress");
    var offsets = b.committable();
    assertThat(offsets.get(P0).offset()).isEqualTo(1);
    b.committed(offsets);
    assertThat(b.committable()).as("already committed").isEmpty();
  }

  @Test
  void skippedRecordsMoveTheOffsetAndRevokedPartitionsAreForgotten() {
    ViolationBuffer b = new ViolationBuffer();
    b.skip(P1, 4);
    b.add(P0, 0, violation("api", "web", 80, T));
    assertThat(b.committable()).containsOnlyKeys(P1);
    assertThat(b.committable().get(P1).offset()).isEqualTo(5);
    b.dropPartitions(List.of(P0));
    assertThat(b.size()).isZero();
    assertThat(b.policies()).isEmpty();
  }
}
