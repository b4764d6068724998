package io.kubewarden.networkenforcer.common.topics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.header.Headers;
import org.junit.jupiter.api.Test;

class TopicsTest {

  @Test
  void namesCarryThePrefix() {
    assertThat(Topics.withDefaultPrefix().all())
        .extracting(Topic::name)
        .containsExactly(
            "network-enforcer.flows",
            "network-enforcer.policies",
            "network-enforcer.control",
            "network-enforcer.proposals",
            "network-enforcer.violations",
            "network-enforcer.dead-letter",
            "network-enforcer.native-policies",
            "network-enforcer.data-plane-loss");
    assertThat(new Topics("prod-").flows().name()).isEqualTo("prod-flows");
    assertThat(new Topics(null).control()).hasToString("control");
  }

  @Test
  void snapshotsAreCompactedAndFlowsKeepTheReplayWindow() {
    Topics topics = Topics.withDefaultPrefix();
    NewTopic policies = topics.policies().newTopic(6, (short) 3);
    assertThat(policies.numPartitions()).isEqualTo(6);
    assertThat(policies.replicationFactor()).isEqualTo((short) 3);
    assertThat(policies.configs())
        .containsEntry(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT)
        .doesNotContainKey(TopicConfig.RETENTION_MS_CONFIG);
    assertThat(topics.proposals().newTopic(1, (short) 1).configs())
        .containsEntry(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT);
    for (Topic<?, ?> deleted :
        new Topic<?, ?>[] {topics.control(), topics.violations(), topics.deadLetter()}) {
      assertThat(deleted.newTopic(1, (short) 1).configs())
          .as(deleted.name())
          .containsEntry(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_DELETE);
    }
    assertThat(topics.flows().newTopic(1, (short) 1).configs())
        .containsEntry(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_DELETE)
        .containsEntry(
            TopicConfig.RETENTION_MS_CONFIG, Long.toString(Duration.ofDays(7).toMillis()));
    // Loss records outlive the quiet period (7 days by default) they hold proposals back for.
    assertThat(topics.dataPlaneLoss().newTopic(1, (short) 1).configs())
        .containsEntry(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_DELETE)
        .containsEntry(
            TopicConfig.RETENTION_MS_CONFIG, Long.toString(Duration.ofDays(30).toMillis()));
  }

  @Test
  void everyTopicNeedsOneReplicaLessThanItHasInSyncAtMostTwo() {
    assertThat(MinInSyncReplicas.of(1)).isEqualTo(1);
    assertThat(MinInSyncReplicas.of(2)).isEqualTo(1);
    assertThat(MinInSyncReplicas.of(3)).isEqualTo(2);
    assertThat(MinInSyncReplicas.of(5)).isEqualTo(2);
    assertThatThrownBy(() -> MinInSyncReplicas.of(0)).isInstanceOf(IllegalArgumentException.class);
    for (Topic<?, ?> topic : Topics.withDefaultPrefix().all()) {
      assertThat(topic.newTopic(6, (short) 3).configs())
          .as(topic.name())
          .containsEntry(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, "2");
      assertThat(topic.newTopic(1, (short) 1).configs())
          .as(topic.name())
          .containsEntry(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, "1");
    }
  }

  @Test
  void deadLetterKeepsTheBytesAndCarriesTheReasonInHeaders() {
    Topic<byte[], byte[]> dlq = Topics.withDefaultPrefix().deadLetter();
    byte[] original = {0, 1, (byte) 0xff};
    assertThat(
            dlq.valueSerde()
                .deserializer()
                .deserialize(
                    dlq.name(), dlq.valueSerde().serializer().serialize(dlq.name(), original)))
        .isEqualTo(original);

    RecordDecodeException error =
        new RecordDecodeException("network-enforcer.flows", "not a valid FlowRecord", null);
    Headers headers =
        DeadLetterHeaders.of(
            "stream-processor/flows", error.getMessage(), error, "network-enforcer.flows", 3, 42L);
    assertThat(DeadLetterHeaders.get(headers, DeadLetterHeaders.REASON))
        .isEqualTo("cannot read record of topic network-enforcer.flows: not a valid FlowRecord");
    assertThat(DeadLetterHeaders.get(headers, DeadLetterHeaders.EXCEPTION))
        .isEqualTo(RecordDecodeException.class.getName());
    assertThat(DeadLetterHeaders.get(headers, DeadLetterHeaders.SOURCE))
        .isEqualTo("stream-processor/flows");
    assertThat(DeadLetterHeaders.get(headers, DeadLetterHeaders.ORIGIN_TOPIC))
        .isEqualTo("network-enforcer.flows");
    assertThat(DeadLetterHeaders.get(headers, DeadLetterHeaders.ORIGIN_PARTITION)).isEqualTo("3");
    assertThat(DeadLetterHeaders.get(headers, DeadLetterHeaders.ORIGIN_OFFSET)).isEqualTo("42");
    assertThat(
            new String(
                headers.lastHeader(DeadLetterHeaders.REASON).value(), StandardCharsets.UTF_8))
        .contains("FlowRecord");

    Headers neverInKafka = DeadLetterHeaders.of("ingest/hubble", null, null, null, -1, -1);
    assertThat(DeadLetterHeaders.get(neverInKafka, DeadLetterHeaders.REASON)).isEqualTo("unknown");
    assertThat(DeadLetterHeaders.get(neverInKafka, DeadLetterHeaders.ORIGIN_TOPIC)).isNull();
    assertThat(DeadLetterHeaders.get(neverInKafka, DeadLetterHeaders.EXCEPTION)).isNull();
  }
}
