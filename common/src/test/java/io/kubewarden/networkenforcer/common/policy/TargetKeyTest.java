package io.kubewarden.networkenforcer.common.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubewarden.networkenforcer.common.workload.WorkloadKind;
import io.kubewarden.networkenforcer.common.workload.WorkloadRef;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TargetKeyTest {

  @Test
  void formatsAndParsesTheKey() {
    TargetKey key =
        new TargetKey(new WorkloadRef("shop", WorkloadKind.StatefulSet, "db"), Direction.Egress);
    assertThat(key.key()).isEqualTo("shop/StatefulSet/db/Egress");
    assertThat(key).hasToString("shop/StatefulSet/db/Egress");
    assertThat(key.namespace()).isEqualTo("shop");
    assertThat(TargetKey.parse(key.key())).isEqualTo(key);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "Ingress | not a target key",
        "ns/Deployment/web | not a direction (want Ingress or Egress): web",
        "ns/Deployment/web/ingress | not a direction (want Ingress or Egress): ingress",
        "ns/Deployment/web/ | not a direction",
        "ns/Pod/web/Ingress | not a workload kind: Pod",
        "/Deployment/web/Ingress | not a workload key",
        "ns/Deployment//Ingress | not a workload key",
        "a/b/Deployment/web/Ingress | not a workload key"
      })
  void rejectsBadKeysSayingWhatIsWrong(String bad, String message) {
    assertThatThrownBy(() -> TargetKey.parse(bad))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(message);
  }

  @Test
  void rejectsNull() {
    assertThatThrownBy(() -> TargetKey.parse(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a target key");
    assertThatThrownBy(() -> new TargetKey(null, Direction.Ingress))
        .isInstanceOf(NullPointerException.class);
  }
}
