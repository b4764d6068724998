package io.kubewarden.networkenforcer.writer.status;

import static io.kubewarden.networkenforcer.writer.Fixtures.violation;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.kubewarden.networkenforcer.common.crd.AcknowledgedViolation;
import io.kubewarden.networkenforcer.common.crd.ViolationRecord;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyStatus;
import io.kubewarden.networkenforcer.common.flow.HttpRequest;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.common.policy.Labels;
import io.kubewarden.networkenforcer.common.violation.ViolationObservation;
import io.kubewarden.networkenforcer.writer.conditions.StatusConditions;
import io.kubewarden.networkenforcer.writer.observations.SourcedObservation;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The record rules of the API contract, one row per rule. */
class StatusMergerTest {
  static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");
  static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");

  /** One row: a starting status, what arrives, and what the merged status must look like. */
  record Row(
      WorkloadNetworkPolicyStatus current,
      List<ViolationObservation> observations,
      Map<String, String> annotations,
      Predicate<ViolationRecord> allowedNow,
      Consumer<StatusMerger.Result> expect) {}

  /** The same observation standing for {@code connections} connections (a provider's aggregate). */
  static ViolationObservation aggregated(ViolationObservation o, long connections) {
    return new ViolationObservation(
        o.policyNamespace(),
        o.policyName(),
        o.timestamp(),
        o.source(),
        o.dest(),
        o.protocol(),
        o.dstPort(),
        o.action(),
        o.denyingPolicyNamespace(),
        o.denyingPolicyName(),
        o.provider(),
        o.backend(),
        o.direction(),
        connections);
  }

  /** The same observation combined by the processor from {@code records} flow records. */
  static ViolationObservation combined(ViolationObservation o, long records) {
    return new ViolationObservation(
        o.policyNamespace(),
        o.policyName(),
        o.timestamp(),
        o.source(),
        o.dest(),
        o.protocol(),
        o.dstPort(),
        o.action(),
        o.denyingPolicyNamespace(),
        o.denyingPolicyName(),
        o.provider(),
        o.backend(),
        o.direction(),
        o.count(),
        records,
        o.http());
  }

