package io.kubewarden.networkenforcer.common.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

class WorkloadRefTest {

  @ParameterizedTest
  @EnumSource(WorkloadKind.class)
  void roundTripsEveryKind(WorkloadKind kind) {
    WorkloadRef ref = new WorkloadRef("team-a", kind, "web-1");
    assertThat(ref.key()).isEqualTo("team-a/" + kind.name() + "/web-1");
    assertThat(WorkloadRef.parse(ref.key())).isEqualTo(ref);
    assertThat(WorkloadKind.fromKind(kind.name())).contains(kind);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "ns",
        "ns/Deployment",
        "ns/Deployment/web/extra",
        "/Deployment/web",
        "ns/Deployment/"
      })
  void rejectsKeysOfTheWrongShape(String bad) {
    assertThatThrownBy(() -> WorkloadRef.parse(bad))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a workload key (want ns/Kind/name): " + bad);
  }

  @ParameterizedTest
  @ValueSource(strings = {"ns/Pod/web", "ns/ReplicaSet/web", "ns/deployment/web", "ns/Job/web"})
  void rejectsKindsThatAreNotWorkloads(String bad) {
    assertThatThrownBy(() -> WorkloadRef.parse(bad))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a workload kind")
        .hasMessageContaining(bad);
  }

  @Test
  void nullIsRejectedWithAMessage() {
    assertThatThrownBy(() -> WorkloadRef.parse(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a workload key");
    assertThat(WorkloadKind.fromKind(null)).isEmpty();
    assertThat(WorkloadKind.Deployment.lowerCase()).isEqualTo("deployment");
  }
}
