package io.kubewarden.networkenforcer.ingest.hubble;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.ByteString;
import com.google.protobuf.UnknownFieldSet;
import com.google.protobuf.util.JsonFormat;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.ingest.Fixtures;
import io.kubewarden.networkenforcer.ingest.goldmane.GoldmaneFlowParser;
import io.kubewarden.networkenforcer.ingest.goldmane.GoldmaneJson;
import io.kubewarden.networkenforcer.ingest.parsing.DropReason;
import io.kubewarden.networkenforcer.ingest.parsing.ParseOutcome;
import io.kubewarden.networkenforcer.ingest.proto.goldmane.FlowResult;
import io.kubewarden.networkenforcer.ingest.proto.hubble.observer.GetFlowsResponse;
import io.kubewarden.networkenforcer.ingest.resolution.WorkloadResolver;
import io.kubewarden.networkenforcer.ingest.ztunnel.ZtunnelLogParser;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Binary messages from newer or odd senders: enum values we do not know, fields we do not have,
 * missing fields.
 */
class UnexpectedWireValuesTest {
  private static WorkloadResolver resolver;
  private static GetFlowsResponse hubbleFlow;

  @BeforeAll
  static void load() throws Exception {
    resolver = new WorkloadResolver(Fixtures.clusterState());
    GetFlowsResponse.Builder b = GetFlowsResponse.newBuilder();
    JsonFormat.parser()
        .ignoringUnknownFields()
        .merge(Files.readAllLines(Fixtures.file("hubble-flows.jsonl")).get(1), b);
    hubbleFlow = b.build();
  }

  private static ParseOutcome hubble(GetFlowsResponse response) throws Exception {
    // Through the wire encoding, as the stream delivers it.
    return new HubbleFlowParser(resolver, Clock.systemUTC())
        .parse(GetFlowsResponse.parseFrom(response.toByteArray()));
  }

  @Test
  void hubbleValuesNewerThanOurSubset() throws Exception {
    GetFlowsResponse.Builder unknownVerdict = hubbleFlow.toBuilder();
    unknownVerdict.getFlowBuilder().setVerdictValue(99);
    assertThat(hubble(unknownVerdict.build()).dropReason())
        .isEqualTo(DropReason.NOT_A_POLICY_VERDICT);

    GetFlowsResponse.Builder unknownDropReason = hubbleFlow.toBuilder();
    unknownDropReason.getFlowBuilder().setVerdictValue(2).setDropReasonDescValue(250);
    assertThat(hubble(unknownDropReason.build()).dropReason())
        .isEqualTo(DropReason.NON_POLICY_DROP);

    // A field and a response type we do not define arrive as unknown fields and change nothing.
    GetFlowsResponse.Builder extra = hubbleFlow.toBuilder();
    extra
        .getFlowBuilder()
        .setUnknownFields(
            UnknownFieldSet.newBuilder()
                .addField(
                    41,
                    UnknownFieldSet.Field.newBuilder()
                        .addLengthDelimited(ByteString.copyFromUtf8("\n\u0006Hubble"))
                        .build())
                .build());
    assertThat(hubble(extra.build()).records()).hasSize(1);
    GetFlowsResponse newType =
        GetFlowsResponse.newBuilder()
            .setUnknownFields(
                UnknownFieldSet.newBuilder()
                    .addField(
                        4,
                        UnknownFieldSet.Field.newBuilder()
                            .addLengthDelimited(ByteString.EMPTY)
                            .build())
                    .build())
            .build();
    assertThat(hubble(newType).dropReason()).isEqualTo(DropReason.NOT_A_FLOW);

    GetFlowsResponse.Builder noSource = hubbleFlow.toBuilder();
    noSource.getFlowBuilder().clearSource();
    assertThat(hubble(noSource.build()).dropReason()).isEqualTo(DropReason.INCOMPLETE);
    GetFlowsResponse.Builder noL4 = hubbleFlow.toBuilder();
    noL4.getFlowBuilder().clearL4();
    assertThat(hubble(noL4.build()).dropReason()).isEqualTo(DropReason.INCOMPLETE);
  }

  @Test
  void goldmaneValuesNewerThanOurSubset() throws Exception {
    FlowResult dst =
        GoldmaneJson.decode(Files.readAllLines(Fixtures.file("goldmane-flows.jsonl")).get(1));
    GoldmaneFlowParser parser = new GoldmaneFlowParser(resolver, Clock.systemUTC());
    FlowResult.Builder unknownAction = dst.toBuilder();
    unknownAction.getFlowBuilder().getKeyBuilder().setActionValue(42);
    assertThat(parser.parse(FlowResult.parseFrom(unknownAction.build().toByteArray())).dropReason())
        .isEqualTo(DropReason.NOT_A_POLICY_VERDICT);
    FlowResult.Builder newKind = dst.toBuilder();
    newKind
        .getFlowBuilder()
        .getKeyBuilder()
        .setActionValue(2)
        .getPoliciesBuilder()
        .clearEnforcedPolicies()
        .addEnforcedPoliciesBuilder()
        .setKindValue(77)
        .setActionValue(2)
        .setName("future-policy");
    var deny = parser.parse(FlowResult.parseFrom(newKind.build().toByteArray())).records().get(0);
    assertThat(deny.denyingPolicy().name()).isEqualTo("future-policy");
    assertThat(deny.denyingPolicy().kind()).isNull();
    FlowResult.Builder badPort = dst.toBuilder();
    badPort.getFlowBuilder().getKeyBuilder().setDestPort(70000);
    assertThat(parser.parse(badPort.build()).dropReason()).isEqualTo(DropReason.INCOMPLETE);
  }

  @Test
  void ztunnelLinesWithMissingFields() throws Exception {
    ZtunnelLogParser parser = new ZtunnelLogParser(resolver, "cluster.local", Clock.systemUTC());
    ObjectNode inbound =
        (ObjectNode)
            Json.mapper().readTree(Files.readAllLines(Fixtures.file("ztunnel.jsonl")).get(1));
    assertThat(parser.parse(inbound, null).records()).hasSize(1);
    for (String field : List.of("dst.hbone_addr", "src.identity", "direction")) {
      ObjectNode broken = inbound.deepCopy();
      broken.remove(field);
      assertThat(parser.parse(broken, null).isDropped()).as(field).isTrue();
    }
    ObjectNode badPort = inbound.deepCopy();
    badPort.put("dst.hbone_addr", "10.244.1.103:http");
    assertThat(parser.parse(badPort, null).dropReason()).isEqualTo(DropReason.INCOMPLETE);
    ObjectNode oddTime = inbound.deepCopy();
    oddTime.put("time", "03/Aug/2026:15:40:01 +0000");
    assertThat(parser.parse(oddTime, Instant.EPOCH).records().get(0).time())
        .isEqualTo(Instant.EPOCH);
  }
}
