package io.kubewarden.networkenforcer.writer.proposals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.common.topics.Topics;
import io.kubewarden.networkenforcer.writer.reconcile.ObjectKey;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The object a proposal record names, or why the record is parked on dead-letter. */
class ProposalKeyTest {
  private static final Topics TOPICS = Topics.withDefaultPrefix();
  private static final String RECORD =
      "{\"name\":\"deployment-api-ingress\",\"namespace\":\"NS\",\"spec\":"
          + "{\"backend\":\"kubernetes\",\"kubernetes\":{\"podSelector\":{}},\"targetRef\":{\"kind\":\"Deployment\","
          + "\"name\":\"api\"},\"direction\":\"Ingress\"}}";

  private static ProposalSnapshot snapshot(String namespace) {
    byte[] bytes = RECORD.replace("NS", namespace).getBytes(StandardCharsets.UTF_8);
    return TOPICS
        .proposals()
        .valueSerde()
        .deserializer()
        .deserialize(TOPICS.proposals().name(), bytes);
  }

  @Test
  void aProposalNamesItsObject() {
    assertThat(ProposalConsumer.keyOf("shop/Deployment/api/Ingress", snapshot("shop")))
        .isEqualTo(new ObjectKey("shop", "deployment-api-ingress"));
  }

  /**
   * Found by WriterRecordsFuzzingTest: a proposal whose namespace is "a/b/c/d/e" was queued as the
   * key "a/b/c/d/e/deployment-api-ingress", which reads back as namespace "a" and another name; the
   * API server refuses such names anyway. It is parked with the field named.
   */
  @Test
  void aProposalWhoseNamespaceCannotNameAnObjectIsRefused() {
    assertThatThrownBy(
            () -> ProposalConsumer.keyOf("shop/Deployment/api/Ingress", snapshot("a/b/c/d/e")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "proposal record: namespace 'a/b/c/d/e' is not a namespace name (lower-case letters, digits and "
                + "'-', at most 63)");
    assertThatThrownBy(() -> ProposalConsumer.keyOf("shop/Deployment/api/Ingress", snapshot("")))
        .hasMessageContaining("namespace '' is not a namespace name");
  }
}
