package io.kubewarden.networkenforcer.chart;

import static io.kubewarden.networkenforcer.chart.HelmChart.FULLNAME;
import static io.kubewarden.networkenforcer.chart.HelmChart.values;
import static io.kubewarden.networkenforcer.chart.Manifests.container;
import static io.kubewarden.networkenforcer.chart.Manifests.env;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.policy.Backend;
import io.kubewarden.networkenforcer.common.topics.Topic;
import io.kubewarden.networkenforcer.common.topics.Topics;
import io.kubewarden.networkenforcer.processor.config.ProcessorConfig;
import io.kubewarden.networkenforcer.processor.topology.NetworkEnforcerTopology;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.TopicConfig;
import org.junit.jupiter.api.Test;

/** The optional Strimzi KafkaTopics are exactly the topics the services would create themselves. */
class StrimziTopicsTest {

  private static Manifests render(String prefix) {
    return HelmChart.render(
        values(
            "mode",
            "distributed",
            "kafka.bootstrapServers",
            "my-cluster-kafka-bootstrap:9093",
            "kafka.strimzi.createTopics",
            "true",
            "kafka.strimzi.clusterName",
            "my-cluster",
            "kafka.strimzi.namespace",
            "kafka",
            "kafka.topicPrefix",
            prefix,
            "kafka.partitions",
            "12",
            "kafka.replicationFactor",
            "3"));
  }

  @Test
  void matchTheTopicDefinitionsOfTheServices() {
    Manifests m = render("ne.");
    Topics topics = new Topics("ne.");
    // The services' topics, and the processor's loop topic (application id from the chart's
    // default).
    List<Topic<?, ?>> needed = new ArrayList<>(topics.all());
    needed.add(
        NetworkEnforcerTopology.reattributionTopic(
            ProcessorConfig.builder(new KafkaSettings("k:9092", "ne.", 12, (short) 3, Map.of()))
                .provider(Provider.cilium)
                .backend(Backend.kubernetes)
                .build()));
    assertThat(needed.get(needed.size() - 1).name())
        .isEqualTo("network-enforcer-processor-deny-reattribution");
    assertThat(m.ofKind("KafkaTopic")).hasSize(needed.size());
    for (Topic<?, ?> topic : needed) {
      NewTopic expected = topic.newTopic(12, (short) 3);
      JsonNode kafkaTopic =
          m.ofKind("KafkaTopic").stream()
              .filter(t -> t.path("spec").path("topicName").asText().equals(topic.name()))
              .findFirst()
              .orElseThrow(() -> new AssertionError("no KafkaTopic for " + topic.name()));
      assertThat(kafkaTopic.path("apiVersion").asText()).isEqualTo("kafka.strimzi.io/v1beta2");
      assertThat(kafkaTopic.path("metadata").path("namespace").asText()).isEqualTo("kafka");
      assertThat(kafkaTopic.path("metadata").path("labels").path("strimzi.io/cluster").asText())
          .isEqualTo("my-cluster");
      assertThat(
              kafkaTopic
                  .path("metadata")
                  .path("annotations")
                  .path("helm.sh/resource-policy")
                  .asText())
          .isEqualTo("keep");
      assertThat(kafkaTopic.path("spec").path("partitions").asInt())
          .isEqualTo(expected.numPartitions());
      assertThat(kafkaTopic.path("spec").path("replicas").asInt())
          .isEqualTo(expected.replicationFactor());
      Map<String, String> config = new TreeMap<>();
      kafkaTopic
          .path("spec")
          .path("config")
          .properties()
          .forEach(e -> config.put(e.getKey(), e.getValue().asText()));
      assertThat(config).as(topic.name()).isEqualTo(new TreeMap<>(expected.configs()));
    }
  }

  @Test
  void minInSyncReplicasFollowsTheReplicationFactorAsTheServicesSetIt() {
    for (int rf : new int[] {1, 2, 3, 5}) {
      Manifests m =
          HelmChart.render(
              values(
                  "mode",
                  "distributed",
                  "kafka.bootstrapServers",
                  "kafka:9092",
                  "kafka.strimzi.createTopics",
                  "true",
                  "kafka.strimzi.clusterName",
                  "my-cluster",
                  "kafka.replicationFactor",
                  Integer.toString(rf)));
      String expected =
          new Topics("x")
              .flows()
              .newTopic(1, (short) rf)
              .configs()
              .get(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG);
      assertThat(expected).isEqualTo(rf >= 3 ? "2" : "1");
      assertThat(m.ofKind("KafkaTopic"))
          .as("replication factor " + rf)
          .hasSize(9)
          .allSatisfy(
              t ->
                  assertThat(t.path("spec").path("config").path("min.insync.replicas").asText())
                      .isEqualTo(expected));
    }
  }

  @Test
  void servicesDoNotCreateTopicsStrimziOwns() {
    Manifests m = render("network-enforcer.");
    assertThat(env(container(m.get("Deployment", FULLNAME + "-ingest"), "ingest")))
        .containsEntry("NE_KAFKA_CREATE_TOPICS", "false");
    assertThat(env(container(m.get("Deployment", FULLNAME + "-writer"), "writer")))
        .containsEntry("NE_KAFKA_CREATE_TOPICS", "false");
    assertThat(m.ofKind("KafkaTopic"))
        .allSatisfy(
            t ->
                assertThat(t.path("metadata").path("name").asText())
                    .matches("[a-z0-9]([-a-z0-9.]*[a-z0-9])?"));
  }

  @Test
  void noTopicResourcesUnlessAsked() {
    Manifests m =
        HelmChart.render(values("mode", "distributed", "kafka.bootstrapServers", "kafka:9092"));
    assertThat(m.ofKind("KafkaTopic")).isEmpty();
    // Authenticated (the default): no component's principal may create a shared topic, an
    // administrator does.
    assertThat(env(container(m.get("Deployment", FULLNAME + "-ingest"), "ingest")))
        .containsEntry("NE_KAFKA_CREATE_TOPICS", "false");
    Manifests plaintext =
        HelmChart.render(
            values(
                "mode",
                "distributed",
                "kafka.bootstrapServers",
                "kafka:9092",
                "kafka.tls.enabled",
                "false",
                "kafka.insecurePlaintext",
                "true"));
    assertThat(env(container(plaintext.get("Deployment", FULLNAME + "-ingest"), "ingest")))
        .containsEntry("NE_KAFKA_CREATE_TOPICS", "true");
  }
}
