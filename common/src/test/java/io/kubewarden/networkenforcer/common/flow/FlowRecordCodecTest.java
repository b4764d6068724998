package io.kubewarden.networkenforcer.common.flow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.kubewarden.networkenforcer.common.codec.WireWriter;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.common.topics.BinarySerde;
import io.kubewarden.networkenforcer.common.topics.JsonSerde;
import io.kubewarden.networkenforcer.common.topics.RecordDecodeException;
import io.kubewarden.networkenforcer.common.topics.Topics;
import io.kubewarden.networkenforcer.common.workload.WorkloadKind;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The binary flow record: round trips, reads the JSON of older versions, skips unknown fields. */
class FlowRecordCodecTest {
  private static final Instant T = Instant.parse("2026-03-01T10:15:30.123456789Z");
  private final BinarySerde<FlowRecord> serde = Topics.flowRecordSerde();
  private final JsonSerde<FlowRecord> json = new JsonSerde<>(FlowRecord.class);

  static FlowEndpoint client() {
    return FlowEndpoint.builder()
        .namespace("shop")
        .workload(WorkloadKind.Deployment, "client")
        .workloadSelector(
            new LabelSelectorBuilder()
                .addToMatchLabels("app", "client")
                .addNewMatchExpression()
                .withKey("tier")
                .withOperator("In")
                .withValues("web", "api")
                .endMatchExpression()
                .build())
        .podLabels(Map.of("app", "client", "pod-template-hash", "abc", "zone", "\u00e9t\u00e9-1"))
        .namespaceLabels(Map.of("kubernetes.io/metadata.name", "shop", "team", "a"))
        .podName("client-abc-1")
        .ip("10.0.0.7")
        .serviceAccount("client")
        .identity("spiffe://cluster.local/ns/shop/sa/client")
        .build();
  }

  static FlowEndpoint server() {
    return FlowEndpoint.builder()
        .namespace("shop")
        .workload(WorkloadKind.StatefulSet, "db")
        .workloadSelector(new LabelSelectorBuilder().addToMatchLabels("app", "db").build())
        .podLabels(Map.of("app", "db"))
        // A namespace label that differs from the namespace name is kept as it is.
        .namespaceLabels(Map.of("kubernetes.io/metadata.name", "other"))
        .ip("fd00::9")
        .namedPorts(
            List.of(
                new NamedPort("pg", 5432, Protocol.TCP), new NamedPort("dns", 53, Protocol.UDP)))
        .build();
  }

  static FlowRecord aggregateDeny() {
    return new FlowRecord(
        T,
        Provider.cilium,
        Protocol.TCP,
        5432,
        client(),
        server(),
        Verdict.DENIED,
        new PolicyRef("NetworkPolicy", "shop", "db-ingress"),
        4,
        Reporter.DESTINATION,
        T.plusSeconds(14).plusNanos(7));
  }

  @Test
  void roundTripsEverythingItCarries() {
    FlowRecord flow = aggregateDeny();
    byte[] bytes = serde.write(flow);
    assertThat(bytes[0]).isEqualTo(BinarySerde.MAGIC);
    assertThat(bytes[1]).isEqualTo(BinarySerde.VERSION);
    FlowRecord back = serde.read("flows", bytes);
    assertThat(back).isEqualTo(FlowRecordCodec.carried(flow));
    assertThat(back.lastSeen()).isEqualTo(T.plusSeconds(14).plusNanos(7));
    assertThat(back.src().podName()).isNull();
    assertThat(back.src().serviceAccount()).isNull();
    assertThat(back.src().workloadSelector()).isEqualTo(flow.src().workloadSelector());
    assertThat(back.dst().namespaceLabels())
        .containsExactly(Map.entry("kubernetes.io/metadata.name", "other"));
  }

  @Test
  void anInferredWorkloadStaysMarked() {
    FlowRecord flow = aggregateDeny();
    FlowRecord inferred =
        new FlowRecord(
            flow.time(),
            flow.provider(),
            flow.protocol(),
            flow.dstPort(),
            flow.src().toBuilder().inferred(true).build(),
            flow.dst(),
            flow.verdict(),
            flow.denyingPolicy(),
            flow.count(),
            flow.reporter(),
            flow.lastSeen());
    FlowRecord back = serde.read("flows", serde.write(inferred));
    assertThat(back.src().inferred()).isTrue();
    assertThat(back.dst().inferred()).isFalse();
  }

