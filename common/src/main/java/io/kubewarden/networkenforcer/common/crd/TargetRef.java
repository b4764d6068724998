package io.kubewarden.networkenforcer.common.crd;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Required;
import io.kubewarden.networkenforcer.common.workload.WorkloadKind;
import java.util.Objects;

/** The workload a proposal or policy is for, in the same namespace. */
public class TargetRef {
  @Required
  @JsonPropertyDescription("Deployment, StatefulSet, DaemonSet or CronJob.")
  private WorkloadKind kind;

  @Required
  @JsonPropertyDescription("Name of the workload.")
  private String name;

  public TargetRef() {}

  public TargetRef(WorkloadKind kind, String name) {
    this.kind = kind;
    this.name = name;
  }

  public WorkloadKind getKind() {
    return kind;
  }

  public void setKind(WorkloadKind kind) {
    this.kind = kind;
  }

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TargetRef t && kind == t.kind && Objects.equals(name, t.name);
  }

  @Override
  public int hashCode() {
    return Objects.hash(kind, name);
  }

  @Override
  public String toString() {
    return kind + "/" + name;
  }
}
