package io.kubewarden.networkenforcer.writer.status;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.kubewarden.networkenforcer.common.crd.AcknowledgedViolation;
import io.kubewarden.networkenforcer.common.crd.MergedOffset;
import io.kubewarden.networkenforcer.common.crd.ViolationRecord;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyStatus;
import io.kubewarden.networkenforcer.common.policy.Labels;
import io.kubewarden.networkenforcer.common.violation.ViolationObservation;
import io.kubewarden.networkenforcer.writer.conditions.Conditions;
import io.kubewarden.networkenforcer.writer.conditions.StatusConditions;
import io.kubewarden.networkenforcer.writer.observations.SourcedObservation;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * The status rules of the API contract as one pure function: merge new observations, clear the
 * records the current spec allows, apply acknowledgements, set counts and observedGeneration. No
 * I/O; the status sync feeds it and writes the result.
 */
public final class StatusMerger {

  private final int maxRecords;

  public StatusMerger() {
    this(WorkloadNetworkPolicyStatus.MAX_RECORDS);
  }

  public StatusMerger(int maxRecords) {
    this.maxRecords = maxRecords;
  }

  /**
   * What one status sync starts from.
   *
   * @param current the live status (null for a new policy)
   * @param generation the policy's metadata.generation
   * @param observations new observations for this policy, in arrival order, with where they were
   *     read; those below the status's merge watermark of their partition are already counted and
   *     skipped
   * @param allowedNow true for a record the current spec allows (it is cleared)
   * @param annotations the policy's annotations (acknowledge-&lt;id&gt; = reason)
   * @param renderConditions conditions reported by rendering, replacing the previous ones of their
   *     types
   */
  public record Input(
      WorkloadNetworkPolicyStatus current,
      Long generation,
      List<SourcedObservation> observations,
      Predicate<ViolationRecord> allowedNow,
      Map<String, String> annotations,
      List<Condition> renderConditions,
      Instant now) {
    public Input {
      observations = observations == null ? List.of() : observations;
      allowedNow = allowedNow == null ? r -> false : allowedNow;
      annotations = annotations == null ? Map.of() : annotations;
      renderConditions = renderConditions == null ? List.of() : renderConditions;
      Objects.requireNonNull(now, "now");
    }
  }

  /**
   * The merged status and what to do after it is written.
   *
   * @param acknowledged records moved to acknowledgedViolations by this sync (or earlier, if their
   *     annotation is still there): emit their event after the annotation is removed
   * @param annotationsToRemove acknowledge annotations that were applied
   * @param unmatchedAcknowledgements acknowledge annotations that match no active record; they stay
   * @param cleared records removed because the current spec allows them
   * @param changed whether the status differs from the current one (write only then)
   * @param merged the observations this merge counted (the others were in the status already)
   */
  public record Result(
      WorkloadNetworkPolicyStatus status,
      List<AcknowledgedViolation> acknowledged,
      List<String> annotationsToRemove,
      List<String> unmatchedAcknowledgements,
      int cleared,
      boolean changed,
      List<SourcedObservation> merged) {}

  public Result merge(Input in) {
    // Copies normalise missing lists to empty ones, so "changed" compares like with like.
    WorkloadNetworkPolicyStatus before =
        copy(in.current() == null ? new WorkloadNetworkPolicyStatus() : in.current());
    WorkloadNetworkPolicyStatus next = copy(before);
    String now = DateTimeFormatter.ISO_INSTANT.format(in.now());

    List<SourcedObservation> fresh = notYetMerged(next, in.observations());
    mergeObservations(next, fresh.stream().map(SourcedObservation::observation).toList());
    advanceWatermarks(next, fresh);
    int cleared = clearAllowed(next, in.allowedNow());
    AckOutcome acks = applyAcknowledgements(next, in.annotations(), now);

    trim(next);
    next.setActiveViolationCount(next.getViolations().size());
    next.setObservedGeneration(in.generation());
    next.setConditions(
        conditions(
            before.getConditions(), in.renderConditions(), acks.unmatched, in.generation(), now));

    boolean changed = !next.equals(before);
    return new Result(
        next, acks.acknowledged, acks.toRemove, acks.unmatched, cleared, changed, fresh);
  }

  /** Drops what the watermark says is merged already (a re-read after a crash or hand-over). */
  private static List<SourcedObservation> notYetMerged(
      WorkloadNetworkPolicyStatus s, List<SourcedObservation> observations) {
    Map<String, Long> watermark = new HashMap<>();
    s.getMergedOffsets()
        .forEach(m -> watermark.put(m.getTopic() + "/" + m.getPartition(), m.getOffset()));
    List<SourcedObservation> fresh = new ArrayList<>();
    for (SourcedObservation o : observations) {
      if (!o.sourced()
          || o.offset() >= watermark.getOrDefault(o.topic() + "/" + o.partition(), 0L)) {
        fresh.add(o);
        if (o.sourced()) {
          // The same record twice in one input counts once.
          watermark.put(o.topic() + "/" + o.partition(), o.offset() + 1);
        }
      }
    }
    return fresh;
  }

