package io.kubewarden.networkenforcer.processor.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubewarden.networkenforcer.common.config.ConfigException;
import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.policy.Backend;
import io.kubewarden.networkenforcer.processor.rocksdb.BoundedMemoryRocksDbConfig;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;

class ProcessorConfigTest {
  private static final KafkaSettings KAFKA =
      new KafkaSettings("kafka:9092", "ne.", 6, (short) 3, Map.of("security.protocol", "SSL"));

  @Test
  void defaultsAreExactlyOnceWithA30sEvidenceFlushAndTheIstioBackend() {
    ProcessorConfig config = ProcessorConfig.builder(KAFKA).build().validate();

    assertThat(config.applicationId()).isEqualTo("network-enforcer-processor");
    assertThat(config.processingGuarantee()).isEqualTo(StreamsConfig.EXACTLY_ONCE_V2);
    assertThat(config.evidenceFlushInterval()).isEqualTo(Duration.ofSeconds(30));
    assertThat(config.provider()).isEqualTo(Provider.istio);
    assertThat(config.backend()).isEqualTo(Backend.istio);
    assertThat(config.createTopics()).isTrue();
    assertThat(config.reattributionTopic())
        .isEqualTo("network-enforcer-processor-deny-reattribution");
    assertThat(config.combineInterval()).isEqualTo(Duration.ofSeconds(1));
    assertThat(config.combineMaxPending()).isEqualTo(10_000);
    assertThat(config.toBuilder().combineMaxPending(50).build().combineMaxPending()).isEqualTo(50);
    assertThat(config.observationsShuffled()).isTrue();
    assertThat(config.toBuilder().observationsShuffled(false).build().observationsShuffled())
        .isFalse();
    // The service reads policies and single flow records; only the in-process driver does not.
    assertThat(config.policyInputs()).isTrue();
    assertThat(config.flowBatches()).isFalse();
  }

  @Test
  void streamsPropertiesCarryEverySetting() {
    Properties p =
        ProcessorConfig.builder(KAFKA)
            .provider(Provider.calico)
            .applicationId("proc")
            .commitInterval(Duration.ofMillis(500))
            .cacheMaxBytes(1234)
            .standbyReplicas(1)
            .streamThreads(2)
            .rocksDbMemoryBytes(32L * 1024 * 1024)
            .build()
            .validate()
            .streamsProperties();

    assertThat(p)
        .containsEntry(StreamsConfig.APPLICATION_ID_CONFIG, "proc")
        .containsEntry(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "kafka:9092")
        .containsEntry("security.protocol", "SSL")
        .containsEntry(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, "exactly_once_v2")
        .containsEntry(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, "500")
        .containsEntry(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, "1234")
        .containsEntry(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, "1")
        .containsEntry(StreamsConfig.NUM_STREAM_THREADS_CONFIG, "2")
        .containsEntry(StreamsConfig.REPLICATION_FACTOR_CONFIG, "3")
        .containsEntry(StreamsConfig.topicPrefix(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG), "2")
        .containsEntry(
            StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG,
            BoundedMemoryRocksDbConfig.class.getName())
        .containsEntry(ProcessorConfig.ROCKSDB_MEMORY_CONFIG, Long.toString(32L * 1024 * 1024));
  }

