package io.kubewarden.networkenforcer.common.crd;

import static io.kubewarden.networkenforcer.common.crd.TestManifests.CILIUM_SPEC;
import static io.kubewarden.networkenforcer.common.crd.TestManifests.ISTIO_SPEC;
import static io.kubewarden.networkenforcer.common.crd.TestManifests.KUBERNETES_SPEC;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceColumnDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.kubewarden.networkenforcer.common.crd.TestManifests.Kind;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.common.proposal.Convergence;
import io.kubewarden.networkenforcer.testing.CiliumCrds;
import io.kubewarden.networkenforcer.testing.KubeApiServer;
import io.kubewarden.networkenforcer.testing.ProjectCrds;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The CRDs against a real kube-apiserver: they install and become Established, every CEL rule of
 * the API contract rejects its bad case with its message, {@code mode} defaults to monitor, and the
 * printer columns are served.
 */
class ApiServerCrdTest {

  private static final String NAMESPACE = "default";
  private static KubeApiServer api;
  private static KubernetesClient client;

  @BeforeAll
  static void startApiServer() {
    api = KubeApiServer.builder().start();
    client = api.client();
    ProjectCrds.install(client, Duration.ofSeconds(60));
    CiliumCrds.installCiliumNetworkPolicy(client, Duration.ofSeconds(60));
  }