  @Test
  void aLabelOnlyPeerKeepsItsMarkInBinaryAndJsonAndOldJsonReadsUnmarked() throws Exception {
    FlowEndpoint labelled =
        FlowEndpoint.builder()
            .namespace("default")
            .workloadSelector(
                new LabelSelectorBuilder()
                    .addToMatchLabels("version", "v2")
                    .addToMatchLabels("app", "reviews")
                    .build())
            .podLabels(Map.of("app", "reviews", "version", "v2", "pod-template-hash", "7d8f9c"))
            .labelsOnly(true)
            .build();
    FlowRecord flow =
        new FlowRecord(
            T, Provider.cilium, Protocol.TCP, 9080, labelled, server(), null, null, 1, null);

    FlowRecord back = serde.read("flows", serde.write(flow));
    assertThat(back).isEqualTo(FlowRecordCodec.carried(flow));
    assertThat(back.src().labelsOnly()).isTrue();
    assertThat(back.src().labelPeerKey()).contains("default/Labels/app=reviews,version=v2");
    assertThat(back.src().workload()).isEmpty();
    assertThat(back.src().jobPeerKey()).isEmpty();
    assertThat(back.dst().labelsOnly()).isFalse();
    assertThat(back.dst().labelPeerKey()).isEmpty();

    String written = new String(json.write(flow), StandardCharsets.UTF_8);
    assertThat(written).contains("\"labelsOnly\":true").containsOnlyOnce("labelsOnly");
    assertThat(serde.read("flows", json.write(flow))).isEqualTo(flow);
    // An older version's JSON has no such field: read as before, unmarked.
    var tree = (ObjectNode) Json.mapper().readTree(json.write(flow));
    ((ObjectNode) tree.get("src")).remove("labelsOnly");
    FlowRecord old = serde.read("flows", Json.mapper().writeValueAsBytes(tree));
    assertThat(old.src().labelsOnly()).isFalse();
    assertThat(old.src().labelPeerKey()).isEmpty();
    assertThat(old.src().toBuilder().labelsOnly(true).build()).isEqualTo(flow.src());
  }

  @Test
  void anExternalEndpointKeepsItsAddressNamesAndNetwork() {
    FlowEndpoint outside =
        FlowEndpoint.outsideCluster(
            "203.0.113.9",
            new ExternalEndpoint(List.of("api.stripe.com", "api.example.com"), null));
    FlowEndpoint namedNetwork =
        FlowEndpoint.outsideCluster(null, new ExternalEndpoint(List.of(), "pub"));
    FlowEndpoint bare = FlowEndpoint.outsideCluster("198.51.100.1", null);
    for (FlowEndpoint dst : List.of(outside, namedNetwork, bare)) {
      FlowRecord flow =
          new FlowRecord(
              T, Provider.cilium, Protocol.TCP, 443, client(), dst, null, null, 1, Reporter.SOURCE);
      FlowRecord back = serde.read("flows", serde.write(flow));
      assertThat(back).isEqualTo(FlowRecordCodec.carried(flow));
      assertThat(back.dst().isExternal()).isTrue();
      assertThat(back.dst().external()).isEqualTo(dst.external());
      assertThat(back.dst().ip()).isEqualTo(dst.ip());
      assertThat(back.src().isExternal()).isFalse();
    }
    FlowRecord back =
        serde.read(
            "flows",
            serde.write(
                new FlowRecord(
                    T,
                    Provider.cilium,
                    Protocol.TCP,
                    443,
                    client(),
                    outside,
                    null,
                    null,
                    1,
                    Reporter.SOURCE)));
    assertThat(back.dst().external().dnsNames())
        .containsExactly("api.example.com", "api.stripe.com");
    assertThat(back.dst().external().network()).isNull();
  }

  @Test
  void namedPortsKnownSurvivesEvenWithoutPorts() {
    FlowEndpoint noNamedPorts =
        server().toBuilder().namedPorts(List.of()).namedPortsKnown(true).build();
    FlowEndpoint unknown =
        server().toBuilder().namedPorts(List.of()).namedPortsKnown(false).build();
    FlowRecord known =
        new FlowRecord(
            T,
            Provider.calico,
            Protocol.TCP,
            5432,
            client(),
            noNamedPorts,
            null,
            null,
            1,
            Reporter.SOURCE);
    FlowRecord back = serde.read("flows", serde.write(known));
    assertThat(back).isEqualTo(FlowRecordCodec.carried(known));
    assertThat(back.dst().namedPortsKnown()).isTrue();
    assertThat(back.dst().namedPortsAreKnown()).isTrue();
    assertThat(back.src().namedPortsKnown()).isNull();

    FlowRecord notKnown =
        new FlowRecord(
            T,
            Provider.calico,
            Protocol.TCP,
            5432,
            client(),
            unknown,
            null,
            null,
            1,
            Reporter.SOURCE);
    FlowRecord backUnknown = serde.read("flows", serde.write(notKnown));
    assertThat(backUnknown.dst().namedPortsKnown()).isNull();
    assertThat(backUnknown.dst().namedPortsAreKnown()).isFalse();
  }

  @Test
  void aCronJobWorkloadRoundTrips() {
    FlowEndpoint backup = client().toBuilder().workload(WorkloadKind.CronJob, "backup").build();
    FlowRecord flow =
        new FlowRecord(
            T,
            Provider.cilium,
            Protocol.TCP,
            5432,
            backup,
            server(),
            null,
            null,
            1,
            Reporter.SOURCE);
    FlowRecord back = serde.read("flows", serde.write(flow));
    assertThat(back.src().workloadKind()).isEqualTo(WorkloadKind.CronJob);
    assertThat(back).isEqualTo(FlowRecordCodec.carried(flow));
  }

