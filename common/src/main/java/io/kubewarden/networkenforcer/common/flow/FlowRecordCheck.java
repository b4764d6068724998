package io.kubewarden.networkenforcer.common.flow;

import java.util.Optional;

/**
 * What a flow record read from a topic must hold beyond its shape: names that a key can be built
 * of. The processor keys a target {@code ns/Kind/name/Direction} and parses it back; a namespace or
 * a workload name that is empty or holds a {@code /} (a forged record, a data plane that reports
 * odd names) once stopped the processor's stream thread on that parse, at every restart. Readers
 * refuse such a record (the processor dead-letters it with this reason).
 */
public final class FlowRecordCheck {
  private FlowRecordCheck() {}

  /** Empty when the record can be learned from; otherwise why not. */
  public static Optional<String> problem(FlowRecord flow) {
    return endpoint("src", flow.src()).or(() -> endpoint("dst", flow.dst()));
  }

  private static Optional<String> endpoint(String end, FlowEndpoint e) {
    return name(end + ".namespace", e.namespace())
        .or(() -> name(end + ".workloadName", e.workloadName()));
  }

  private static Optional<String> name(String field, String value) {
    if (value == null || (!value.isEmpty() && value.indexOf('/') < 0)) {
      return Optional.empty();
    }
    return Optional.of(
        field
            + " '"
            + value
            + "' is not a Kubernetes name (it is empty or holds a '/'); the "
            + "producer must write the name as the cluster has it, or leave the field out");
  }
}
