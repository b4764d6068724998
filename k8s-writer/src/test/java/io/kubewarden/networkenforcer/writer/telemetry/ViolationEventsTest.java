package io.kubewarden.networkenforcer.writer.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.common.crd.AcknowledgedViolation;
import io.kubewarden.networkenforcer.common.crd.ViolationEndpoint;
import io.kubewarden.networkenforcer.common.crd.ViolationRecord;
import io.kubewarden.networkenforcer.common.flow.HttpRequest;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.policy.Backend;
import io.kubewarden.networkenforcer.common.policy.Direction;
import io.kubewarden.networkenforcer.common.policy.Mode;
import io.kubewarden.networkenforcer.common.violation.ViolationObservation;
import io.kubewarden.networkenforcer.writer.observations.SourcedObservation;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.logs.Severity;
import io.opentelemetry.sdk.logs.SdkLoggerProvider;
import io.opentelemetry.sdk.logs.data.LogRecordData;
import io.opentelemetry.sdk.logs.export.SimpleLogRecordProcessor;
import io.opentelemetry.sdk.testing.exporter.InMemoryLogRecordExporter;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ViolationEventsTest {
  InMemoryLogRecordExporter exporter;
  SdkLoggerProvider provider;
  ViolationEvents events;

  @BeforeEach
  void setUp() {
    exporter = InMemoryLogRecordExporter.create();
    provider =
        SdkLoggerProvider.builder()
            .addLogRecordProcessor(SimpleLogRecordProcessor.create(exporter))
            .build();
    events = new ViolationEvents(provider);
  }

  @AfterEach
  void tearDown() {
    provider.close();
  }

  @Test
  void observedCarriesEveryAttributeOfTheContractWithPortAsInt() {
    ViolationObservation o =
        new ViolationObservation(
            "shop",
            "deployment-api-ingress",
            Instant.parse("2026-03-01T10:00:00Z"),
            new ViolationEndpoint(
                "shop", "Deployment", "web", "spiffe://cluster.local/ns/shop/sa/web", null),
            new ViolationEndpoint(
                "shop", "Deployment", "api", "spiffe://cluster.local/ns/shop/sa/api", null),
            Protocol.TCP,
            8080,
            Mode.protect,
            "shop",
            "deployment-api-ingress",
            Provider.istio,
            Backend.istio,
            Direction.Ingress,
            1);
    events.observed(new SourcedObservation("violations", 2, 41, o));
    events.observed(new SourcedObservation("violations", 2, 41, o));
    events.observed(new SourcedObservation("violations", 2, 42, o));

    LogRecordData r = exporter.getFinishedLogRecordItems().get(0);
    assertThat(r.getEventName()).isEqualTo("policy_violation_observed");
    assertThat(r.getSeverity()).isEqualTo(Severity.WARN);
    assertThat(r.getInstrumentationScopeInfo().getName()).isEqualTo("network-enforcer");
    assertThat(keys(r))
        .containsExactlyInAnyOrder(
            "enforcement.provider",
            "action",
            "source.workload.name",
            "source.workload.namespace",
            "source.workload.kind",
            "source.workload.identity",
            "destination.workload.name",
            "destination.workload.namespace",
            "destination.workload.kind",
            "destination.workload.identity",
            "network.transport",
            "destination.port",
            "policy.ref.namespace",
            "policy.ref.name",
            ViolationEvents.EVENT_ID);
    String id = r.getAttributes().get(AttributeKey.stringKey(ViolationEvents.EVENT_ID));
    assertThat(
            exporter
                .getFinishedLogRecordItems()
                .get(1)
                .getAttributes()
                .get(AttributeKey.stringKey(ViolationEvents.EVENT_ID)))
        .as("the same record, the same id")
        .isEqualTo(id);
    assertThat(
            exporter
                .getFinishedLogRecordItems()
                .get(2)
                .getAttributes()
                .get(AttributeKey.stringKey(ViolationEvents.EVENT_ID)))
        .as("another record, another id")
        .isNotEqualTo(id);
    assertThat(r.getAttributes().get(AttributeKey.longKey("destination.port"))).isEqualTo(8080L);
    assertThat(r.getAttributes().get(AttributeKey.stringKey("enforcement.provider")))
        .isEqualTo("istio");
    assertThat(r.getAttributes().get(AttributeKey.stringKey("action"))).isEqualTo("protect");
    assertThat(r.getAttributes().get(AttributeKey.stringKey("network.transport"))).isEqualTo("TCP");
    assertThat(r.getAttributes().get(AttributeKey.stringKey("source.workload.identity")))
        .as("prefix-free, as api.md says")
        .isEqualTo("cluster.local/ns/shop/sa/web");
    assertThat(r.getAttributes().get(AttributeKey.stringKey("destination.workload.identity")))
        .isEqualTo("cluster.local/ns/shop/sa/api");
    assertThat(r.getAttributes().get(AttributeKey.stringKey("policy.ref.name")))
        .isEqualTo("deployment-api-ingress");
    assertThat(r.getTimestampEpochNanos())
        .isEqualTo(Instant.parse("2026-03-01T10:00:00Z").toEpochMilli() * 1_000_000);
  }

  @Test
  void aRecordCombinedFromThreeFlowRecordsSendsThreeEventsWithStableDistinctIds() {
    ViolationObservation o =
        new ViolationObservation(
            "shop",
            "deployment-api-ingress",
            Instant.parse("2026-03-01T10:00:00Z"),
            new ViolationEndpoint("shop", "Deployment", "web", null, null),
            new ViolationEndpoint("shop", "Deployment", "api", null, null),
            Protocol.TCP,
            8080,
            Mode.monitor,
            null,
            null,
            Provider.calico,
            Backend.kubernetes,
            Direction.Ingress,
            6,
            3,
            null);
    events.observed(new SourcedObservation("violations", 1, 7, o));
    events.observed(new SourcedObservation("violations", 1, 7, o)); // read again after a failover

    List<String> ids =
        exporter.getFinishedLogRecordItems().stream()
            .map(r -> r.getAttributes().get(AttributeKey.stringKey(ViolationEvents.EVENT_ID)))
            .toList();
    assertThat(ids).hasSize(6);
    assertThat(ids.subList(0, 3)).doesNotHaveDuplicates().isEqualTo(ids.subList(3, 6));
    assertThat(ids.get(0)).isEqualTo(new SourcedObservation("violations", 1, 7, o).eventId());
  }

  @Test
  void observedLeavesEmptyValuesOutButAlwaysHasThePort() {
    ViolationObservation o =
        new ViolationObservation(
            "shop",
            "deployment-api-ingress",
            Instant.now(),
            new ViolationEndpoint("shop", "Deployment", "web", "", null),
            new ViolationEndpoint("shop", "Deployment", "api", null, null),
            Protocol.UDP,
            0,
            Mode.monitor,
            null,
            "",
            Provider.cilium,
            Backend.kubernetes,
            Direction.Ingress,
            1);
    events.observed(SourcedObservation.unsourced(o));

    LogRecordData r = exporter.getFinishedLogRecordItems().get(0);
    assertThat(keys(r))
        .doesNotContain("source.workload.identity", "destination.workload.identity")
        .contains("destination.port", "enforcement.provider");
    assertThat(r.getAttributes().get(AttributeKey.longKey("destination.port"))).isZero();
    assertThat(r.getAttributes().get(AttributeKey.stringKey("enforcement.provider")))
        .isEqualTo("kubernetes");
    assertThat(r.getAttributes().get(AttributeKey.stringKey("action"))).isEqualTo("monitor");
  }

  @Test
  void aRefusedRequestAddsItsMethodAndPathByTheSemanticConventions() {
    ViolationObservation o =
        new ViolationObservation(
                "shop",
                "deployment-api-ingress",
                Instant.parse("2026-03-01T10:00:00Z"),
                null,
                null,
                Protocol.TCP,
                8080,
                Mode.protect,
                null,
                null,
                Provider.cilium,
                Backend.cilium,
                Direction.Ingress,
                1)
            .withHttp(new HttpRequest("PUT", "/v1/exhaust-port", false));
    events.observed(SourcedObservation.unsourced(o));

    LogRecordData r = exporter.getFinishedLogRecordItems().get(0);
    assertThat(r.getAttributes().get(AttributeKey.stringKey("http.request.method")))
        .isEqualTo("PUT");
    assertThat(r.getAttributes().get(AttributeKey.stringKey("url.path")))
        .isEqualTo("/v1/exhaust-port");
    assertThat(r.getAttributes().get(AttributeKey.stringKey("enforcement.provider")))
        .isEqualTo("cilium");
  }

  @Test
  void acknowledgedCarriesEveryAttributeOfTheContract() {
    ViolationRecord v = new ViolationRecord();
    v.setId(7);
    v.setTimestamp("2026-03-01T10:00:00Z");
    v.setSource(
        new ViolationEndpoint(
            "shop", "Deployment", "web", "spiffe://cluster.local/ns/shop/sa/web", null));
    v.setDest(
        new ViolationEndpoint(
            "shop", "Deployment", "api", "spiffe://cluster.local/ns/shop/sa/api", null));
    v.setProtocol(Protocol.TCP);
    v.setDstPort(8080);
    v.setAction(Mode.protect);
    v.setDenyingPolicyNamespace("shop");
    v.setDenyingPolicyName("deployment-api-ingress");
    events.acknowledged(
        "shop/deployment-api-ingress",
        new AcknowledgedViolation(v, "expected during migration", "2026-03-01T11:00:00Z"));

    LogRecordData r = exporter.getFinishedLogRecordItems().get(0);
    assertThat(r.getEventName()).isEqualTo("policy_violation_acknowledged");
    assertThat(r.getSeverity()).isEqualTo(Severity.INFO);
    assertThat(keys(r))
        .containsExactlyInAnyOrder(
            "id",
            "timestamp",
            "reason",
            "source.namespace",
            "source.workload.kind",
            "source.workload.name",
            "source.workload.identity",
            "dest.namespace",
            "dest.workload.kind",
            "dest.workload.name",
            "dest.workload.identity",
            "protocol",
            "dstPort",
            "action",
            "denyingPolicy.namespace",
            "denyingPolicy.name",
            ViolationEvents.EVENT_ID);
    assertThat(r.getAttributes().get(AttributeKey.longKey("id"))).isEqualTo(7L);
    assertThat(r.getAttributes().get(AttributeKey.stringKey("source.workload.identity")))
        .isEqualTo("cluster.local/ns/shop/sa/web");
    assertThat(r.getAttributes().get(AttributeKey.stringKey("dest.workload.identity")))
        .isEqualTo("cluster.local/ns/shop/sa/api");
    assertThat(r.getAttributes().get(AttributeKey.longKey("dstPort"))).isEqualTo(8080L);
    assertThat(r.getAttributes().get(AttributeKey.stringKey("reason")))
        .isEqualTo("expected during migration");
  }

  static Set<String> keys(LogRecordData r) {
    return r.getAttributes().asMap().keySet().stream()
        .map(AttributeKey::getKey)
        .collect(Collectors.toSet());
  }
}
