package io.kubewarden.networkenforcer.common.crd;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.Objects;

/**
 * Ours: how far one partition of the violations topic is merged into a policy's status. Written in
 * the same status update as the records it covers, so a record is merged at most once even when a
 * new writer reads it again after a crash or hand-over.
 */
public class MergedOffset {
  @JsonPropertyDescription("The violations topic.")
  private String topic;

  @JsonPropertyDescription("The partition of the topic.")
  private int partition;

  @JsonPropertyDescription("The first offset of that partition not merged yet.")
  private long offset;

  public MergedOffset() {}

  public MergedOffset(String topic, int partition, long offset) {
    this.topic = topic;
    this.partition = partition;
    this.offset = offset;
  }

  public String getTopic() {
    return topic;
  }

  public void setTopic(String topic) {
    this.topic = topic;
  }

  public int getPartition() {
    return partition;
  }

  public void setPartition(int partition) {
    this.partition = partition;
  }

  public long getOffset() {
    return offset;
  }

  public void setOffset(long offset) {
    this.offset = offset;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof MergedOffset m
        && Objects.equals(topic, m.topic)
        && partition == m.partition
        && offset == m.offset;
  }

  @Override
  public int hashCode() {
    return Objects.hash(topic, partition, offset);
  }

  @Override
  public String toString() {
    return topic + "-" + partition + "@" + offset;
  }
}