  @Test
  void everyGuaranteeReadsOnlyCommittedRecords() {
    for (String guarantee :
        new String[] {StreamsConfig.EXACTLY_ONCE_V2, StreamsConfig.AT_LEAST_ONCE}) {
      StreamsConfig streams =
          new StreamsConfig(
              ProcessorConfig.builder(KAFKA)
                  .processingGuarantee(guarantee)
                  .build()
                  .validate()
                  .streamsProperties());
      // As Kafka Streams configures its consumers from these properties.
      assertThat(streams.getMainConsumerConfigs("g", "c", 0))
          .as(guarantee)
          .containsEntry(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
      assertThat(streams.getRestoreConsumerConfigs("c"))
          .as(guarantee)
          .containsEntry(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    }
  }

  @Test
  void aGroupInstanceIdMakesTheMainConsumerAStaticMember() {
    assertThat(ProcessorConfig.builder(KAFKA).build().validate().streamsProperties())
        .doesNotContainKey(
            StreamsConfig.mainConsumerPrefix(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG))
        .doesNotContainKey(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG);
    assertThat(
            ProcessorConfig.builder(KAFKA)
                .groupInstanceId("network-enforcer-processor-1")
                .build()
                .validate()
                .streamsProperties())
        .containsEntry(
            StreamsConfig.mainConsumerPrefix(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG),
            "network-enforcer-processor-1");
    assertThatThrownBy(() -> ProcessorConfig.builder(KAFKA).groupInstanceId(" ").build().validate())
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("group instance id");
  }

  @Test
  void validationSaysWhatToFix() {
    assertThatThrownBy(
            () ->
                ProcessorConfig.builder(KAFKA)
                    .processingGuarantee("exactly_once")
                    .build()
                    .validate())
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("exactly_once_v2 or at_least_once");
    assertThatThrownBy(
            () ->
                ProcessorConfig.builder(KAFKA)
                    .evidenceFlushInterval(Duration.ZERO)
                    .build()
                    .validate())
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("evidence flush interval");
    assertThatThrownBy(
            () -> ProcessorConfig.builder(KAFKA).combineMaxPending(-1).build().validate())
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("at least one combination, got -1");
    // Six partitions are six tasks: an observation must reach its target's task through the topic.
    assertThatThrownBy(
            () -> ProcessorConfig.builder(KAFKA).observationsShuffled(false).build().validate())
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("only with one partition, got 6");
    ProcessorConfig.builder(new KafkaSettings("kafka:9092", null, 1, (short) 1, Map.of()))
        .observationsShuffled(false)
        .build()
        .validate();
    // Batches of flows are the in-process driver's: never the service's topic.
    assertThatThrownBy(() -> ProcessorConfig.builder(KAFKA).flowBatches(true).build().validate())
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(
            "flow batches are read by the combiner of the in-process driver only");
    ProcessorConfig.builder(new KafkaSettings("kafka:9092", null, 1, (short) 1, Map.of()))
        .observationsShuffled(false)
        .flowBatches(true)
        .build()
        .validate();
    assertThatThrownBy(() -> ProcessorConfig.builder(KAFKA).applicationId("a b").build().validate())
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("application id");
    assertThatThrownBy(
            () -> ProcessorConfig.builder(KAFKA).rocksDbMemoryBytes(1024).build().validate())
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("RocksDB memory");
    assertThatThrownBy(
            () ->
                ProcessorConfig.builder(KAFKA)
                    .provider(Provider.cilium)
                    .backend(Backend.istio)
                    .build()
                    .validate())
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("the cilium provider learns the kubernetes or cilium backend");
    assertThatThrownBy(
            () ->
                ProcessorConfig.builder(KAFKA)
                    .provider(Provider.calico)
                    .backend(Backend.cilium)
                    .build()
                    .validate())
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("the calico provider learns the kubernetes backend only");
    assertThatThrownBy(() -> ProcessorConfig.builder(KafkaSettings.of("")).build().validate())
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("bootstrap");
  }

  @Test
  void theCiliumProviderLearnsTheCiliumBackendWhenAsked() {
    ProcessorConfig config =
        ProcessorConfig.builder(KAFKA)
            .provider(Provider.cilium)
            .backend(Backend.cilium)
            .build()
            .validate();
    assertThat(config.backend()).isEqualTo(Backend.cilium);
    assertThat(
            ProcessorConfig.builder(KAFKA).provider(Provider.cilium).build().validate().backend())
        .isEqualTo(Backend.kubernetes);
  }

  @Test
  void theFileProviderTakesTheBackendItIsGiven() {
    ProcessorConfig config =
        ProcessorConfig.builder(KAFKA)
            .provider(Provider.file)
            .backend(Backend.istio)
            .build()
            .validate();
    assertThat(config.backend()).isEqualTo(Backend.istio);
  }
}
