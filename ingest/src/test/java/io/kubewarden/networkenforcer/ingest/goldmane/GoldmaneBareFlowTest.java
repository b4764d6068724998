package io.kubewarden.networkenforcer.ingest.goldmane;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.common.flow.Sighting;
import io.kubewarden.networkenforcer.ingest.Fixtures;
import io.kubewarden.networkenforcer.ingest.file.CaptureFile;
import io.kubewarden.networkenforcer.ingest.file.CaptureFormat;
import io.kubewarden.networkenforcer.ingest.file.CaptureSummary;
import io.kubewarden.networkenforcer.ingest.parsing.DropReason;
import io.kubewarden.networkenforcer.ingest.resolution.ClusterIndex;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Goldmane's bare {@code Flow} records, and connections only one end reported. */
class GoldmaneBareFlowTest {
  @TempDir Path dir;

  @Test
  void bareFlowsAreReadAndASourceOnlyReportIsStillAFlow() {
    List<FlowRecord> records = new ArrayList<>();
    CaptureSummary summary =
        CaptureFile.read(
            Fixtures.capture("goldmane-bare-flows.jsonl"),
            Optional.empty(),
            new ClusterIndex(),
            records::add);

    assertThat(summary.format()).isEqualTo(CaptureFormat.GOLDMANE);
    assertThat(summary.badLines()).isZero();
    // Src and Dst of the first interval count once; the next interval counts again.
    assertThat(summary.dropped())
        .containsExactlyInAnyOrderEntriesOf(Map.of(DropReason.DUPLICATE_REPORT, 1L));
    assertThat(records)
        .extracting(
            r ->
                r.src().workloadName()
                    + ">"
                    + r.dst().workloadName()
                    + ":"
                    + r.dstPort()
                    + "/"
                    + r.reporter())
        .containsExactly(
            "frontend>backend:8080/SOURCE",
            "log-agent>backend:8080/SOURCE",
            "frontend>backend:8080/DESTINATION");
    // A report is its end's record; a connection only the destination reported says so.
    assertThat(records)
        .extracting(FlowRecord::sighting)
        .containsExactly(
            Sighting.SOURCE_RECORD, Sighting.SOURCE_RECORD, Sighting.DESTINATION_RECORD);
    // Nothing in the (empty) cluster names them: inferred from the aggregated names and labels.
    FlowRecord fromDaemonSet = records.get(1);
    assertThat(fromDaemonSet.src().workload().orElseThrow().key())
        .isEqualTo("shop/DaemonSet/log-agent");
    assertThat(fromDaemonSet.src().workloadSelector())
        .isEqualTo(new LabelSelectorBuilder().addToMatchLabels("app", "log-agent").build());
    assertThat(records)
        .allSatisfy(r -> assertThat(r.src().inferred() && r.dst().inferred()).isTrue());
    assertThat(records.get(0).dst().workloadSelector())
        .isEqualTo(new LabelSelectorBuilder().addToMatchLabels("app", "backend").build());
  }

  @Test
  void theDestinationsReportFirstMakesTheSourcesTheDuplicate() throws Exception {
    List<String> lines = Files.readAllLines(Fixtures.capture("goldmane-bare-flows.jsonl"));
    Path file = Files.write(dir.resolve("reversed.jsonl"), List.of(lines.get(1), lines.get(0)));
    List<FlowRecord> records = new ArrayList<>();
    CaptureSummary summary =
        CaptureFile.read(file, Optional.empty(), new ClusterIndex(), records::add);

    assertThat(records).extracting(FlowRecord::reporter).containsExactly(Reporter.DESTINATION);
    assertThat(records.get(0).count()).isEqualTo(2);
    assertThat(summary.dropped())
        .containsExactlyInAnyOrderEntriesOf(Map.of(DropReason.DUPLICATE_REPORT, 1L));
  }

  @Test
  void aSourceWhoseWorkloadCannotBeInferredIsTheDestinationsPeerByItsLabels() throws Exception {
    // An operator's pods (generateName "loadtest-", no controller labels): no workload to infer.
    String byLabels =
        "{\"Key\":{\"source_name\":\"loadtest-*\",\"source_namespace\":\"shop\","
            + "\"source_type\":\"WorkloadEndpoint\",\"dest_name\":\"backend-6c9d8f7b54-*\","
            + "\"dest_namespace\":\"shop\",\"dest_type\":\"WorkloadEndpoint\",\"dest_port\":\"8080\","
            + "\"proto\":\"tcp\",\"reporter\":\"Dst\",\"action\":\"Allow\"},"
            + "\"start_time\":\"1785771630\",\"end_time\":\"1785771645\","
            + "\"source_labels\":[\"app=loadtest\",\"k6.io/instance=nightly\","
            + "\"pod-template-hash=7c9f\"],"
            + "\"dest_labels\":[\"app=backend\",\"pod-template-hash=6c9d8f7b54\"],"
            + "\"num_connections_started\":\"3\"}";
    Path file = Files.write(dir.resolve("labels.jsonl"), List.of(byLabels));
    List<FlowRecord> records = new ArrayList<>();
    CaptureSummary summary =
        CaptureFile.read(file, Optional.empty(), new ClusterIndex(), records::add);

    assertThat(summary.dropped()).isEmpty();
    assertThat(records).hasSize(1);
    FlowRecord flow = records.get(0);
    assertThat(flow.src().labelsOnly()).isTrue();
    assertThat(flow.src().workload()).isEmpty();
    assertThat(flow.src().podName()).isNull();
    assertThat(flow.src().workloadSelector())
        .isEqualTo(
            new LabelSelectorBuilder()
                .addToMatchLabels("app", "loadtest")
                .addToMatchLabels("k6.io/instance", "nightly")
                .build());
    assertThat(flow.src().labelPeerKey())
        .contains("shop/Labels/app=loadtest,k6.io/instance=nightly");
    assertThat(flow.dst().workload().orElseThrow().key()).isEqualTo("shop/Deployment/backend");
    assertThat(flow.count()).isEqualTo(3);
    assertThat(flow.reporter()).isEqualTo(Reporter.DESTINATION);
  }
}
