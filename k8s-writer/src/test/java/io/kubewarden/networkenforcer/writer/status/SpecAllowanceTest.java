package io.kubewarden.networkenforcer.writer.status;

import static io.kubewarden.networkenforcer.writer.Fixtures.violation;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.common.crd.ViolationEndpoint;
import io.kubewarden.networkenforcer.common.crd.ViolationRecord;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicy;
import io.kubewarden.networkenforcer.common.policy.Mode;
import io.kubewarden.networkenforcer.writer.Fixtures;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Clearing uses the real evaluators on endpoints rebuilt from the record. */
class SpecAllowanceTest {
  static final Instant T = Instant.parse("2026-03-01T10:00:00Z");

  @Test
  void aRecordTheSpecNowAllowsIsClearedOthersStay() {
    WorkloadNetworkPolicy wnp =
        Fixtures.wnp("api", "web", Mode.monitor); // allows web -> api on TCP 8080
    var allowed = SpecAllowance.of(wnp.getSpec());

    assertThat(allowed.test(violation("api", "web", 8080, T).toRecord())).isTrue();
    assertThat(allowed.test(violation("api", "web", 9090, T).toRecord()))
        .as("other port")
        .isFalse();
    assertThat(allowed.test(violation("api", "batch", 8080, T).toRecord()))
        .as("other peer")
        .isFalse();
  }

  @Test
  void istioRecordsAreJudgedByPrincipal() {
    WorkloadNetworkPolicy wnp = Fixtures.istioWnp("api", Fixtures.app("api"), Mode.monitor);
    var allowed = SpecAllowance.of(wnp.getSpec());
    ViolationRecord r = violation("api", "frontend", 8080, T).toRecord();
    r.setSource(
        new ViolationEndpoint(
            Fixtures.NS,
            "Deployment",
            "frontend",
            "spiffe://cluster.local/ns/shop/sa/frontend",
            Fixtures.app("frontend")));
    assertThat(allowed.test(r)).isTrue();

    r.setSource(
        new ViolationEndpoint(
            Fixtures.NS,
            "Deployment",
            "intruder",
            "spiffe://cluster.local/ns/shop/sa/intruder",
            Fixtures.app("intruder")));
    assertThat(allowed.test(r)).isFalse();
  }

  @Test
  void whatCannotBeDecidedIsKept() {
    WorkloadNetworkPolicy wnp = Fixtures.wnp("api", "web", Mode.monitor);
    ViolationRecord unknownPort = violation("api", "web", 0, T).toRecord();
    assertThat(SpecAllowance.of(wnp.getSpec()).test(unknownPort)).isFalse();
    assertThat(SpecAllowance.of(null).test(unknownPort)).isFalse();
  }
}
