package io.kubewarden.networkenforcer.writer.status;

import io.kubewarden.networkenforcer.common.crd.ViolationRecord;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyStatus;
import io.kubewarden.networkenforcer.common.violation.ViolationObservation;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/** The active violation records of a status: observations merged in, allowed ones cleared. */
final class ViolationRecords {
  private ViolationRecords() {}

  /**
   * New records take id = violationCount at insert; repeats refresh the timestamp; all count, each
   * as the observations it stands for.
   */
  static void merge(WorkloadNetworkPolicyStatus s, List<ViolationObservation> observations) {
    List<ViolationObservation> ordered = new ArrayList<>(observations);
    ordered.sort(
        Comparator.comparing(ViolationObservation::timestamp)); // stable: arrival order on ties
    List<ViolationRecord> records = s.getViolations();
    Map<Signature, ViolationRecord> bySignature = new HashMap<>();
    records.forEach(r -> bySignature.putIfAbsent(Signature.of(r), r));
    for (ViolationObservation o : ordered) {
      ViolationRecord incoming = o.toRecord();
      ViolationRecord existing = bySignature.get(Signature.of(incoming));
      if (existing != null) {
        if (Instant.parse(incoming.getTimestamp())
            .isAfter(Instant.parse(existing.getTimestamp()))) {
          existing.setTimestamp(incoming.getTimestamp());
          records.remove(existing);
          records.add(0, existing);
        }
      } else {
        incoming.setId(s.getViolationCount());
        records.add(0, incoming);
        bySignature.put(Signature.of(incoming), incoming);
      }
      // One per observation (api.md), whatever connection count a provider aggregated into it; a
      // record the processor combined from several flow records stands for that many observations.
      s.setViolationCount(s.getViolationCount() + o.observations());
    }
  }

  /** Removes the records the current spec allows; returns how many. */
  static int clearAllowed(WorkloadNetworkPolicyStatus s, Predicate<ViolationRecord> allowedNow) {
    int cleared = 0;
    for (Iterator<ViolationRecord> it = s.getViolations().iterator(); it.hasNext(); ) {
      if (allowedNow.test(it.next())) {
        it.remove();
        cleared++;
      }
    }
    return cleared;
  }

  /**
   * Everything that makes two records the same violation ({@link ViolationRecord#sameViolationAs}).
   */
  private record Signature(
      Object source,
      Object dest,
      Object protocol,
      int port,
      Object action,
      String policyNamespace,
      String policyName,
      String httpMethod,
      String httpPath) {
    static Signature of(ViolationRecord r) {
      return new Signature(
          r.getSource(),
          r.getDest(),
          r.getProtocol(),
          r.getDstPort(),
          r.getAction(),
          r.getDenyingPolicyNamespace(),
          r.getDenyingPolicyName(),
          r.getHttpMethod(),
          r.getHttpPath());
    }
  }
}