  /** The watermark moves past every record merged now; written in the same status update. */
  private static void advanceWatermarks(
      WorkloadNetworkPolicyStatus s, List<SourcedObservation> merged) {
    Map<String, MergedOffset> byPartition = new TreeMap<>();
    s.getMergedOffsets()
        .forEach(
            m ->
                byPartition.put(
                    m.getTopic() + "/" + m.getPartition(),
                    new MergedOffset(m.getTopic(), m.getPartition(), m.getOffset())));
    for (SourcedObservation o : merged) {
      if (o.sourced()) {
        byPartition.merge(
            o.topic() + "/" + o.partition(),
            new MergedOffset(o.topic(), o.partition(), o.offset() + 1),
            (a, b) -> a.getOffset() >= b.getOffset() ? a : b);
      }
    }
    s.setMergedOffsets(new ArrayList<>(byPartition.values()));
  }

  /**
   * New records take id = violationCount at insert; repeats refresh the timestamp; all count, each
   * as the observations it stands for.
   */
  private void mergeObservations(
      WorkloadNetworkPolicyStatus s, List<ViolationObservation> observations) {
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
      // record
      // the processor combined from several flow records stands for that many observations.
      s.setViolationCount(s.getViolationCount() + o.observations());
    }
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
      String policyName) {
    static Signature of(ViolationRecord r) {
      return new Signature(
          r.getSource(),
          r.getDest(),
          r.getProtocol(),
          r.getDstPort(),
          r.getAction(),
          r.getDenyingPolicyNamespace(),
          r.getDenyingPolicyName());
    }
  }

  private static int clearAllowed(
      WorkloadNetworkPolicyStatus s, Predicate<ViolationRecord> allowedNow) {
    int cleared = 0;
    for (Iterator<ViolationRecord> it = s.getViolations().iterator(); it.hasNext(); ) {
      if (allowedNow.test(it.next())) {
        it.remove();
        cleared++;
      }
    }
    return cleared;
  }

  private record AckOutcome(
      List<AcknowledgedViolation> acknowledged, List<String> toRemove, List<String> unmatched) {}

  private static AckOutcome applyAcknowledgements(
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
    return new AckOutcome(acknowledged, toRemove, unmatched);
  }

  private void trim(WorkloadNetworkPolicyStatus s) {
    if (s.getViolations().size() > maxRecords) {
      s.setViolations(new ArrayList<>(s.getViolations().subList(0, maxRecords)));
    }
    if (s.getAcknowledgedViolations().size() > maxRecords) {
      s.setAcknowledgedViolations(
          new ArrayList<>(s.getAcknowledgedViolations().subList(0, maxRecords)));
    }
  }

  /**
   * Rendering conditions, the acknowledgement condition and {@code Ready} (the outcome of
   * rendering: True once the native object matches). Every condition carries the generation it was
   * written for; an unchanged one keeps its transition time.
   */
  private static List<Condition> conditions(
      List<Condition> before,
      List<Condition> render,
      List<String> unmatched,
      Long generation,
      String now) {
    Map<String, Condition> wanted = new TreeMap<>();
    for (Condition c : before == null ? List.<Condition>of() : before) {
      if (!StatusConditions.UNMATCHED_ACKNOWLEDGEMENTS.equals(c.getType())) {
        wanted.put(c.getType(), c);
      }
    }
    for (Condition c : render) {
      wanted.put(c.getType(), c);
    }
    if (!unmatched.isEmpty()) {
      wanted.put(
          StatusConditions.UNMATCHED_ACKNOWLEDGEMENTS,
          new ConditionBuilder()
              .withType(StatusConditions.UNMATCHED_ACKNOWLEDGEMENTS)
              .withStatus("True")
              .withReason(StatusConditions.REASON_UNKNOWN_VIOLATION_ID)
              .withMessage(
                  "these annotations match no active violation record: "
                      + String.join(", ", unmatched))
              .build());
    }
    Condition rendered = wanted.get(StatusConditions.RENDERED);
    if (rendered != null) {
      wanted.put(
          StatusConditions.READY,
          new ConditionBuilder()
              .withType(StatusConditions.READY)
              .withStatus(rendered.getStatus())
              .withReason(
                  "True".equals(rendered.getStatus())
                      ? StatusConditions.REASON_READY
                      : rendered.getReason())
              .withMessage(rendered.getMessage())
              .build());
    }
    List<Condition> out = new ArrayList<>();
    for (Condition c : wanted.values()) {
      out.add(Conditions.written(c, Conditions.find(before, c.getType()), generation, now));
    }
    return out;
  }

  /**
   * A copy the merge may change: new lists and new records (their id and timestamp change). The
   * endpoints, acknowledgements and conditions are never mutated, so they are shared. Missing lists
   * become empty ones.
   */
  private static WorkloadNetworkPolicyStatus copy(WorkloadNetworkPolicyStatus s) {
    WorkloadNetworkPolicyStatus c = new WorkloadNetworkPolicyStatus();
    c.setObservedGeneration(s.getObservedGeneration());
    c.setViolationCount(s.getViolationCount());
    c.setActiveViolationCount(s.getActiveViolationCount());
    List<ViolationRecord> records = new ArrayList<>();
    if (s.getViolations() != null) {
      s.getViolations().forEach(r -> records.add(r.copy()));
    }
    c.setViolations(records);
    c.setAcknowledgedViolations(
        s.getAcknowledgedViolations() == null
            ? new ArrayList<>()
            : new ArrayList<>(s.getAcknowledgedViolations()));
    c.setConditions(
        s.getConditions() == null ? new ArrayList<>() : new ArrayList<>(s.getConditions()));
    c.setMergedOffsets(
        s.getMergedOffsets() == null ? new ArrayList<>() : new ArrayList<>(s.getMergedOffsets()));
    return c;
  }
}
