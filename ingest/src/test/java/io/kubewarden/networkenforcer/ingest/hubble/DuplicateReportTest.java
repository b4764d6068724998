package io.kubewarden.networkenforcer.ingest.hubble;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.ingest.parsing.DropReason;
import io.kubewarden.networkenforcer.ingest.parsing.ParseOutcome;
import io.kubewarden.networkenforcer.ingest.resolution.ClusterIndex;
import io.kubewarden.networkenforcer.ingest.resolution.WorkloadResolver;
import java.time.Clock;
import org.junit.jupiter.api.Test;

/**
 * A connection is counted once: the other node's copy of it is a duplicate report, checked before
 * its endpoints are resolved, so a copy that would not resolve (a field-masked export without pod
 * names) is not counted as an unknown pod, or as a lost deny, for a connection already learned.
 */
class DuplicateReportTest {
  private static final String INGRESS_COPY =
      "{\"flow\":{\"time\":\"2026-08-03T15:40:01Z\",\"verdict\":\"FORWARDED\","
          + "\"IP\":{\"source\":\"10.244.1.21\",\"destination\":\"10.244.2.31\"},"
          + "\"l4\":{\"TCP\":{\"source_port\":45678,\"destination_port\":8080,\"flags\":{\"SYN\":true}}},"
          + "\"source\":{\"identity\":20101,\"namespace\":\"shop\",\"labels\":[\"k8s:app=frontend\"],"
          + "\"pod_name\":\"frontend-5d8f7b9c6d-x7k2p\",\"workloads\":[{\"name\":\"frontend\",\"kind\":\"Deployment\"}]},"
          + "\"destination\":{\"identity\":20102,\"namespace\":\"shop\",\"labels\":[\"k8s:app=backend\"],"
          + "\"pod_name\":\"backend-6c9d8f7b54-q2w4z\",\"workloads\":[{\"name\":\"backend\",\"kind\":\"Deployment\"}]},"
          + "\"Type\":\"L3_L4\",\"event_type\":{\"type\":4},\"traffic_direction\":\"INGRESS\"}}";

  /** The source node's copy, exported without pod names: its endpoints resolve to nothing here. */
  private static final String MASKED_EGRESS_COPY =
      INGRESS_COPY
          .replace("\"pod_name\":\"frontend-5d8f7b9c6d-x7k2p\",", "")
          .replace("\"pod_name\":\"backend-6c9d8f7b54-q2w4z\",", "")
          .replace("INGRESS", "EGRESS");

  private final HubbleFlowParser parser =
      new HubbleFlowParser(new WorkloadResolver(new ClusterIndex()), Clock.systemUTC());

  private ParseOutcome parse(String line) throws Exception {
    return parser.parse(HubbleJson.decode(line, Json.mapper().readTree(line)));
  }

  @Test
  void theOtherNodesCopyIsADuplicateEvenWhenItWouldNotResolve() throws Exception {
    assertThat(parse(MASKED_EGRESS_COPY.replace("45678", "45679")).dropReason())
        .as("the masked copy alone, another connection")
        .isEqualTo(DropReason.UNKNOWN_POD);

    assertThat(parse(INGRESS_COPY).records()).hasSize(1);
    assertThat(parse(MASKED_EGRESS_COPY).dropReason()).isEqualTo(DropReason.DUPLICATE_REPORT);
    assertThat(parse(INGRESS_COPY).dropReason()).isEqualTo(DropReason.DUPLICATE_REPORT);
  }

  @Test
  void aCopyOutsideTheWindowIsResolvedAgain() throws Exception {
    assertThat(parse(INGRESS_COPY).records()).hasSize(1);
    assertThat(parse(MASKED_EGRESS_COPY.replace("15:40:01Z", "15:40:32Z")).dropReason())
        .isEqualTo(DropReason.UNKNOWN_POD);
    assertThat(parse(INGRESS_COPY.replace("15:40:01Z", "15:40:32Z")).records()).hasSize(1);
  }

  @Test
  void aCopyThatDidNotResolveCountsNothingAndTheNextCopyIsLearned() throws Exception {
    assertThat(parse(MASKED_EGRESS_COPY).dropReason()).isEqualTo(DropReason.UNKNOWN_POD);
    assertThat(parse(INGRESS_COPY).records()).hasSize(1);
  }
}