  @Test
  void defaultsAndMinimalRecordsRoundTrip() {
    FlowEndpoint identityOnly =
        FlowEndpoint.builder()
            .namespace("shop")
            .identity("spiffe://cluster.local/ns/shop/sa/x")
            .build();
    FlowRecord flow =
        new FlowRecord(
            Instant.ofEpochSecond(-5),
            Provider.istio,
            Protocol.UDP,
            0,
            identityOnly,
            server(),
            null,
            null,
            0,
            null);
    FlowRecord back = serde.read("flows", serde.write(flow));
    assertThat(back).isEqualTo(flow);
    assertThat(back.verdict()).isEqualTo(Verdict.FORWARDED);
    assertThat(back.reporter()).isEqualTo(Reporter.UNKNOWN);
    assertThat(back.count()).isEqualTo(1);
    assertThat(back.lastSeen()).isEqualTo(back.time());
    assertThat(back.src().workloadSelector()).isNull();
  }

  @Test
  void readsTheSameFromTheJsonOfOlderVersionsAsFromBinary() throws Exception {
    FlowRecord flow =
        new FlowRecord(
            T,
            Provider.calico,
            Protocol.TCP,
            8080,
            client(),
            server(),
            null,
            null,
            1,
            Reporter.SOURCE);
    // Today's JSON without lastSeen, as versions before the binary format wrote it.
    var tree = (ObjectNode) Json.mapper().readTree(json.write(flow));
    tree.remove("lastSeen");
    byte[] oldJson = Json.mapper().writeValueAsBytes(tree);
    assertThat(new String(oldJson, StandardCharsets.UTF_8))
        .startsWith("{\"time\"")
        .doesNotContain("lastSeen");

    FlowRecord fromJson = serde.read("flows", oldJson);
    FlowRecord fromBinary = serde.read("flows", serde.write(fromJson));
    assertThat(fromJson).isEqualTo(flow);
    assertThat(fromJson.lastSeen()).isEqualTo(T);
    assertThat(fromBinary).isEqualTo(FlowRecordCodec.carried(fromJson));
    assertThat(serde.write(flow).length).isLessThan(oldJson.length / 2);
  }

  @Test
  void skipsFieldsItDoesNotKnow() {
    FlowRecord flow = aggregateDeny();
    byte[] known = serde.write(flow);
    // A newer writer's record: an unknown number, string and nested message before and after.
    WireWriter extra = new WireWriter(64);
    extra.varint(99, 123456789L);
    extra.string(100, "from a newer version");
    int m = extra.beginMessage(101);
    extra.varint(1, 7);
    extra.endMessage(m);
    byte[] tail = extra.toByteArray();
    byte[] newer = Arrays.copyOf(known, known.length + tail.length);
    System.arraycopy(tail, 0, newer, known.length, tail.length);
    assertThat(serde.read("flows", newer)).isEqualTo(FlowRecordCodec.carried(flow));
  }

  @Test
  void brokenBinaryRecordsAreClearDecodeErrors() {
    byte[] bytes = serde.write(aggregateDeny());
    assertThatThrownBy(() -> serde.read("net.flows", Arrays.copyOf(bytes, bytes.length - 3)))
        .isInstanceOf(RecordDecodeException.class)
        .hasMessageStartingWith("cannot read record of topic net.flows: not a valid FlowRecord (");
    byte[] future = bytes.clone();
    future[1] = 9;
    assertThatThrownBy(() -> serde.read("net.flows", future))
        .isInstanceOf(RecordDecodeException.class)
        .hasMessageContaining("binary format version 9; this version reads 1");
    assertThatThrownBy(() -> serde.read("net.flows", new byte[] {0}))
        .isInstanceOf(RecordDecodeException.class)
        .hasMessageContaining("without a version");
    WireWriter noEndpoints = new WireWriter(16);
    noEndpoints.rawByte(BinarySerde.MAGIC);
    noEndpoints.rawByte(BinarySerde.VERSION);
    noEndpoints.varint(1, 1);
    noEndpoints.varint(3, 42);
    assertThatThrownBy(() -> serde.read("net.flows", noEndpoints.toByteArray()))
        .isInstanceOf(RecordDecodeException.class)
        .hasMessageContaining("unknown provider code 42");
  }

  @Test
  void plusCombinesTimesAndCounts() {
    FlowRecord a =
        new FlowRecord(
            T,
            Provider.cilium,
            Protocol.TCP,
            80,
            client(),
            server(),
            null,
            null,
            2,
            Reporter.SOURCE,
            T.plusSeconds(3));
    FlowRecord b =
        new FlowRecord(
            T.minusSeconds(1),
            Provider.cilium,
            Protocol.TCP,
            80,
            client(),
            server(),
            null,
            null,
            5,
            Reporter.SOURCE);
    FlowRecord both = a.plus(b);
    assertThat(both.firstSeen()).isEqualTo(T.minusSeconds(1));
    assertThat(both.lastSeen()).isEqualTo(T.plusSeconds(3));
    assertThat(both.count()).isEqualTo(7);
    assertThat(b.plus(a)).isEqualTo(both);
  }
}
