package io.kubewarden.networkenforcer.writer.status;

import static io.kubewarden.networkenforcer.writer.Fixtures.violation;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.common.crd.CiliumPolicy;
import io.kubewarden.networkenforcer.common.crd.ViolationEndpoint;
import io.kubewarden.networkenforcer.common.crd.ViolationRecord;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicy;
import io.kubewarden.networkenforcer.common.policy.Direction;
import io.kubewarden.networkenforcer.common.policy.Mode;
import io.kubewarden.networkenforcer.writer.Fixtures;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
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

  @Test
  void aRefusedRequestIsClearedOnlyWhenTheSpecNowAllowsThatRequest() {
    WorkloadNetworkPolicy wnp = Fixtures.ciliumEgressWnp("api", Mode.protect);
    CiliumPolicy.IngressRule fromWeb =
        new CiliumPolicy.IngressRule(
            List.of(Fixtures.app("web")),
            null,
            null,
            List.of(
                new CiliumPolicy.PortRule(
                    List.of(new CiliumPolicy.PortProtocol("8080", "TCP")),
                    CiliumPolicy.L7Rules.http(
                        List.of(new CiliumPolicy.HttpRule("GET", "/orders"))))));
    wnp.getSpec().setDirection(Direction.Ingress);
    wnp.getSpec()
        .setCilium(new CiliumPolicy(Fixtures.app("api"), new ArrayList<>(List.of(fromWeb)), null));
    var allowed = SpecAllowance.of(wnp.getSpec());

    assertThat(allowed.test(refused("PUT", "/admin")))
        .as("the connection is allowed, the request still is not")
        .isFalse();
    assertThat(allowed.test(refused("GET", "/orders"))).as("a rule for it now").isTrue();
    assertThat(allowed.test(violation("api", "web", 8080, T).toRecord()))
        .as("a violation of the connection itself")
        .isTrue();
  }

  private static ViolationRecord refused(String method, String path) {
    ViolationRecord r = violation("api", "web", 8080, T).toRecord();
    r.setAction(Mode.protect);
    r.setHttpMethod(method);
    r.setHttpPath(path);
    return r;
  }
}
