package io.kubewarden.networkenforcer.pipeline.crash;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CollectedEventsTest {

  /** One record as the debug exporter (verbosity detailed) prints it. */
  private static List<String> record(int index, String uid, String policy) {
    List<String> lines = new ArrayList<>();
    lines.add("LogRecord #" + index);
    lines.add("ObservedTimestamp: 2026-12-06 20:00:01.5 +0000 UTC");
    lines.add("Timestamp: 2026-12-06 20:00:01 +0000 UTC");
    lines.add("SeverityText: WARN");
    lines.add("SeverityNumber: Warn(13)");
    lines.add("EventName: policy_violation_observed");
    lines.add("Body: Str(policy_violation_observed)");
    lines.add("Attributes:");
    if (uid != null) {
      lines.add("     -> log.record.uid: Str(" + uid + ")");
    }
    lines.add("     -> destination.port: Int(8080)");
    lines.add("     -> policy.ref.name: Str(" + policy + ")");
    lines.add("Trace ID: ");
    lines.add("Span ID: ");
    lines.add("Flags: 0");
    return lines;
  }

  private static List<String> export(List<List<String>> records) {
    return export("writer-0", records);
  }

  private static List<String> export(String instance, List<List<String>> records) {
    List<String> lines = new ArrayList<>();
    lines.add("Logs\t{\"resource logs\": 1, \"log records\": " + records.size() + "}");
    lines.add("ResourceLog #0");
    lines.add("Resource SchemaURL: ");
    lines.add("Resource attributes:");
    lines.add("     -> log.record.uid: Str(not-a-record)");
    lines.add("     -> policy.ref.name: Str(not-a-record)");
    lines.add("     -> service.instance.id: Str(" + instance + ")");
    lines.add("ScopeLogs #0");
    lines.add("ScopeLogs SchemaURL: ");
    lines.add("InstrumentationScope network-enforcer ");
    records.forEach(lines::addAll);
    return lines;
  }

  @Test
  void countsRecordsByUidAndPolicy() {
    List<String> lines = new ArrayList<>();
    lines.addAll(export(List.of(record(0, "a", "web"), record(1, "b", "web"))));
    lines.addAll(export(List.of(record(0, "a", "web"), record(1, "c", "api"))));
    CollectedEvents events = CollectedEvents.parse(lines);

    assertThat(events.size()).isEqualTo(4);
    assertThat(events.records("policy_violation_observed", "web")).isEqualTo(3);
    assertThat(events.distinct("policy_violation_observed", "web")).isEqualTo(2);
    assertThat(events.distinct("policy_violation_observed", "api")).isEqualTo(1);
    assertThat(events.repeatedUidSenders("policy_violation_observed"))
        .isEqualTo(Map.of("a", List.of("writer-0", "writer-0")));
    assertThat(events.withoutUid("policy_violation_observed")).isZero();
    assertThat(events.records("policy_violation_observed", "not-a-record")).isZero();
  }

  @Test
  void namesTheReplicaThatSentEachCopyOfARepeatedId() {
    List<String> lines = new ArrayList<>();
    lines.addAll(export("writer-1", List.of(record(0, "a", "web"), record(1, "b", "web"))));
    lines.addAll(export("writer-4", List.of(record(0, "a", "web"), record(1, "c", "api"))));
    lines.addAll(export("writer-5", List.of(record(0, "a", "web"))));
    CollectedEvents events = CollectedEvents.parse(lines);

    assertThat(events.repeatedUidSenders("policy_violation_observed"))
        .isEqualTo(Map.of("a", List.of("writer-1", "writer-4", "writer-5")));
    assertThat(events.repeatedUidSenders("policy_violation_acknowledged")).isEmpty();
  }

  @Test
  void leavesARecordStillBeingWrittenAndCountsOneWithoutUid() {
    List<String> lines = new ArrayList<>(export(List.of(record(0, null, "web"))));
    List<String> partial = record(1, "d", "web");
    lines.addAll(partial.subList(0, partial.size() - 1));
    CollectedEvents events = CollectedEvents.parse(lines);

    assertThat(events.size()).isEqualTo(1);
    assertThat(events.withoutUid("policy_violation_observed")).isEqualTo(1);
    assertThat(events.distinct("policy_violation_observed", "web")).isEqualTo(1);
  }
}
