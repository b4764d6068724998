package io.kubewarden.networkenforcer.processor.observation;

import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Verdict;
import io.kubewarden.networkenforcer.common.policy.Backend;
import io.kubewarden.networkenforcer.common.policy.Direction;
import io.kubewarden.networkenforcer.common.policy.TargetKey;
import io.kubewarden.networkenforcer.common.workload.WorkloadRef;
import io.kubewarden.networkenforcer.processor.metrics.ProcessorMetrics;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.streams.KeyValue;

/**
 * Turns one flow into the observations of the targets it concerns, keyed by target.
 *
 * <ul>
 *   <li>Kubernetes backend, forwarded flow: the source's egress and the destination's ingress.
 *   <li>Istio backend: the destination's ingress only, TCP only (ztunnel sees inbound TCP; UDP never
 *       passes it).
 *   <li>A deny belongs to the side that enforced it: reporter SOURCE → the source's egress,
 *       DESTINATION → the destination's ingress. Reporter UNKNOWN → the destination's ingress, which
 *       passes it on to the source's egress when it has no policy itself. On Istio every deny is the
 *       destination's (ztunnel enforces inbound only).
 * </ul>
 */
public final class ObservationMapper {
  private final Backend backend;
  private final ProcessorMetrics metrics;

  public ObservationMapper(Backend backend, ProcessorMetrics metrics) {
    this.backend = backend;
    this.metrics = metrics;
  }

  public List<KeyValue<String, Observation>> observe(FlowRecord flow) {
    metrics.flowReceived();
    List<KeyValue<String, Observation>> out = new ArrayList<>(2);
    Optional<WorkloadRef> src = flow.src().workload();
    Optional<WorkloadRef> dst = flow.dst().workload();
    if (backend == Backend.istio) {
      if (flow.protocol() != Protocol.TCP) {
        metrics.flowIgnored("istio-not-tcp");
      } else if (dst.isEmpty()) {
        metrics.flowIgnored("no-destination-workload");
      } else {
        add(out, new TargetKey(dst.get(), Direction.Ingress), Observation.of(flow));
      }
      return out;
    }
    if (flow.verdict() == Verdict.FORWARDED) {
      addIfPresent(out, src, Direction.Egress, flow, "no-source-workload");
      addIfPresent(out, dst, Direction.Ingress, flow, "no-destination-workload");
      return out;
    }
    switch (flow.reporter()) {
      case SOURCE -> addDeny(out, src, Direction.Egress, flow, "deny-without-source-workload");
      case DESTINATION -> addDeny(out, dst, Direction.Ingress, flow, "deny-without-destination-workload");
      case UNKNOWN -> {
        if (dst.isPresent()) {
          String fallback = src.map(w -> new TargetKey(w, Direction.Egress).key()).orElse(null);
          add(out, new TargetKey(dst.get(), Direction.Ingress), new Observation(flow, fallback));
        } else {
          addDeny(out, src, Direction.Egress, flow, "deny-without-workloads");
        }
      }
    }
    return out;
  }

  private void addIfPresent(List<KeyValue<String, Observation>> out, Optional<WorkloadRef> workload,
      Direction direction, FlowRecord flow, String missingReason) {
    if (workload.isPresent()) {
      add(out, new TargetKey(workload.get(), direction), Observation.of(flow));
    } else {
      metrics.flowIgnored(missingReason);
    }
  }

  private void addDeny(List<KeyValue<String, Observation>> out, Optional<WorkloadRef> workload,
      Direction direction, FlowRecord flow, String missingReason) {
    if (workload.isPresent()) {
      add(out, new TargetKey(workload.get(), direction), Observation.of(flow));
    } else {
      metrics.unattributed(missingReason);
    }
  }

  private void add(List<KeyValue<String, Observation>> out, TargetKey target, Observation observation) {
    metrics.observation(target.direction().name());
    out.add(KeyValue.pair(target.key(), observation));
  }
}
