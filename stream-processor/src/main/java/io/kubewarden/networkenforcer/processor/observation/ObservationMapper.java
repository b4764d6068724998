package io.kubewarden.networkenforcer.processor.observation;

import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.common.flow.Verdict;
import io.kubewarden.networkenforcer.common.policy.Backend;
import io.kubewarden.networkenforcer.common.policy.Direction;
import io.kubewarden.networkenforcer.common.workload.WorkloadRef;
import io.kubewarden.networkenforcer.processor.metrics.ProcessorMetrics;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.streams.KeyValue;

/**
 * Turns one flow into the observations of the targets it concerns, keyed by target.
 *
 * <ul>
 *   <li>Kubernetes backend, forwarded flow: the source's egress and the destination's ingress.
 *   <li>Istio backend: the destination's ingress only, TCP only (ztunnel sees inbound TCP; UDP
 *       never passes it).
 *   <li>A deny belongs to the side that enforced it: reporter SOURCE → the source's egress,
 *       DESTINATION → the destination's ingress. Reporter UNKNOWN → the destination's ingress,
 *       which passes it on to the source's egress when it has no policy itself. On Istio every deny
 *       is the destination's (ztunnel enforces inbound only).
 * </ul>
 *
 * <p>{@link #map} decides from the few fields that matter (so the {@link ObservationCombiner} can
 * decide without decoding the whole record) and {@link #count} records the decision in the metrics
 * once the record is known to be readable.
 */
public final class ObservationMapper {
  private final Backend backend;
  private final ProcessorMetrics metrics;

  public ObservationMapper(Backend backend, ProcessorMetrics metrics) {
    this.backend = backend;
    this.metrics = metrics;
  }

  /**
   * The targets of one flow, at most two, and the reasons a flow concerned fewer; reused per flow.
   * {@link #map} decides from whether each end has a workload; {@link #resolve} then names the
   * targets, which only a flow that is not yet combined needs.
   */
  public static final class Targets {
    private int size;
    private final boolean[] ofSource = new boolean[2];
    private final Direction[] directions = new Direction[2];
    private final boolean[] sourceFallback = new boolean[2];
    private final String[] keys = new String[2];
    private final String[] fallbacks = new String[2];
    private int ignoredCount;
    private final String[] ignored = new String[2];
    private String unattributed;

    void clear() {
      size = 0;
      ignoredCount = 0;
      unattributed = null;
    }

    void add(boolean source, Direction direction, boolean fallbackToSource) {
      ofSource[size] = source;
      directions[size] = direction;
      sourceFallback[size] = fallbackToSource;
      keys[size] = null;
      fallbacks[size] = null;
      size++;
    }

    void ignore(String reason) {
      ignored[ignoredCount++] = reason;
    }

    /** Names the targets {@link #map} chose, from the flow's two workloads (null for none). */
    public Targets resolve(WorkloadRef src, WorkloadRef dst) {
      for (int i = 0; i < size; i++) {
        keys[i] = (ofSource[i] ? src : dst).key() + "/" + directions[i].name();
        fallbacks[i] =
            sourceFallback[i] && src != null ? src.key() + "/" + Direction.Egress.name() : null;
      }
      return this;
    }

    public int size() {
      return size;
    }

    /** The target key ({@code ns/Kind/name/Direction}) of the {@code i}th target, once resolved. */
    public String key(int i) {
      return keys[i];
    }

    /** Where the {@code i}th target passes a deny on when it has no policy; null for none. */
    public String fallback(int i) {
      return fallbacks[i];
    }
  }

  /**
   * Decides which targets a flow with these fields concerns, from whether each end has a workload;
   * records nothing.
   */
  public void map(
      Protocol protocol,
      Verdict verdict,
      Reporter reporter,
      boolean hasSrc,
      boolean hasDst,
      Targets out) {
    out.clear();
    if (backend == Backend.istio) {
      if (protocol != Protocol.TCP) {
        out.ignore("istio-not-tcp");
      } else if (!hasDst) {
        out.ignore("no-destination-workload");
      } else {
        out.add(false, Direction.Ingress, false);
      }
      return;
    }
    if (verdict == Verdict.FORWARDED) {
      addIfPresent(out, hasSrc, true, Direction.Egress, "no-source-workload");
      addIfPresent(out, hasDst, false, Direction.Ingress, "no-destination-workload");
      return;
    }
    switch (reporter) {
      case SOURCE -> addDeny(out, hasSrc, true, Direction.Egress, "deny-without-source-workload");
      case DESTINATION ->
          addDeny(out, hasDst, false, Direction.Ingress, "deny-without-destination-workload");
      case UNKNOWN -> {
        if (hasDst) {
          out.add(false, Direction.Ingress, hasSrc);
        } else {
          addDeny(out, hasSrc, true, Direction.Egress, "deny-without-workloads");
        }
      }
    }
  }

  /** Records one flow received and what {@link #map} decided for it. */
  public void count(Targets targets) {
    metrics.flowReceived();
    for (int i = 0; i < targets.ignoredCount; i++) {
      metrics.flowIgnored(targets.ignored[i]);
    }
    if (targets.unattributed != null) {
      metrics.unattributed(targets.unattributed);
    }
    for (int i = 0; i < targets.size; i++) {
      metrics.observation(targets.directions[i].name());
    }
  }

  public List<KeyValue<String, Observation>> observe(FlowRecord flow) {
    Targets targets = new Targets();
    WorkloadRef src = flow.src().workload().orElse(null);
    WorkloadRef dst = flow.dst().workload().orElse(null);
    map(flow.protocol(), flow.verdict(), flow.reporter(), src != null, dst != null, targets);
    count(targets);
    targets.resolve(src, dst);
    List<KeyValue<String, Observation>> out = new ArrayList<>(targets.size);
    for (int i = 0; i < targets.size; i++) {
      out.add(KeyValue.pair(targets.keys[i], new Observation(flow, targets.fallbacks[i])));
    }
    return out;
  }

  private static void addIfPresent(
      Targets out, boolean present, boolean source, Direction direction, String missingReason) {
    if (present) {
      out.add(source, direction, false);
    } else {
      out.ignore(missingReason);
    }
  }

  private static void addDeny(
      Targets out, boolean present, boolean source, Direction direction, String missingReason) {
    if (present) {
      out.add(source, direction, false);
    } else {
      out.unattributed = missingReason;
    }
  }
}