  @AfterAll
  static void stopApiServer() {
    if (api != null) {
      api.close();
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void crdIsEstablishedWithTheContractNames(Kind kind) {
    CustomResourceDefinition crd =
        client.apiextensions().v1().customResourceDefinitions().withName(kind.crdName()).get();

    assertThat(ProjectCrds.established(crd)).isTrue();
    assertThat(crd.getSpec().getScope()).isEqualTo("Namespaced");
    assertThat(crd.getSpec().getNames().getShortNames())
        .containsExactly(kind == Kind.WorkloadNetworkPolicy ? "wnp" : "wnpp");
    assertThat(crd.getMetadata().getAnnotations()).containsEntry("helm.sh/resource-policy", "keep");
    CustomResourceDefinitionVersion version = servedVersion(crd);
    assertThat(version.getSubresources().getStatus()).isNotNull();
  }

  @ParameterizedTest
  @MethodSource("validSpecs")
  void validSpecIsAdmitted(Kind kind, String spec) {
    String name = TestManifests.uniqueName("valid");

    GenericKubernetesResource created = create(kind, name, "", spec);

    assertThat(created.getMetadata().getUid()).isNotBlank();
    assertThat(spec(created)).containsKey("targetRef");
  }

  static Stream<Arguments> validSpecs() {
    return Stream.of(Kind.values())
        .flatMap(
            kind ->
                Stream.of(
                    Arguments.of(kind, KUBERNETES_SPEC),
                    Arguments.of(kind, ISTIO_SPEC),
                    Arguments.of(kind, CILIUM_SPEC),
                    Arguments.of(
                        kind,
                        ISTIO_SPEC.replace(
                            "ports: [\"8080\"]", "ports: [\"1\", \"443\", \"65535\"]"))));
  }

  @ParameterizedTest(name = "{0}: {1}")
  @MethodSource("celViolations")
  void celRuleRejectsItsBadCaseWithItsMessage(
      Kind kind, String violation, String spec, String message) {
    String name = TestManifests.uniqueName("invalid");

    assertThatThrownBy(() -> create(kind, name, "", spec))
        .isInstanceOfSatisfying(
            KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(422))
        .hasMessageContaining(message);
    assertThat(TestManifests.resources(client, kind, NAMESPACE).withName(name).get()).isNull();
  }

  static Stream<Arguments> celViolations() {
    String onePayload =
        "exactly one of spec.kubernetes, spec.istio or spec.cilium must be set, and it must match"
            + " spec.backend";
    String ciliumSelector =
        "spec.cilium.endpointSelector must have matchLabels or matchExpressions";
    String ciliumDirection = "spec.cilium may carry rules of spec.direction only";
    String podSelector = "spec.kubernetes.podSelector must have matchLabels or matchExpressions";
    String istioSelector = "spec.istio.selector must not be empty";
    String istioIngress =
        "the istio backend supports direction Ingress only (ztunnel enforces inbound traffic)";
    String policyTypes = "spec.kubernetes.policyTypes must be exactly [spec.direction]";
    List<Arguments> cases = new ArrayList<>();
    for (Kind kind : Kind.values()) {
      cases.add(
          Arguments.of(
              kind,
              "cilium backend with a kubernetes payload",
              KUBERNETES_SPEC.replace("backend: kubernetes", "backend: cilium"),
              onePayload));
      cases.add(
          Arguments.of(
              kind,
              "kubernetes backend with a cilium payload",
              CILIUM_SPEC.replace("backend: cilium", "backend: kubernetes"),
              onePayload));
      cases.add(
          Arguments.of(
              kind,
              "empty cilium endpointSelector",
              CILIUM_SPEC.replace(
                  "endpointSelector: {matchLabels: {app: web}}", "endpointSelector: {}"),
              ciliumSelector));
      cases.add(
          Arguments.of(
              kind,
              "cilium egress rules on an Ingress spec",
              CILIUM_SPEC.replace("direction: Egress", "direction: Ingress"),
              ciliumDirection));
      cases.add(
          Arguments.of(
              kind,
              "kubernetes backend with an istio payload",
              ISTIO_SPEC.replace("backend: istio", "backend: kubernetes"),
              onePayload));
      cases.add(
          Arguments.of(
              kind,
              "istio backend with a kubernetes payload",
              KUBERNETES_SPEC.replace("backend: kubernetes", "backend: istio"),
              onePayload));
      cases.add(
          Arguments.of(
              kind,
              "both payloads",
              KUBERNETES_SPEC + ISTIO_SPEC.substring(ISTIO_SPEC.indexOf("istio:\n")),
              onePayload));
      cases.add(
          Arguments.of(
              kind,
              "no payload",
              "backend: kubernetes\ndirection: Ingress\ntargetRef: {kind: Deployment, name: web}\n",
              onePayload));
      cases.add(
          Arguments.of(
              kind,
              "empty podSelector",
              KUBERNETES_SPEC.replace("podSelector: {matchLabels: {app: web}}", "podSelector: {}"),
              podSelector));
      cases.add(
          Arguments.of(
              kind,
              "podSelector with empty matchLabels",
              KUBERNETES_SPEC.replace(
                  "podSelector: {matchLabels: {app: web}}", "podSelector: {matchLabels: {}}"),
              podSelector));
      cases.add(
          Arguments.of(
              kind,
              "empty istio selector",
              ISTIO_SPEC.replace("selector: {matchLabels: {app: web}}", "selector: {}"),
              istioSelector));
      cases.add(
          Arguments.of(
              kind,
              "istio egress",
              ISTIO_SPEC.replace("direction: Ingress", "direction: Egress"),
              istioIngress));
      cases.add(
          Arguments.of(
              kind,
              "policyTypes other than the direction",
              KUBERNETES_SPEC.replace("direction: Ingress", "direction: Egress"),
              policyTypes));
      cases.add(
          Arguments.of(
              kind,
              "istio port range",
              ISTIO_SPEC.replace("ports: [\"8080\"]", "ports: [\"8080\", \"8000-9000\"]"),
              "operation.ports[1]: Invalid value: \"8000-9000\""));
      cases.add(
          Arguments.of(
              kind,
              "istio port name",
              ISTIO_SPEC.replace("ports: [\"8080\"]", "ports: [\"http\"]"),
              "operation.ports[0]: Invalid value: \"http\""));
      cases.add(
          Arguments.of(
              kind,
              "istio port 0",
              ISTIO_SPEC.replace("ports: [\"8080\"]", "ports: [\"0\"]"),
              "operation.ports[0]: Invalid value: \"0\""));
      cases.add(
          Arguments.of(
              kind,
              "istio port above 65535",
              ISTIO_SPEC.replace("ports: [\"8080\"]", "ports: [\"65536\"]"),
              "operation.ports[0]: Invalid value: \"65536\""));
      cases.add(
          Arguments.of(
              kind,
              "policyTypes with both directions",
              KUBERNETES_SPEC.replace("policyTypes: [Ingress]", "policyTypes: [Ingress, Egress]"),
              policyTypes));
    }
    return cases.stream();
  }

  /**
   * The cilium payload is a CiliumNetworkPolicy spec as it is: Cilium's own published CRD admits it
   * unchanged, and refuses what Cilium refuses (a DNS selector with both a name and a pattern).
   */
  @Test
  void ciliumPayloadIsAdmittedUnderCiliumsOwnSchema() throws Exception {
    CiliumPolicy payload =
        Json.yaml().readValue(CILIUM_SPEC, WorkloadNetworkPolicyProposalSpec.class).getCilium();
    @SuppressWarnings("unchecked")
    Map<String, Object> spec = Json.mapper().convertValue(payload, Map.class);

    GenericKubernetesResource created = createCnp(TestManifests.uniqueName("cnp"), spec);

    assertThat(created.getMetadata().getUid()).isNotBlank();
    assertThat(
            Json.mapper()
                .convertValue(created.getAdditionalProperties().get("spec"), CiliumPolicy.class))
        .isEqualTo(payload);

    payload.getEgress().get(0).getToFQDNs().get(0).setMatchPattern("*.example.com");
    @SuppressWarnings("unchecked")
    Map<String, Object> both = Json.mapper().convertValue(payload, Map.class);
    assertThatThrownBy(() -> createCnp(TestManifests.uniqueName("cnp"), both))
        .isInstanceOfSatisfying(
            KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(422))
        .hasMessageContaining("toFQDNs[0]");
  }

  /**
   * A port range a reviewer wrote ({@code endPort}, Cilium's own field) is kept by our CRDs (an
   * unknown field would be pruned, and the rendered CiliumNetworkPolicy would allow the first port
   * only) and admitted by Cilium's CRD as it is.
   */
  @ParameterizedTest
  @EnumSource(Kind.class)
  void aCiliumPortRangeIsKeptAndAdmittedByCilium(Kind kind) throws Exception {
    String ranged =
        CILIUM_SPEC.replace(
            "- ports: [{port: \"443\", protocol: TCP}]",
            "- ports: [{port: \"443\", protocol: TCP}, {port: \"8080\", endPort: 8089, protocol: TCP}]");
    assertThat(ranged).contains("endPort: 8089");
    GenericKubernetesResource stored = create(kind, TestManifests.uniqueName("range"), "", ranged);

    CiliumPolicy payload =
        Json.mapper()
            .convertValue(spec(stored), WorkloadNetworkPolicyProposalSpec.class)
            .getCilium();
    assertThat(payload.getEgress().get(0).getToPorts().get(0).getPorts())
        .extracting(p -> p.getPort() + "-" + p.getEndPort())
        .containsExactly("443-null", "8080-8089");

    @SuppressWarnings("unchecked")
    Map<String, Object> cnpSpec = Json.mapper().convertValue(payload, Map.class);
    GenericKubernetesResource cnp = createCnp(TestManifests.uniqueName("cnp"), cnpSpec);
    assertThat(
            Json.mapper()
                .convertValue(cnp.getAdditionalProperties().get("spec"), CiliumPolicy.class))
        .isEqualTo(payload);
  }

  private static GenericKubernetesResource createCnp(String name, Map<String, Object> spec) {
    GenericKubernetesResource cnp = new GenericKubernetesResource();
    cnp.setApiVersion("cilium.io/v2");
    cnp.setKind("CiliumNetworkPolicy");
    cnp.setMetadata(new ObjectMetaBuilder().withName(name).build());
    cnp.setAdditionalProperty("spec", spec);
    return client
        .genericKubernetesResources("cilium.io/v2", "CiliumNetworkPolicy")
        .inNamespace(NAMESPACE)
        .resource(cnp)
        .create();
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void backendIsImmutable(Kind kind) {
    String name = TestManifests.uniqueName("immutable");
    create(kind, name, "", KUBERNETES_SPEC);

    GenericKubernetesResource switched = TestManifests.object(client, kind, name, "", ISTIO_SPEC);

    assertThatThrownBy(
            () -> TestManifests.resources(client, kind, NAMESPACE).resource(switched).update())
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("spec.backend is immutable");
  }

  @Test
  void modeDefaultsToMonitor() {
    String name = TestManifests.uniqueName("default-mode");
    assertThat(KUBERNETES_SPEC).doesNotContain("mode:");

    GenericKubernetesResource created =
        create(Kind.WorkloadNetworkPolicy, name, "", KUBERNETES_SPEC);

    assertThat(spec(created)).containsEntry("mode", "monitor");
    assertThat(
            client
                .resources(WorkloadNetworkPolicy.class)
                .inNamespace(NAMESPACE)
                .withName(name)
                .get()
                .getSpec()
                .getMode())
        .hasToString("monitor");
  }

  @Test
  void modeAcceptsOnlyMonitorOrProtect() {
    String name = TestManifests.uniqueName("bad-mode");

    assertThatThrownBy(
            () -> create(Kind.WorkloadNetworkPolicy, name, "", KUBERNETES_SPEC + "mode: enforce\n"))
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("spec.mode");
  }

  @Test
  void printerColumnsAreDefined() {
    assertThat(columns(Kind.WorkloadNetworkPolicy))
        .containsExactly(
            "Mode=.spec.mode:string",
            "Active Violations=.status.activeViolationCount:integer",
            "Age=.metadata.creationTimestamp:date");
    assertThat(columns(Kind.WorkloadNetworkPolicyProposal))
        .containsExactly(
            "Backend=.spec.backend:string",
            "Direction=.spec.direction:string",
            "Target=.spec.targetRef.name:string",
            "Rules=.status.ruleCount:integer",
            "Converged=.status.conditions[?(@.type==\"Converged\")].status:string",
            "Age=.metadata.creationTimestamp:date");
  }

  /** {@code kubectl get wnpp} shows the Converged condition's status. */
  @Test
  void tableViewShowsTheConvergedColumn() throws Exception {
    String name = TestManifests.uniqueName("converged");
    create(Kind.WorkloadNetworkPolicyProposal, name, "", KUBERNETES_SPEC);
    WorkloadNetworkPolicyProposal stored =
        client
            .resources(WorkloadNetworkPolicyProposal.class)
            .inNamespace(NAMESPACE)
            .withName(name)
            .get();
    WorkloadNetworkPolicyProposalStatus status =
        new WorkloadNetworkPolicyProposalStatus(new ArrayList<>());
    status.setConditions(
        List.of(
            new Convergence(
                    true,
                    Instant.parse("2026-08-10T00:00:00Z"),
                    "QuietPeriodPassed",
                    "no new peer or port since 2026-08-03T00:00:00Z")
                .toCondition()));
    stored.setStatus(status);
    client.resource(stored).updateStatus();

    JsonNode table = table(Kind.WorkloadNetworkPolicyProposal, name);
    List<String> headers = new ArrayList<>();
    table.get("columnDefinitions").forEach(column -> headers.add(column.get("name").asText()));
    assertThat(headers).contains("Converged");
    assertThat(table.get("rows").get(0).get("cells").get(headers.indexOf("Converged")).asText())
        .isEqualTo("True");
  }

  @Test
  void tableViewShowsTheModeColumn() throws Exception {
    String name = TestManifests.uniqueName("table");
    create(Kind.WorkloadNetworkPolicy, name, "", KUBERNETES_SPEC + "mode: protect\n");

    JsonNode table = table(Kind.WorkloadNetworkPolicy, name);

    List<String> headers = new ArrayList<>();
    table.get("columnDefinitions").forEach(column -> headers.add(column.get("name").asText()));
    assertThat(headers).contains("Name", "Mode", "Active Violations", "Age");
    JsonNode cells = table.get("rows").get(0).get("cells");
    assertThat(cells.get(0).asText()).isEqualTo(name);
    assertThat(cells.get(headers.indexOf("Mode")).asText()).isEqualTo("protect");
  }

  private static JsonNode table(Kind kind, String name) throws Exception {
    HttpClient http = client.getHttpClient();
    String path =
        api.url()
            + "/apis/"
            + CrdConstants.API_VERSION
            + "/namespaces/"
            + NAMESPACE
            + "/"
            + kind.plural
            + "?fieldSelector=metadata.name%3D"
            + name;
    HttpResponse<String> response =
        http.sendAsync(
                http.newHttpRequestBuilder()
                    .uri(path)
                    .header("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
                    .build(),
                String.class)
            .get(30, TimeUnit.SECONDS);
    assertThat(response.code()).as(response.body()).isEqualTo(200);
    return Json.mapper().readTree(response.body());
  }

  private static List<String> columns(Kind kind) {
    CustomResourceDefinition crd =
        client.apiextensions().v1().customResourceDefinitions().withName(kind.crdName()).get();
    return servedVersion(crd).getAdditionalPrinterColumns().stream()
        .map(ApiServerCrdTest::describe)
        .toList();
  }

  private static String describe(CustomResourceColumnDefinition column) {
    return column.getName() + "=" + column.getJsonPath() + ":" + column.getType();
  }

  private static CustomResourceDefinitionVersion servedVersion(CustomResourceDefinition crd) {
    return crd.getSpec().getVersions().stream()
        .filter(v -> v.getName().equals(CrdConstants.VERSION))
        .findFirst()
        .orElseThrow();
  }

  private static GenericKubernetesResource create(
      Kind kind, String name, String metadata, String spec) {
    return TestManifests.resources(client, kind, NAMESPACE)
        .resource(TestManifests.object(client, kind, name, metadata, spec))
        .create();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> spec(GenericKubernetesResource resource) {
    return (Map<String, Object>) resource.getAdditionalProperties().get("spec");
  }
}
