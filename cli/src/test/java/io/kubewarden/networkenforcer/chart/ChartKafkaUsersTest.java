package io.kubewarden.networkenforcer.chart;

import static io.kubewarden.networkenforcer.chart.HelmChart.FULLNAME;
import static io.kubewarden.networkenforcer.chart.HelmChart.values;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.kubewarden.networkenforcer.common.topics.TopicAccess;
import io.kubewarden.networkenforcer.common.topics.Topics;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.resource.PatternType;
import org.junit.jupiter.api.Test;

/**
 * The chart's Strimzi KafkaUsers carry exactly the ACL rows of {@link TopicAccess} (which {@code
 * KafkaAclTest} runs each component with), for a topic prefix and application id of the user's.
 */
class ChartKafkaUsersTest {
  private static final String PREFIX = "acme.";
  private static final String APPLICATION_ID = "acme-processor";

  @Test
  void eachComponentsKafkaUserHasExactlyItsTopicAccessRow() {
    Manifests m =
        HelmChart.render(
            values(
                "mode",
                "distributed",
                "kafka.bootstrapServers",
                "c-kafka-bootstrap:9093",
                "kafka.strimzi.createUsers",
                "true",
                "kafka.strimzi.clusterName",
                "c",
                "kafka.topicPrefix",
                PREFIX,
                "processor.applicationId",
                APPLICATION_ID));
    Topics topics = new Topics(PREFIX);
    Map<String, List<AclBinding>> rows =
        Map.of(
            "ingest", TopicAccess.ingest("User:x", topics),
            "processor", TopicAccess.processor("User:x", topics, APPLICATION_ID),
            "writer", TopicAccess.writer("User:x", topics, "network-enforcer-writer"));
    assertThat(m.ofKind("KafkaUser")).hasSize(3);
    rows.forEach(
        (component, acls) -> {
          JsonNode user = m.get("KafkaUser", FULLNAME + "-kafka-" + component);
          assertThat(user.path("metadata").path("labels").path("strimzi.io/cluster").asText())
              .isEqualTo("c");
          assertThat(user.path("spec").path("authorization").path("type").asText())
              .isEqualTo("simple");
          assertThat(rendered(user)).as(component).isEqualTo(expected(acls)).hasSize(acls.size());
        });
  }

  @Test
  void scramUsersWhenAskedForScram() {
    Manifests m =
        HelmChart.render(
            values(
                "mode",
                "distributed",
                "kafka.bootstrapServers",
                "c-kafka-bootstrap:9093",
                "kafka.strimzi.createUsers",
                "true",
                "kafka.strimzi.clusterName",
                "c",
                "kafka.authentication",
                "scram-sha-512"));
    assertThat(m.ofKind("KafkaUser"))
        .hasSize(3)
        .allSatisfy(
            u ->
                assertThat(u.path("spec").path("authentication").path("type").asText())
                    .isEqualTo("scram-sha-512"));
  }

  /** "type name pattern Operation" per rendered operation. */
  private static Set<String> rendered(JsonNode user) {
    Set<String> out = new TreeSet<>();
    for (JsonNode acl : Manifests.elements(user.path("spec").path("authorization").path("acls"))) {
      JsonNode r = acl.path("resource");
      assertThat(acl.path("host").asText()).isEqualTo("*");
      for (JsonNode op : Manifests.elements(acl.path("operations"))) {
        out.add(
            r.path("type").asText()
                + " "
                + r.path("name").asText()
                + " "
                + r.path("patternType").asText()
                + " "
                + op.asText());
      }
    }
    return out;
  }

  private static Set<String> expected(List<AclBinding> acls) {
    return acls.stream()
        .map(
            b ->
                strimziType(b.pattern().resourceType().name())
                    + " "
                    + b.pattern().name()
                    + " "
                    + (b.pattern().patternType() == PatternType.PREFIXED ? "prefix" : "literal")
                    + " "
                    + camel(b.entry().operation().name()))
        .collect(Collectors.toCollection(TreeSet::new));
  }

  /** TOPIC -> topic, TRANSACTIONAL_ID -> transactionalId: Strimzi's spelling of Kafka's enums. */
  private static String strimziType(String kafka) {
    String c = camel(kafka);
    return Character.toLowerCase(c.charAt(0)) + c.substring(1);
  }

  /** DESCRIBE_CONFIGS -> DescribeConfigs. */
  private static String camel(String kafka) {
    StringBuilder b = new StringBuilder();
    for (String part : kafka.split("_")) {
      b.append(part.charAt(0)).append(part.substring(1).toLowerCase());
    }
    return b.toString();
  }
}
