package io.kubewarden.networkenforcer.common.crd;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.policy.Mode;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * What counts as a repeat of a status record (api.md: same source, dest, protocol, port, action,
 * policy).
 */
class ViolationRecordTest {

  private static ViolationRecord record() {
    ViolationRecord r = new ViolationRecord();
    r.setId(7);
    r.setTimestamp("2026-03-01T10:00:00Z");
    r.setSource(new ViolationEndpoint("shop", "Deployment", "client", null, null));
    r.setDest(new ViolationEndpoint("shop", "StatefulSet", "db", null, null));
    r.setProtocol(Protocol.TCP);
    r.setDstPort(5432);
    r.setAction(Mode.monitor);
    r.setDenyingPolicyNamespace("shop");
    r.setDenyingPolicyName("statefulset-db-ingress");
    return r;
  }

  private static ViolationRecord changed(Consumer<ViolationRecord> change) {
    ViolationRecord r = record().copy();
    change.accept(r);
    return r;
  }

  @Test
  void idAndTimestampDoNotMakeADifferentViolation() {
    ViolationRecord later =
        changed(
            r -> {
              r.setId(9);
              r.setTimestamp("2026-03-01T11:00:00Z");
            });
    assertThat(later.sameViolationAs(record())).isTrue();
    assertThat(later).isNotEqualTo(record());
    assertThat(record().copy()).isEqualTo(record()).hasSameHashCodeAs(record());
  }

  @Test
  void everyOtherFieldDoes() {
    assertThat(changed(r -> r.setDstPort(5433)).sameViolationAs(record())).isFalse();
    assertThat(changed(r -> r.setProtocol(Protocol.UDP)).sameViolationAs(record())).isFalse();
    assertThat(changed(r -> r.setAction(Mode.protect)).sameViolationAs(record())).isFalse();
    assertThat(changed(r -> r.setDenyingPolicyName("other")).sameViolationAs(record())).isFalse();
    assertThat(changed(r -> r.setDenyingPolicyNamespace("other")).sameViolationAs(record()))
        .isFalse();
    assertThat(
            changed(
                    r ->
                        r.setSource(
                            new ViolationEndpoint("shop", "Deployment", "other", null, null)))
                .sameViolationAs(record()))
        .isFalse();
    assertThat(
            changed(
                    r ->
                        r.setDest(
                            new ViolationEndpoint("shop", "StatefulSet", "db", "spiffe://x", null)))
                .sameViolationAs(record()))
        .isFalse();
  }
}
