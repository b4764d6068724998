package io.kubewarden.networkenforcer.writer.status;

import io.kubewarden.networkenforcer.common.crd.AcknowledgedViolation;
import io.kubewarden.networkenforcer.common.crd.ViolationRecord;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyStatus;
import io.kubewarden.networkenforcer.common.policy.Labels;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * Applies the policy's acknowledge-&lt;id&gt; annotations: each moves its active record to
 * acknowledgedViolations.
 *
 * @param acknowledged records acknowledged now or by an earlier sync whose annotation is still
 *     there
 * @param toRemove the annotations that were applied
 * @param unmatched the annotations that match no active record, sorted
 */
record Acknowledgements(
    List<AcknowledgedViolation> acknowledged, List<String> toRemove, List<String> unmatched) {

  static Acknowledgements apply(
      WorkloadNetworkPolicyStatus s, Map<String, String> annotations, String now) {
    // Ascending ids: applied oldest first, so the newest acknowledgement ends up first.
    TreeMap<Long, String> byId = new TreeMap<>();
    Map<Long, String> keyById = new LinkedHashMap<>();
    List<String> unmatched = new ArrayList<>();
    annotations.forEach(
        (key, reason) -> {
          if (key.startsWith(Labels.ACKNOWLEDGE_PREFIX)) {
            OptionalLong id = Labels.acknowledgedId(key);
            if (id.isPresent()) {
              byId.put(id.getAsLong(), reason == null ? "" : reason);
              keyById.put(id.getAsLong(), key);
            } else {
              unmatched.add(key);
            }
          }
        });
    List<AcknowledgedViolation> acknowledged = new ArrayList<>();
    List<String> toRemove = new ArrayList<>();
    byId.forEach(
        (id, reason) -> {
          ViolationRecord active =
              s.getViolations().stream().filter(r -> r.getId() == id).findFirst().orElse(null);
          if (active != null) {
            s.getViolations().remove(active);
            AcknowledgedViolation ack = new AcknowledgedViolation(active, reason, now);
            s.getAcknowledgedViolations().add(0, ack);
            acknowledged.add(ack);
            toRemove.add(keyById.get(id));
            return;
          }
          // Applied by an earlier sync whose annotation removal did not go through: finish the job.
          AcknowledgedViolation earlier =
              s.getAcknowledgedViolations().stream()
                  .filter(a -> a.getViolation() != null && a.getViolation().getId() == id)
                  .findFirst()
                  .orElse(null);
          if (earlier != null) {
            acknowledged.add(earlier);
            toRemove.add(keyById.get(id));
          } else {
            unmatched.add(keyById.get(id));
          }
        });
    unmatched.sort(Comparator.naturalOrder());
    return new Acknowledgements(acknowledged, toRemove, unmatched);
  }
}
