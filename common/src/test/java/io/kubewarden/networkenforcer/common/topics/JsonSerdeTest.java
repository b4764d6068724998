package io.kubewarden.networkenforcer.common.topics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicySpecBuilder;
import io.kubewarden.networkenforcer.common.control.ControlCommand;
import io.kubewarden.networkenforcer.common.crd.IstioPolicy;
import io.kubewarden.networkenforcer.common.crd.PolicySnapshot;
import io.kubewarden.networkenforcer.common.crd.PortEvidence;
import io.kubewarden.networkenforcer.common.crd.RuleEvidence;
import io.kubewarden.networkenforcer.common.crd.TargetRef;
import io.kubewarden.networkenforcer.common.crd.ViolationEndpoint;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposalSpec;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicySpec;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.FlowRecordCodec;
import io.kubewarden.networkenforcer.common.flow.HttpRequest;
import io.kubewarden.networkenforcer.common.flow.NamedPort;
import io.kubewarden.networkenforcer.common.flow.PolicyRef;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.common.flow.Verdict;
import io.kubewarden.networkenforcer.common.policy.Backend;
import io.kubewarden.networkenforcer.common.policy.Direction;
import io.kubewarden.networkenforcer.common.policy.Mode;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.common.violation.ViolationObservation;
import io.kubewarden.networkenforcer.common.workload.WorkloadKind;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.serialization.Serde;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every topic value survives the wire unchanged; anything else is a clear {@link
 * RecordDecodeException}.
 */
class JsonSerdeTest {

  private static final Instant T = Instant.parse("2026-03-01T10:15:30.123456789Z");
  private final Topics topics = Topics.withDefaultPrefix();

