package io.kubewarden.networkenforcer.common.crd;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.kubewarden.networkenforcer.common.policy.Mode;
import java.util.Objects;

/** Spec of a WorkloadNetworkPolicy: the allow-list plus the enforcement mode. */
public class WorkloadNetworkPolicySpec extends PolicySpec {

  @Default("monitor")
  @JsonPropertyDescription(
      "monitor: report violations only; protect: also render the native policy that blocks.")
  private Mode mode = Mode.monitor;

  public Mode getMode() {
    return mode;
  }

  public void setMode(Mode mode) {
    this.mode = mode;
  }

  @Override
  public boolean equals(Object o) {
    return super.equals(o) && mode == ((WorkloadNetworkPolicySpec) o).mode;
  }

  @Override
  public int hashCode() {
    return Objects.hash(super.hashCode(), mode);
  }
}
