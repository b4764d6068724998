package io.kubewarden.networkenforcer.common.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.common.workload.WorkloadKind;
import io.kubewarden.networkenforcer.common.workload.WorkloadRef;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ObjectNamesTest {

  private static TargetKey target(WorkloadKind kind, String name, Direction direction) {
    return new TargetKey(new WorkloadRef("ns", kind, name), direction);
  }

  @Test
  void shortNamesFollowTheKindNameDirectionRule() {
    assertThat(target(WorkloadKind.Deployment, "http-server", Direction.Ingress).objectName())
        .isEqualTo("deployment-http-server-ingress");
    assertThat(target(WorkloadKind.StatefulSet, "db", Direction.Egress).objectName())
        .isEqualTo("statefulset-db-egress");
    assertThat(target(WorkloadKind.DaemonSet, "agent", Direction.Ingress).objectName())
        .isEqualTo("daemonset-agent-ingress");
  }

  @Test
  void aNameOfExactlyTheLimitIsKept() {
    String name = "a".repeat(ObjectNames.MAX_LENGTH - "deployment--ingress".length());
    String objectName = target(WorkloadKind.Deployment, name, Direction.Ingress).objectName();
    assertThat(objectName)
        .hasSize(ObjectNames.MAX_LENGTH)
        .isEqualTo("deployment-" + name + "-ingress");
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 10, 60, 200})
  void longerNamesAreCutWithAStableHashSuffix(int over) {
    String name = "w".repeat(ObjectNames.MAX_LENGTH - "deployment--ingress".length() + over);
    TargetKey key = target(WorkloadKind.Deployment, name, Direction.Ingress);
    String objectName = key.objectName();
    assertThat(objectName.length()).isLessThanOrEqualTo(ObjectNames.MAX_LENGTH);
    assertThat(objectName)
        .startsWith("deployment-www")
        .matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?")
        .matches(".*-[0-9a-f]{10}");
    assertThat(target(WorkloadKind.Deployment, name, Direction.Ingress).objectName())
        .isEqualTo(objectName);
    assertThat(target(WorkloadKind.Deployment, name, Direction.Egress).objectName())
        .isNotEqualTo(objectName);
  }

  @Test
  void longNamesThatShareTheirHeadStillDiffer() {
    String head = "service-with-a-rather-long-name-that-goes-on-and-on-and-on";
    String a = target(WorkloadKind.Deployment, head + "-a", Direction.Ingress).objectName();
    String b = target(WorkloadKind.Deployment, head + "-b", Direction.Ingress).objectName();
    assertThat(a).isNotEqualTo(b);
    assertThat(a.substring(0, a.lastIndexOf('-'))).isEqualTo(b.substring(0, b.lastIndexOf('-')));
  }

  @Test
  void aCutThatLandsOnADashDoesNotLeaveTwoDashes() {
    // The head is 52 characters: make its last character a dash.
    String name = "x".repeat(52 - "deployment-".length() - 1) + "-" + "y".repeat(40);
    String objectName = target(WorkloadKind.Deployment, name, Direction.Egress).objectName();
    assertThat(objectName).doesNotContain("--").hasSizeLessThanOrEqualTo(ObjectNames.MAX_LENGTH);
    assertThat(objectName).matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
  }
}
