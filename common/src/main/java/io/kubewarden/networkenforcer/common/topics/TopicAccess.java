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
 * The Kafka ACLs of a component's principal: exactly the topics its code writes. Whoever holds
 * ingest's credentials can then write flows (and its loss reports and dead letters), never a
 * policy or a control command. So far ingest's row, measured against a broker with an authorizer
 * ({@code KafkaAclTest}); the processor's and the writer's follow the same shape.
 */
public final class TopicAccess {
  private TopicAccess() {}

  /**
   * Ingest: {@code flows} (FlowPublisher), {@code data-plane-loss} (LossPublisher) and
   * {@code dead-letter} (DeadLetterPublisher): write and describe (producer metadata), nothing
   * else. The idempotent producer needs no cluster permission (KIP-679: WRITE on a topic).
   */
  public static List<AclBinding> ingest(String principal, Topics topics) {
    List<AclBinding> acls = new ArrayList<>();
    for (Topic<?, ?> topic : List.of(topics.flows(), topics.dataPlaneLoss(), topics.deadLetter())) {
      for (AclOperation operation : List.of(AclOperation.WRITE, AclOperation.DESCRIBE)) {
        acls.add(allow(principal, topic.name(), operation));
      }
    }
    return acls;
  }

  private static AclBinding allow(String principal, String topic, AclOperation operation) {
    return new AclBinding(new ResourcePattern(ResourceType.TOPIC, topic, PatternType.LITERAL),
        new AccessControlEntry(principal, "*", operation, AclPermissionType.ALLOW));
  }
}