  static Stream<Arguments> rows() {
    return Stream.of(
        Arguments.of(
            "a record the processor combined from 5 flow records counts 5; the next new one takes id 6",
            new Row(
                status(record(0, "batch", 9090, T0)),
                List.of(
                    combined(violation("api", "web", 8080, T0.plusSeconds(1)), 5),
                    violation("api", "db", 5432, T0.plusSeconds(2))),
                Map.of(),
                null,
                r -> {
                  assertThat(r.status().getViolationCount()).isEqualTo(7);
                  assertThat(ids(r)).containsExactly(6L, 1L, 0L);
                })),
        Arguments.of(
            "new observations get ids 0,1 and are listed newest first",
            new Row(
                null,
                List.of(
                    violation("api", "web", 8080, T0),
                    violation("api", "batch", 9090, T0.plusSeconds(1))),
                Map.of(),
                null,
                r -> {
                  assertThat(ids(r)).containsExactly(1L, 0L);
                  assertThat(r.status().getViolations().get(0).getDest().getOwnerName())
                      .isEqualTo("api");
                  assertThat(r.status().getViolations().get(0).getSource().getOwnerName())
                      .isEqualTo("batch");
                  assertThat(r.status().getViolationCount()).isEqualTo(2);
                  assertThat(r.status().getActiveViolationCount()).isEqualTo(2);
                  assertThat(r.status().getObservedGeneration()).isEqualTo(3L);
                  assertThat(r.changed()).isTrue();
                })),
        Arguments.of(
            "an aggregated Goldmane record of 7 connections is one observation: it counts one",
            new Row(
                null,
                List.of(
                    aggregated(violation("api", "web", 8080, T0), 7),
                    aggregated(violation("api", "web", 8080, T0.plusSeconds(1)), 3)),
                Map.of(),
                null,
                r -> {
                  assertThat(r.status().getViolationCount()).isEqualTo(2);
                  assertThat(ids(r)).containsExactly(0L);
                })),
        Arguments.of(
            "a repeat refreshes the timestamp, counts, and adds no record",
            new Row(
                status(record(0, "web", 8080, T0), record(1, "batch", 9090, T0.plusSeconds(5))),
                List.of(violation("api", "web", 8080, T0.plusSeconds(60))),
                Map.of(),
                null,
                r -> {
                  assertThat(ids(r)).containsExactly(0L, 1L);
                  assertThat(r.status().getViolations().get(0).getTimestamp())
                      .isEqualTo("2026-03-01T10:01:00Z");
                  assertThat(r.status().getViolationCount()).isEqualTo(3);
                  assertThat(r.status().getActiveViolationCount()).isEqualTo(2);
                })),
        Arguments.of(
            "ids are violationCount at insert, so they skip numbers after counted repeats",
            new Row(
                null,
                List.of(
                    violation("api", "web", 8080, T0),
                    violation("api", "web", 8080, T0.plusSeconds(1)),
                    violation("api", "web", 8080, T0.plusSeconds(2)),
                    violation("api", "batch", 53, T0.plusSeconds(3))),
                Map.of(),
                null,
                r -> {
                  assertThat(ids(r)).containsExactly(3L, 0L);
                  assertThat(r.status().getViolationCount()).isEqualTo(4);
                })),
        Arguments.of(
            "the list is trimmed to the newest 100, the count keeps everything",
            new Row(
                null,
                IntStream.range(0, 105)
                    .mapToObj(i -> violation("api", "w" + i, 8080, T0.plusSeconds(i)))
                    .toList(),
                Map.of(),
                null,
                r -> {
                  assertThat(r.status().getViolations()).hasSize(100);
                  assertThat(r.status().getViolations().get(0).getId()).isEqualTo(104L);
                  assertThat(r.status().getViolations().get(99).getId()).isEqualTo(5L);
                  assertThat(r.status().getViolationCount()).isEqualTo(105);
                  assertThat(r.status().getActiveViolationCount()).isEqualTo(100);
                })),
        Arguments.of(
            "an acknowledgement with a matching id moves the record, with its reason",
            new Row(
                status(record(0, "web", 8080, T0), record(1, "batch", 9090, T0.plusSeconds(5))),
                List.of(),
                Map.of(Labels.ACKNOWLEDGE_PREFIX + "1", "batch job is expected", "other", "x"),
                null,
                r -> {
                  assertThat(ids(r)).containsExactly(0L);
                  AcknowledgedViolation ack = r.status().getAcknowledgedViolations().get(0);
                  assertThat(ack.getViolation().getId()).isEqualTo(1L);
                  assertThat(ack.getReason()).isEqualTo("batch job is expected");
                  assertThat(ack.getAcknowledgedAt()).isEqualTo("2026-03-01T12:00:00Z");
                  assertThat(r.annotationsToRemove())
                      .containsExactly(Labels.ACKNOWLEDGE_PREFIX + "1");
                  assertThat(r.acknowledged()).containsExactly(ack);
                  assertThat(r.status().getActiveViolationCount()).isEqualTo(1);
                  assertThat(r.status().getViolationCount()).isEqualTo(2);
                  assertThat(r.status().getConditions())
                      .noneMatch(
                          c -> c.getType().equals(StatusConditions.UNMATCHED_ACKNOWLEDGEMENTS));
                })),
        Arguments.of(
            "an acknowledgement whose id matches nothing stays and is reported",
            new Row(
                status(record(0, "web", 8080, T0)),
                List.of(),
                Map.of(Labels.ACKNOWLEDGE_PREFIX + "42", "typo"),
                null,
                r -> {
                  assertThat(ids(r)).containsExactly(0L);
                  assertThat(r.status().getAcknowledgedViolations()).isEmpty();
                  assertThat(r.annotationsToRemove()).isEmpty();
                  assertThat(r.unmatchedAcknowledgements())
                      .containsExactly(Labels.ACKNOWLEDGE_PREFIX + "42");
                  assertThat(r.status().getConditions())
                      .anySatisfy(
                          c -> {
                            assertThat(c.getType())
                                .isEqualTo(StatusConditions.UNMATCHED_ACKNOWLEDGEMENTS);
                            assertThat(c.getStatus()).isEqualTo("True");
                            assertThat(c.getMessage()).contains("acknowledge-42");
                          });
                })),
        Arguments.of(
            "after a spec edit the records it now allows are cleared, the count stays",
            new Row(
                status(record(0, "web", 8080, T0), record(1, "batch", 9090, T0.plusSeconds(5))),
                List.of(violation("api", "web", 8080, T0.plusSeconds(9))),
                Map.of(),
                rec -> rec.getDstPort() == 8080,
                r -> {
                  assertThat(ids(r)).containsExactly(1L);
                  assertThat(r.cleared()).isEqualTo(1);
                  assertThat(r.status().getViolationCount()).isEqualTo(3);
                  assertThat(r.status().getActiveViolationCount()).isEqualTo(1);
                })),
        Arguments.of(
            "refused requests on one connection are one record per method and path",
            new Row(
                null,
                List.of(
                    refused("PUT", "/admin", T0),
                    refused("GET", "/orders/7", T0.plusSeconds(1)),
                    refused("PUT", "/admin", T0.plusSeconds(2))),
                Map.of(),
                null,
                r -> {
                  assertThat(r.status().getViolations())
                      .extracting(
                          ViolationRecord::getHttpMethod,
                          ViolationRecord::getHttpPath,
                          ViolationRecord::getTimestamp)
                      .containsExactlyInAnyOrder(
                          tuple("PUT", "/admin", T0.plusSeconds(2).toString()),
                          tuple("GET", "/orders/7", T0.plusSeconds(1).toString()));
                  assertThat(r.status().getViolationCount()).isEqualTo(3);
                })),
        Arguments.of(
            "nothing new, nothing to clear, nothing acknowledged: unchanged, no write",
            new Row(
                status(record(0, "web", 8080, T0)),
                List.of(),
                Map.of(),
                null,
                r -> assertThat(r.changed()).isFalse())),
        Arguments.of(
            "an acknowledgement already applied whose annotation is still there is finished, not repeated",
            new Row(
                acknowledgedStatus(),
                List.of(),
                Map.of(Labels.ACKNOWLEDGE_PREFIX + "7", "known"),
                null,
                r -> {
                  assertThat(r.status().getAcknowledgedViolations()).hasSize(1);
                  assertThat(r.annotationsToRemove())
                      .containsExactly(Labels.ACKNOWLEDGE_PREFIX + "7");
                  assertThat(r.acknowledged()).hasSize(1);
                  assertThat(r.unmatchedAcknowledgements()).isEmpty();
                })),
        Arguments.of(
            "acknowledged records are capped at 100, newest first",
            new Row(
                manyAcknowledged(100, record(200, "web", 8080, T0)),
                List.of(),
                Map.of(Labels.ACKNOWLEDGE_PREFIX + "200", "fine"),
                null,
                r -> {
                  assertThat(r.status().getAcknowledgedViolations()).hasSize(100);
                  assertThat(r.status().getAcknowledgedViolations().get(0).getViolation().getId())
                      .isEqualTo(200L);
                })));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rows")
  void mergesByTheRecordRules(String rule, Row row) {
    WorkloadNetworkPolicyStatus before =
        row.current() == null
            ? null
            : Json.mapper().convertValue(row.current(), WorkloadNetworkPolicyStatus.class);
    StatusMerger.Result result =
        new StatusMerger()
            .merge(
                new StatusMerger.Input(
                    row.current(),
                    3L,
                    SourcedObservation.unsourced(row.observations()),
                    row.allowedNow(),
                    row.annotations(),
                    List.of(),
                    NOW));
    row.expect().accept(result);
    assertThat(result.status().getActiveViolationCount())
        .isEqualTo(result.status().getViolations().size());
    // The merge is pure: the live status it started from is untouched.
    assertThat(row.current()).isEqualTo(before);
  }

  /** web's request outside api's HTTP rules, against api's ingress policy. */
  static ViolationObservation refused(String method, String path, Instant at) {
    return violation("api", "web", 8080, at).withHttp(new HttpRequest(method, path, false));
  }

  static List<Long> ids(StatusMerger.Result r) {
    return r.status().getViolations().stream().map(ViolationRecord::getId).toList();
  }

  static ViolationRecord record(long id, String from, int port, Instant at) {
    ViolationRecord r = violation("api", from, port, at).toRecord();
    r.setId(id);
    return r;
  }

  /** A status holding these records newest first, its counts consistent. */
  static WorkloadNetworkPolicyStatus status(ViolationRecord... newestLast) {
    WorkloadNetworkPolicyStatus s = new WorkloadNetworkPolicyStatus();
    List<ViolationRecord> list = new ArrayList<>(List.of(newestLast));
    Collections.reverse(list);
    s.setViolations(list);
    s.setViolationCount(list.stream().mapToLong(ViolationRecord::getId).max().orElse(-1) + 1);
    s.setActiveViolationCount(list.size());
    s.setObservedGeneration(3L);
    return s;
  }

  static WorkloadNetworkPolicyStatus acknowledgedStatus() {
    WorkloadNetworkPolicyStatus s = status();
    s.setViolationCount(8);
    s.getAcknowledgedViolations()
        .add(
            new AcknowledgedViolation(record(7, "web", 8080, T0), "known", "2026-03-01T11:00:00Z"));
    return s;
  }

  static WorkloadNetworkPolicyStatus manyAcknowledged(int n, ViolationRecord active) {
    WorkloadNetworkPolicyStatus s = status(active);
    for (int i = 0; i < n; i++) {
      s.getAcknowledgedViolations()
          .add(
              new AcknowledgedViolation(record(i, "old" + i, 80, T0), "r", "2026-03-01T11:00:00Z"));
    }
    return s;
  }
}