  private static <V> V roundTrip(Topic<String, V> topic, V value) {
    Serde<V> serde = topic.valueSerde();
    byte[] bytes = serde.serializer().serialize(topic.name(), value);
    assertThat(bytes).isNotEmpty();
    return serde.deserializer().deserialize(topic.name(), bytes);
  }

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
        .podLabels(Map.of("app", "client", "pod-template-hash", "abc"))
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
        .ip("10.0.0.9")
        .namedPorts(List.of(new NamedPort("pg", 5432, Protocol.TCP)))
        .build();
  }

  @Test
  void flowRecordRoundTrips() {
    FlowRecord flow =
        new FlowRecord(
            T,
            Provider.cilium,
            Protocol.TCP,
            5432,
            client(),
            server(),
            Verdict.DENIED,
            new PolicyRef("NetworkPolicy", "shop", "db-ingress"),
            4,
            Reporter.DESTINATION);
    FlowRecord back = roundTrip(topics.flows(), flow);
    // The flows topic is binary and leaves out what no reader uses (pod name, service account).
    assertThat(back).isEqualTo(FlowRecordCodec.carried(flow));
    assertThat(back.partitionKey()).isEqualTo("shop/Deployment/client");
    assertThat(back.time()).isEqualTo(T);
  }

  @Test
  void minimalFlowRecordRoundTripsWithDefaults() {
    FlowEndpoint identityOnly =
        FlowEndpoint.builder()
            .namespace("shop")
            .identity("spiffe://cluster.local/ns/shop/sa/x")
            .build();
    FlowRecord flow =
        new FlowRecord(
            T, Provider.istio, Protocol.UDP, 0, identityOnly, server(), null, null, 0, null);
    FlowRecord back = roundTrip(topics.flows(), flow);
    assertThat(back).isEqualTo(flow);
    assertThat(back.verdict()).isEqualTo(Verdict.FORWARDED);
    assertThat(back.reporter()).isEqualTo(Reporter.UNKNOWN);
    assertThat(back.count()).isEqualTo(1);
    assertThat(back.partitionKey()).isEqualTo("shop/StatefulSet/db");
  }

  @Test
  void theInferredMarkTravelsOnlyWhenSet() {
    FlowEndpoint inferred = client().toBuilder().inferred(true).build();
    FlowRecord flow =
        new FlowRecord(
            T, Provider.cilium, Protocol.TCP, 5432, inferred, server(), null, null, 1, null);
    // The JSON form (older records, the topics a person reads): one small field on the inferred
    // endpoint only, {"inferred":true}, absent when false.
    byte[] bytes = new JsonSerde<>(FlowRecord.class).serializer().serialize("flows", flow);
    String json = new String(bytes, StandardCharsets.UTF_8);
    assertThat(json.split("\"inferred\"", -1)).hasSize(2);
    assertThat(json).contains("\"inferred\":true");
    assertThat(topics.flows().valueSerde().deserializer().deserialize("flows", bytes))
        .isEqualTo(flow);
    // The binary flows topic carries the mark too.
    FlowRecord back = roundTrip(topics.flows(), flow);
    assertThat(back).isEqualTo(FlowRecordCodec.carried(flow));
    assertThat(back.src().inferred()).isTrue();
    assertThat(back.dst().inferred()).isFalse();
  }

  @Test
  void proposalSnapshotRoundTripsBothBackends() {
    WorkloadNetworkPolicyProposalSpec k8s = new WorkloadNetworkPolicyProposalSpec();
    k8s.setBackend(Backend.kubernetes);
    k8s.setDirection(Direction.Ingress);
    k8s.setTargetRef(new TargetRef(WorkloadKind.StatefulSet, "db"));
    k8s.setKubernetes(
        new NetworkPolicySpecBuilder()
            .withPodSelector(new LabelSelectorBuilder().addToMatchLabels("app", "db").build())
            .withPolicyTypes("Ingress")
            .addNewIngress()
            .addNewFrom()
            .withNewNamespaceSelector()
            .addToMatchLabels("kubernetes.io/metadata.name", "shop")
            .endNamespaceSelector()
            .withNewPodSelector()
            .addToMatchLabels("app", "client")
            .endPodSelector()
            .endFrom()
            .addNewPort()
            .withProtocol("TCP")
            .withPort(new IntOrString(5432))
            .endPort()
            .addNewPort()
            .withProtocol("TCP")
            .withPort(new IntOrString("metrics"))
            .withEndPort(9100)
            .endPort()
            .endIngress()
            .build());
    ProposalSnapshot proposal =
        new ProposalSnapshot(
            "statefulset-db-ingress",
            "shop",
            k8s,
            List.of(
                new RuleEvidence(
                    0,
                    "shop/Deployment/client",
                    List.of(
                        new PortEvidence(
                            "TCP", "5432", "2026-03-01T10:00:00Z", "2026-03-01T10:15:30Z", 12)))),
            T);
    ProposalSnapshot back = roundTrip(topics.proposals(), proposal);
    assertThat(back).isEqualTo(proposal);
    assertThat(back.target().key()).isEqualTo("shop/StatefulSet/db/Ingress");
    assertThat(
            back.spec().getKubernetes().getIngress().get(0).getPorts().get(1).getPort().getStrVal())
        .isEqualTo("metrics");

    WorkloadNetworkPolicyProposalSpec istio = new WorkloadNetworkPolicyProposalSpec();
    istio.setBackend(Backend.istio);
    istio.setDirection(Direction.Ingress);
    istio.setTargetRef(new TargetRef(WorkloadKind.Deployment, "web"));
    istio.setIstio(
        new IstioPolicy(
            new LabelSelectorBuilder().addToMatchLabels("app", "web").build(),
            List.of(
                IstioPolicy.Rule.of(
                    List.of("cluster.local/ns/shop/sa/client"), List.of("8080", "9000-9010")))));
    ProposalSnapshot istioProposal =
        new ProposalSnapshot("deployment-web-ingress", "shop", istio, null, T);
    assertThat(roundTrip(topics.proposals(), istioProposal)).isEqualTo(istioProposal);

    ProposalSnapshot inferred =
        new ProposalSnapshot(
            "deployment-web-ingress", "shop", istio, null, T, List.of("shop/Deployment/web"));
    assertThat(roundTrip(topics.proposals(), inferred)).isEqualTo(inferred);
    assertThat(inferred.metadataAnnotations())
        .containsExactly(
            Map.entry("networkenforcer.kubewarden.io/inferred-workloads", "shop/Deployment/web"));
    assertThat(istioProposal.metadataAnnotations()).isEmpty();
  }

  @Test
  void proposalAnnotationsRoundTripAndStayOutOfTheRecordWhenEmpty() {
    WorkloadNetworkPolicyProposalSpec istio = new WorkloadNetworkPolicyProposalSpec();
    istio.setBackend(Backend.istio);
    istio.setDirection(Direction.Ingress);
    istio.setTargetRef(new TargetRef(WorkloadKind.Deployment, "web"));
    istio.setIstio(
        new IstioPolicy(
            new LabelSelectorBuilder().addToMatchLabels("app", "web").build(), List.of()));
    ProposalSnapshot plain = new ProposalSnapshot("deployment-web-ingress", "shop", istio, null, T);
    assertThat(
            new String(
                topics.proposals().valueSerde().serializer().serialize("p", plain),
                StandardCharsets.UTF_8))
        .doesNotContain("annotations");
    ProposalSnapshot replayed =
        plain.withAnnotations(
            Map.of(
                "networkenforcer.kubewarden.io/replayed-from",
                "2026-03-01T10:00:00Z/2026-03-01T11:00:00Z"));
    assertThat(roundTrip(topics.proposals(), replayed)).isEqualTo(replayed);
    assertThat(roundTrip(topics.proposals(), replayed).annotations()).hasSize(1);
  }

  @Test
  void policySnapshotRoundTrips() {
    WorkloadNetworkPolicySpec spec = new WorkloadNetworkPolicySpec();
    spec.setBackend(Backend.kubernetes);
    spec.setDirection(Direction.Egress);
    spec.setTargetRef(new TargetRef(WorkloadKind.Deployment, "client"));
    spec.setMode(Mode.protect);
    spec.setKubernetes(
        new NetworkPolicySpecBuilder()
            .withPodSelector(new LabelSelectorBuilder().addToMatchLabels("app", "client").build())
            .withPolicyTypes("Egress")
            .addNewEgress()
            .addNewTo()
            .withNewIpBlock()
            .withCidr("10.0.0.0/8")
            .withExcept("10.1.0.0/16")
            .endIpBlock()
            .endTo()
            .endEgress()
            .build());
    PolicySnapshot policy =
        new PolicySnapshot("deployment-client-egress", "shop", spec, 3, "deployment-client-egress");
    PolicySnapshot back = roundTrip(topics.policies(), policy);
    assertThat(back).isEqualTo(policy);
    assertThat(back.mode()).isEqualTo(Mode.protect);
    assertThat(back.target().key()).isEqualTo("shop/Deployment/client/Egress");
  }

  @Test
  void violationObservationRoundTrips() {
    ViolationObservation v =
        new ViolationObservation(
            "shop",
            "statefulset-db-ingress",
            T,
            new ViolationEndpoint(
                "shop",
                "Deployment",
                "client",
                "spiffe://cluster.local/ns/shop/sa/client",
                new LabelSelectorBuilder().addToMatchLabels("app", "client").build()),
            new ViolationEndpoint("shop", "StatefulSet", "db", null, null),
            Protocol.TCP,
            5432,
            Mode.monitor,
            "shop",
            "statefulset-db-ingress",
            Provider.calico,
            Backend.kubernetes,
            Direction.Ingress,
            2);
    ViolationObservation back = roundTrip(topics.violations(), v);
    assertThat(back).isEqualTo(v);
    assertThat(back.policyKey()).isEqualTo("shop/statefulset-db-ingress");
    assertThat(back.toRecord().getTimestamp()).isEqualTo("2026-03-01T10:15:30.123456789Z");
    ViolationObservation refused = v.withHttp(new HttpRequest("DELETE", "/orders/7", true));
    assertThat(roundTrip(topics.violations(), refused)).isEqualTo(refused);
    assertThat(refused.toRecord().getHttpPath()).isEqualTo("/orders/7");
  }

  @Test
  void aCombinedViolationKeepsItsObservationsAndAnOlderRecordWithoutThemStandsForOne() {
    ViolationObservation v =
        new ViolationObservation(
            "shop",
            "statefulset-db-ingress",
            T,
            null,
            new ViolationEndpoint("shop", "StatefulSet", "db", null, null),
            Protocol.TCP,
            5432,
            Mode.protect,
            null,
            null,
            Provider.cilium,
            Backend.kubernetes,
            Direction.Ingress,
            9,
            4,
            null);
    assertThat(roundTrip(topics.violations(), v).observations()).isEqualTo(4);

    String older =
        "{\"policyNamespace\":\"shop\",\"policyName\":\"statefulset-db-ingress\","
            + "\"timestamp\":\"2026-03-01T10:15:30Z\",\"protocol\":\"TCP\",\"dstPort\":5432,\"action\":\"protect\","
            + "\"count\":3}";
    ViolationObservation read =
        topics
            .violations()
            .valueSerde()
            .deserializer()
            .deserialize("t", older.getBytes(StandardCharsets.UTF_8));
    assertThat(read.observations()).isEqualTo(1);
    assertThat(read.count()).isEqualTo(3);
  }

  @Test
  void controlCommandRoundTrips() {
    ControlCommand c =
        ControlCommand.resetLearning("shop/Deployment/web/Ingress", T, "proposal deleted by hand");
    assertThat(roundTrip(topics.control(), c)).isEqualTo(c);
  }

  @Test
  void nullIsATombstoneBothWays() {
    JsonSerde<ProposalSnapshot> serde = new JsonSerde<>(ProposalSnapshot.class);
    assertThat(serde.serializer().serialize("t", null)).isNull();
    assertThat(serde.deserializer().deserialize("t", null)).isNull();
  }

  @Test
  void unknownFieldsFromNewerWritersAreIgnored() {
    String json =
        "{\"type\":\"RESET_LEARNING\",\"target\":\"a/Deployment/b/Ingress\",\"newField\":{\"x\":1}}";
    ControlCommand c =
        topics
            .control()
            .valueSerde()
            .deserializer()
            .deserialize("control", json.getBytes(StandardCharsets.UTF_8));
    assertThat(c.type()).isEqualTo(ControlCommand.Type.RESET_LEARNING);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "null",
        "garbage \u0000\u00ff",
        "{\"time\":",
        "[1,2,3]",
        "42",
        "{\"time\":\"2026-03-01T10:15:30Z\",\"provider\":\"cilium\",\"protocol\":\"TCP\",\"src\":{},\"dst\":{}}"
            + "{\"time\":",
        "{\"time\":\"2026-03-01T10:15:30Z\",\"provider\":\"cilium\",\"protocol\":\"TCP\",\"src\":{},\"dst\":{}} x",
        "{\"time\":\"yesterday\",\"provider\":\"cilium\",\"protocol\":\"TCP\",\"src\":{},\"dst\":{}}",
        "{\"time\":\"2026-03-01T10:15:30Z\",\"provider\":\"linkerd\",\"protocol\":\"TCP\",\"src\":{},\"dst\":{}}",
        "{\"time\":\"2026-03-01T10:15:30Z\",\"provider\":\"cilium\",\"protocol\":\"TCP\",\"src\":{}}",
        "{\"time\":\"2026-03-01T10:15:30Z\",\"provider\":\"cilium\",\"protocol\":\"TCP\",\"dstPort\":70000,"
            + "\"src\":{},\"dst\":{}}"
      })
  void badBytesRaiseARecordDecodeExceptionNamingTopicAndType(String payload) {
    byte[] bytes = payload.getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(
            () ->
                topics
                    .flows()
                    .valueSerde()
                    .deserializer()
                    .deserialize("network-enforcer.flows", bytes))
        .isInstanceOf(RecordDecodeException.class)
        .hasMessageStartingWith("cannot read record of topic network-enforcer.flows: ")
        .hasMessageContaining("FlowRecord")
        .satisfies(
            e ->
                assertThat(((RecordDecodeException) e).topic())
                    .isEqualTo("network-enforcer.flows"));
  }

  @Test
  void decodeErrorsSayWhatIsWrong() {
    byte[] badProvider =
        ("{\"time\":\"2026-03-01T10:15:30Z\",\"provider\":\"linkerd\",\"protocol\":\"TCP\","
                + "\"src\":{},\"dst\":{}}")
            .getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(
            () -> topics.flows().valueSerde().deserializer().deserialize("flows", badProvider))
        .hasMessageContaining("linkerd");
    byte[] missingDst =
        "{\"time\":\"2026-03-01T10:15:30Z\",\"provider\":\"cilium\",\"protocol\":\"TCP\",\"src\":{}}"
            .getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(
            () -> topics.flows().valueSerde().deserializer().deserialize("flows", missingDst))
        .hasMessageContaining("dst");
    byte[] badPort =
        ("{\"time\":\"2026-03-01T10:15:30Z\",\"provider\":\"cilium\",\"protocol\":\"TCP\","
                + "\"dstPort\":70000,\"src\":{},\"dst\":{}}")
            .getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(
            () -> topics.flows().valueSerde().deserializer().deserialize("flows", badPort))
        .hasMessageContaining("dstPort out of range: 70000");
  }

  /**
   * Found by RecordSequenceFuzzingTest: a flow whose {@code dst.workloadKind} is "a/b/c/d/e" was
   * refused with Jackson's words only (a type and its values), which do not say which field to fix.
   */
  @Test
  void aRefusedRecordNamesThePathOfItsField() {
    byte[] badKind =
        ("{\"time\":\"2026-03-01T10:15:30Z\",\"provider\":\"cilium\",\"protocol\":\"TCP\","
                + "\"src\":{},\"dst\":{\"workloadKind\":\"a/b/c/d/e\"}}")
            .getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(
            () -> topics.flows().valueSerde().deserializer().deserialize("flows", badKind))
        .hasMessageContaining("not a valid FlowRecord at dst.workloadKind (");
    byte[] badRule =
        ("{\"name\":\"p\",\"namespace\":\"shop\",\"spec\":{\"targetRef\":{\"kind\":\"Deployment\","
                + "\"name\":\"api\"},\"direction\":\"Sideways\"}}")
            .getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(
            () -> topics.proposals().valueSerde().deserializer().deserialize("proposals", badRule))
        .hasMessageContaining("not a valid ProposalSnapshot at spec.direction (");
  }

  /**
   * Found by WriterRecordsFuzzingTest: a loss record whose from is after its to was refused with
   * "Cannot construct instance of `io.kubewarden...DataPlaneLoss`, problem: loss window ends (...)
   * before it starts (...)": a Java class name and neither field. The constructor's words now come
   * alone and name the fields; a missing required field says so.
   */
  @Test
  void aValueTheRecordRefusesIsExplainedInTheRecordsOwnWords() {
    byte[] reversed =
        ("{\"provider\":\"cilium\",\"from\":\"2026-08-03T15:41:00Z\",\"to\":\"2026-08-03T15:40:00Z\","
                + "\"lostEvents\":1,\"reports\":1}")
            .getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(
            () -> topics.dataPlaneLoss().valueSerde().deserializer().deserialize("loss", reversed))
        .hasMessage(
            "cannot read record of topic loss: not a valid DataPlaneLoss (loss window ends "
                + "(to 2026-08-03T15:40:00Z) before it starts (from 2026-08-03T15:41:00Z))");
    byte[] noTarget = "{\"type\":\"RESET_LEARNING\"}".getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(
            () -> topics.control().valueSerde().deserializer().deserialize("control", noTarget))
        .hasMessage(
            "cannot read record of topic control: not a valid ControlCommand (target is missing)");
  }
}
