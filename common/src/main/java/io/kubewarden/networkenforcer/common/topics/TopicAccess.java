package io.kubewarden.networkenforcer.common.topics;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * The Kafka ACLs of each component's principal: exactly the topics its code reads and writes, its
 * consumer groups and transactional ids, nothing else. Whoever holds ingest's credentials can then
 * write flows, never a policy; whoever holds the writer's can write policies, never a flow.
 * Measured against a broker with an authorizer, each component running with exactly its row ({@code
 * KafkaAclTest}); the chart's Strimzi KafkaUsers and README carry the same rows.
 *
 * <p>No component gets CREATE on the shared topics: with authentication they are declared by the
 * chart (Strimzi KafkaTopics) or by an administrator. No cluster permission either: an idempotent
 * producer needs only WRITE on its topics (KIP-679), a transactional one WRITE on its id.
 */
public final class TopicAccess {
  private static final List<AclOperation> PRODUCE =
      List.of(AclOperation.WRITE, AclOperation.DESCRIBE);
  private static final List<AclOperation> CONSUME =
      List.of(AclOperation.READ, AclOperation.DESCRIBE);

  private TopicAccess() {}

  /**
   * Ingest: writes {@code flows} (FlowPublisher), {@code data-plane-loss} (LossPublisher) and
   * {@code dead-letter} (DeadLetterPublisher). On start it reads the end of {@code flows} it wrote
   * (ResumePoint: assigned partitions, no group), which READ on flows allows.
   */
  public static List<AclBinding> ingest(String principal, Topics topics) {
    List<AclBinding> acls = new ArrayList<>();
    for (Topic<?, ?> topic : List.of(topics.flows(), topics.dataPlaneLoss(), topics.deadLetter())) {
      acls.addAll(topic(principal, topic.name(), PatternType.LITERAL, PRODUCE));
    }
    acls.addAll(
        topic(principal, topics.flows().name(), PatternType.LITERAL, List.of(AclOperation.READ)));
    return acls;
  }

  /**
   * The processor (Kafka Streams, application id {@code applicationId}): reads {@code flows},
   * {@code policies}, {@code control} and {@code native-policies} (global store, no group); writes
   * {@code proposals}, {@code violations} and {@code dead-letter}; owns every topic named {@code
   * <applicationId>-...}: its loop topic {@code -deny-reattribution} and Kafka Streams' repartition
   * and changelog topics, which Kafka Streams creates, checks (configs), reads, writes and trims
   * (DeleteRecords). Its consumer group is the application id; its transactional ids ({@code
   * exactly_once_v2}) start with it.
   */
  public static List<AclBinding> processor(String principal, Topics topics, String applicationId) {
    List<AclBinding> acls = new ArrayList<>();
    for (Topic<?, ?> in :
        List.of(topics.flows(), topics.policies(), topics.control(), topics.nativePolicies())) {
      acls.addAll(topic(principal, in.name(), PatternType.LITERAL, CONSUME));
    }
    for (Topic<?, ?> out : List.of(topics.proposals(), topics.violations(), topics.deadLetter())) {
      acls.addAll(topic(principal, out.name(), PatternType.LITERAL, PRODUCE));
    }
    acls.addAll(
        topic(
            principal,
            applicationId + "-",
            PatternType.PREFIXED,
            List.of(
                AclOperation.CREATE,
                AclOperation.READ,
                AclOperation.WRITE,
                AclOperation.DESCRIBE,
                AclOperation.DESCRIBE_CONFIGS,
                AclOperation.DELETE)));
    acls.add(
        allow(
            principal, ResourceType.GROUP, applicationId, PatternType.LITERAL, AclOperation.READ));
    for (AclOperation operation : PRODUCE) {
      acls.add(
          allow(
              principal,
              ResourceType.TRANSACTIONAL_ID,
              applicationId + "-",
              PatternType.PREFIXED,
              operation));
    }
    return acls;
  }

  /** The writer's consumer groups: {@code <prefix>-<what>} (LeaderSession). */
  public static List<String> writerGroups(String consumerGroupPrefix) {
    return List.of(
        consumerGroupPrefix + "-proposals",
        consumerGroupPrefix + "-violations",
        consumerGroupPrefix + "-loss");
  }

  /**
   * The writer: writes {@code policies} and {@code control} (PolicyPublisher), {@code
   * native-policies} (NativePolicyPublisher) and {@code dead-letter}; reads {@code proposals},
   * {@code violations} and {@code data-plane-loss} in its three groups ({@link #writerGroups}), and
   * re-reads the live keys of {@code policies} and {@code native-policies} at each leadership
   * (PolicyTopicReader, no group).
   */
  public static List<AclBinding> writer(
      String principal, Topics topics, String consumerGroupPrefix) {
    List<AclBinding> acls = new ArrayList<>();
    for (Topic<?, ?> out :
        List.of(
            topics.policies(), topics.control(), topics.nativePolicies(), topics.deadLetter())) {
      acls.addAll(topic(principal, out.name(), PatternType.LITERAL, PRODUCE));
    }
    for (Topic<?, ?> in :
        List.of(topics.proposals(), topics.violations(), topics.dataPlaneLoss())) {
      acls.addAll(topic(principal, in.name(), PatternType.LITERAL, CONSUME));
    }
    for (Topic<?, ?> reread : List.of(topics.policies(), topics.nativePolicies())) {
      acls.addAll(topic(principal, reread.name(), PatternType.LITERAL, List.of(AclOperation.READ)));
    }
    for (String group : writerGroups(consumerGroupPrefix)) {
      acls.add(allow(principal, ResourceType.GROUP, group, PatternType.LITERAL, AclOperation.READ));
    }
    return acls;
  }

  private static List<AclBinding> topic(
      String principal, String name, PatternType pattern, List<AclOperation> operations) {
    return operations.stream()
        .map(o -> allow(principal, ResourceType.TOPIC, name, pattern, o))
        .toList();
  }

  private static AclBinding allow(
      String principal,
      ResourceType type,
      String name,
      PatternType pattern,
      AclOperation operation) {
    return new AclBinding(
        new ResourcePattern(type, name, pattern),
        new AccessControlEntry(principal, "*", operation, AclPermissionType.ALLOW));
  }
}
