package io.kubewarden.networkenforcer.ingest.ztunnel;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.PolicyRef;
import io.kubewarden.networkenforcer.common.flow.Sighting;
import io.kubewarden.networkenforcer.common.flow.Verdict;
import io.kubewarden.networkenforcer.ingest.Fixtures;
import io.kubewarden.networkenforcer.ingest.file.CaptureFile;
import io.kubewarden.networkenforcer.ingest.file.CaptureFormat;
import io.kubewarden.networkenforcer.ingest.file.CaptureSummary;
import io.kubewarden.networkenforcer.ingest.parsing.DropReason;
import io.kubewarden.networkenforcer.ingest.parsing.ParseOutcome;
import io.kubewarden.networkenforcer.ingest.proto.otlp.common.AnyValue;
import io.kubewarden.networkenforcer.ingest.proto.otlp.common.KeyValue;
import io.kubewarden.networkenforcer.ingest.proto.otlp.common.KeyValueList;
import io.kubewarden.networkenforcer.ingest.proto.otlp.logs.LogRecord;
import io.kubewarden.networkenforcer.ingest.resolution.ClusterIndex;
import io.kubewarden.networkenforcer.ingest.resolution.ClusterStateFile;
import io.kubewarden.networkenforcer.ingest.resolution.WorkloadResolver;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ztunnel's default text format, in capture files and through the OTLP receiver's record bodies.
 */
class ZtunnelTextLogTest {
  private static final String AUTHZ =
      "2026-08-03T15:39:07.536444Z\tinfo\tstate:proxy{wl=default/productpage-v1-87d54dd59-fn6vw}"
          + ":inbound{id=86c37af8d376fcc847c48d4730137d42 peer=10.244.1.12:49084}\tdeny policy match"
          + "\tpolicy=\"default/deny-curl\"";

  @TempDir Path dir;

  private static ClusterIndex cluster() {
    return ClusterStateFile.load(Fixtures.capture("ztunnel-istio-docs-cluster-state.json"));
  }

  @Test
  void anAccessLogLineBecomesTheObjectTheJsonFormatWouldGive() throws Exception {
    String line = Files.readAllLines(Fixtures.capture("ztunnel-text-istio-docs.log")).get(0);
    ObjectNode json = ZtunnelTextLog.toJson(line);

    assertThat(json.get("level").asText()).isEqualTo("info");
    assertThat(json.get("time").asText()).isEqualTo("2024-05-04T09:59:05.028709Z");
    assertThat(json.get("scope").asText()).isEqualTo("access");
    assertThat(json.get("message").asText()).isEqualTo("connection complete");
    assertThat(json.get("src.workload").asText()).isEqualTo("curl-7656cf8794-r7zb9");
    assertThat(json.get("dst.hbone_addr").asText()).isEqualTo("10.244.1.10:9080");
    assertThat(json.get("direction").asText()).isEqualTo("inbound");
    assertThat(json.get("bytes_sent").isIntegralNumber()).isTrue();
    assertThat(json.get("bytes_sent").asLong()).isEqualTo(175);
    assertThat(json.size()).isEqualTo(18);

    // The same line with the tabs ztunnel really writes between its parts.
    String tabbed =
        line.replace(
            " info    access  connection complete ", "\tinfo\taccess\tconnection complete\t");
    assertThat(ZtunnelTextLog.toJson(tabbed)).isEqualTo(json);
  }

  @Test
  void spansBecomeNestedObjects() {
    ObjectNode json = ZtunnelTextLog.toJson(AUTHZ);
    assertThat(json.get("scope").asText()).isEqualTo("state");
    assertThat(json.get("message").asText()).isEqualTo("deny policy match");
    assertThat(json.get("policy").asText()).isEqualTo("default/deny-curl");
    assertThat(json.get("proxy").get("wl").asText())
        .isEqualTo("default/productpage-v1-87d54dd59-fn6vw");
    assertThat(json.get("inbound").get("peer").asText()).isEqualTo("10.244.1.12:49084");
    assertThat(ZtunnelTextLog.toJson("2026-08-03 not a ztunnel line")).isNull();
    assertThat(ZtunnelTextLog.toJson("{\"level\":\"info\"}")).isNull();
  }

  @Test
  void aTextCaptureFromIstiosDocumentationIsLearned() throws Exception {
    Path capture =
        Files.write(
            dir.resolve("ztunnel.log"),
            List.of(
                Files.readString(Fixtures.capture("ztunnel-text-istio-docs.log")).strip(), AUTHZ));
    List<FlowRecord> records = new ArrayList<>();
    CaptureSummary summary = CaptureFile.read(capture, Optional.empty(), cluster(), records::add);

    assertThat(summary.format()).isEqualTo(CaptureFormat.ZTUNNEL);
    assertThat(summary.badLines()).isZero();
    // The outbound copy is the client node's; the inbound one is learned.
    assertThat(summary.dropped())
        .containsExactlyInAnyOrderEntriesOf(Map.of(DropReason.IGNORED_LOG, 1L));
    assertThat(records).hasSize(2);
    FlowRecord allowed = records.get(0);
    assertThat(allowed.verdict()).isEqualTo(Verdict.FORWARDED);
    assertThat(allowed.dstPort()).isEqualTo(9080);
    // ztunnel's inbound log is the destination's record.
    assertThat(allowed.sighting()).isEqualTo(Sighting.DESTINATION_RECORD);
    assertThat(allowed.src().principal()).contains("cluster.local/ns/default/sa/curl");
    // The docs' line names the wrong namespace for the server; its pod IP still finds it.
    assertThat(allowed.dst().workload().orElseThrow().key())
        .isEqualTo("default/Deployment/productpage-v1");
    FlowRecord denied = records.get(1);
    assertThat(denied.verdict()).isEqualTo(Verdict.DENIED);
    assertThat(denied.denyingPolicy())
        .isEqualTo(new PolicyRef("AuthorizationPolicy", "default", "deny-curl"));
    assertThat(denied.src().workload().orElseThrow().key()).isEqualTo("default/Deployment/curl");
  }

  @Test
  void fluentBitForwardingTheTextLineUnparsed() throws Exception {
    String line = Files.readAllLines(Fixtures.capture("ztunnel-text-istio-docs.log")).get(0);
    ZtunnelLogParser parser =
        new ZtunnelLogParser(new WorkloadResolver(cluster()), "cluster.local", Clock.systemUTC());
    // logs_body_key $log: the body is the line itself.
    LogRecord asString =
        LogRecord.newBuilder().setBody(AnyValue.newBuilder().setStringValue(line)).build();
    // No parser filter: the CRI record with the line in "log".
    LogRecord inKvlist =
        LogRecord.newBuilder()
            .setBody(
                AnyValue.newBuilder()
                    .setKvlistValue(
                        KeyValueList.newBuilder()
                            .addValues(
                                KeyValue.newBuilder()
                                    .setKey("stream")
                                    .setValue(AnyValue.newBuilder().setStringValue("stdout")))
                            .addValues(
                                KeyValue.newBuilder()
                                    .setKey("log")
                                    .setValue(AnyValue.newBuilder().setStringValue(line + "\n")))))
            .build();
    for (LogRecord record : List.of(asString, inKvlist)) {
      ParseOutcome outcome =
          parser.parse(OtlpLogRecords.toLine(record), OtlpLogRecords.time(record));
      assertThat(outcome.records()).hasSize(1);
      assertThat(outcome.records().get(0).dstPort()).isEqualTo(9080);
    }
  }
}
