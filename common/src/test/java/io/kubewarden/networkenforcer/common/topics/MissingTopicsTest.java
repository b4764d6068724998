package io.kubewarden.networkenforcer.common.topics;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.embedded.EmbeddedKafkaBroker;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class MissingTopicsTest {
  static EmbeddedKafkaBroker broker;

  @BeforeAll
  static void start() {
    broker = EmbeddedKafkaBroker.startDefault();
  }

  @AfterAll
  static void stop() {
    broker.close();
  }

  @Test
  void createsOnlyTheMissingTopicsWithTheirConfigAndLeavesExistingOnesAlone() throws Exception {
    Topics topics = new Topics("mt.");
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
      admin.createTopics(List.of(new NewTopic("mt.flows", 1, (short) 1))).all().get();
      List<NewTopic> wanted =
          List.of(topics.flows().newTopic(3, (short) 1), topics.policies().newTopic(3, (short) 1));

      List<String> created =
          MissingTopics.create(admin, wanted, Duration.ofSeconds(30), broker.bootstrapServers());
      List<String> again =
          MissingTopics.create(admin, wanted, Duration.ofSeconds(30), broker.bootstrapServers());
      // Returned only once every partition it created is served: producers start without "not
      // leader".
      assertThat(
              admin
                  .describeTopics(List.of("mt.policies"))
                  .allTopicNames()
                  .get()
                  .get("mt.policies")
                  .partitions())
          .allSatisfy(p -> assertThat(p.leader()).isNotNull());

      assertThat(created).containsExactly("mt.policies");
      assertThat(again).isEmpty();
      var described =
          admin.describeTopics(List.of("mt.flows", "mt.policies")).allTopicNames().get();
      assertThat(described.get("mt.flows").partitions()).hasSize(1);
      assertThat(described.get("mt.policies").partitions()).hasSize(3);
      var policiesConfig =
          admin
              .describeConfigs(
                  List.of(new ConfigResource(ConfigResource.Type.TOPIC, "mt.policies")))
              .all()
              .get()
              .values()
              .iterator()
              .next();
      assertThat(policiesConfig.get(TopicConfig.CLEANUP_POLICY_CONFIG).value())
          .isEqualTo(TopicConfig.CLEANUP_POLICY_COMPACT);
    }
  }
}
