package io.kubewarden.networkenforcer.chart;

import static io.kubewarden.networkenforcer.chart.HelmChart.values;
import static io.kubewarden.networkenforcer.chart.Manifests.container;
import static io.kubewarden.networkenforcer.chart.Manifests.elements;
import static io.kubewarden.networkenforcer.chart.Manifests.env;
import static io.kubewarden.networkenforcer.chart.Manifests.podSpec;
import static io.kubewarden.networkenforcer.chart.Manifests.texts;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * A values file written for the reference chart (every key of api.md "Helm values",
 * src/test/resources/chart/reference-values.yaml) installs as it is, and each key means what it
 * means there: the controller's image, env, security contexts, resources, scheduling, labels and
 * annotations reach every network-enforcer pod; the provider blocks reach the flow source.
 * (ChartOnApiServerTest runs the same renders through the API server's validation.)
 */
class ChartReferenceValuesTest {
  /** nameOverride netenf, release ne. */
  private static final String FULLNAME = "ne-netenf";

  private static Manifests render(String... overrides) {
    return HelmChart.render(HelmChart.referenceValues(), values(overrides));
  }

  @Test
  void theControllerKeysReachTheStandalonePod() {
    Manifests m = render();
    JsonNode standalone = m.get("StatefulSet", FULLNAME + "-standalone");
    JsonNode pod = podSpec(standalone);
    JsonNode main = container(standalone, "network-enforcer");

    assertThat(main.path("image").asText())
        .isEqualTo("registry.example.com/kubewarden/network-enforcer:v0.4.0");
    assertThat(main.path("imagePullPolicy").asText()).isEqualTo("Always");
    assertThat(elements(pod.path("imagePullSecrets")))
        .extracting(s -> s.path("name").asText())
        .containsExactly("registry-credentials");
    assertThat(env(main))
        .containsEntry("NE_LOG_LEVEL", "debug")
        .containsEntry("HTTPS_PROXY", "http://proxy.example:3128")
        .containsEntry("NO_PROXY", ".svc,.cluster.example")
        .containsEntry("NE_STATUS_SYNC_INTERVAL", "1m30s")
        .containsEntry("NE_FLOW_DUMPER_ENABLED", "true")
        .containsEntry("NE_FLOW_DUMPER_PORT", "9191")
        .containsEntry("NE_FLOW_DUMPER_BUFFER_SIZE", "5000");
    // The reference's runAsUser, merged over the chart's restricted defaults.
    assertThat(main.path("securityContext").path("runAsUser").asInt()).isEqualTo(1000);
    assertThat(main.path("securityContext").path("readOnlyRootFilesystem").asBoolean()).isTrue();
    assertThat(main.path("securityContext").path("allowPrivilegeEscalation").asBoolean(true))
        .isFalse();
    assertThat(pod.path("securityContext").path("runAsNonRoot").asBoolean()).isTrue();
    assertThat(pod.path("securityContext").path("seccompProfile").path("type").asText())
        .isEqualTo("RuntimeDefault");
    assertThat(main.path("resources").path("limits").path("memory").asText()).isEqualTo("3Gi");
    assertThat(main.path("resources").path("requests").path("cpu").asText()).isEqualTo("500m");
    assertThat(standalone.path("spec").path("replicas").asInt()).isEqualTo(1);

    JsonNode template = standalone.path("spec").path("template").path("metadata");
    assertThat(template.path("labels").path("team").asText()).isEqualTo("platform-security");
    assertThat(template.path("annotations").path("backup.example.com/exclude").asText())
        .isEqualTo("true");
    assertThat(pod.path("nodeSelector").path("node-role.example.com/security").asText())
        .isEqualTo("true");
    assertThat(elements(pod.path("tolerations")))
        .extracting(t -> t.path("key").asText())
        .containsExactly("dedicated");
    assertThat(
            texts(
                pod.path("affinity")
                    .path("nodeAffinity")
                    .path("requiredDuringSchedulingIgnoredDuringExecution")
                    .path("nodeSelectorTerms")
                    .get(0)
                    .path("matchExpressions")
                    .get(0)
                    .path("values")))
        .containsExactly("amd64", "arm64");
    assertThat(
            m.get("ServiceAccount", FULLNAME + "-standalone")
                .path("metadata")
                .path("annotations")
                .path("iam.example.com/role")
                .asText())
        .isEqualTo("network-enforcer");
    // The flow dumper port is the container's.
    assertThat(elements(main.path("ports")))
        .extracting(p -> p.path("containerPort").asInt())
        .contains(9191);
    // telemetry external: no collector of the chart's.
    assertThat(m.find("Deployment", FULLNAME + "-otel-collector")).isEmpty();
  }

  @Test
  void theCiliumBlockReachesTheFlowSource() {
    JsonNode main =
        container(render().get("StatefulSet", FULLNAME + "-standalone"), "network-enforcer");
    assertThat(env(main))
        .containsEntry("NE_PROVIDER", "cilium")
        .containsEntry("NE_HUBBLE_ENDPOINT", "hubble-relay.kube-system.svc:4245")
        .containsEntry("NE_PROVIDER_TLS_MODE", "existingSecret")
        .containsEntry("NE_PROVIDER_TLS_SECRET_NAMESPACE", "kube-system")
        .containsEntry("NE_PROVIDER_TLS_SECRET_NAME", "hubble-relay-client-certs")
        .containsEntry("NE_PROVIDER_TLS_CA_CONFIGMAP", "hubble-ca-bundle")
        .containsEntry("NE_PROVIDER_TLS_CA_CONFIGMAP_KEY", "ca.crt")
        .containsEntry("NE_PROVIDER_TLS_SERVER_NAME", "relay.hubble.example");
    // The cross-namespace Secret and its CA bundle: a Role there allows reading exactly those.
    JsonNode role = render().get("Role", FULLNAME + "-provider-tls");
    assertThat(role.path("metadata").path("namespace").asText()).isEqualTo("kube-system");
    assertThat(elements(role.path("rules")))
        .extracting(r -> texts(r.path("resourceNames")).get(0))
        .containsExactly("hubble-relay-client-certs", "hubble-ca-bundle");

    // insecure: the server name is dropped (plain text has none), as by the command line.
    JsonNode insecure =
        container(
            render("controller.provider.cilium.tls.mode", "insecure")
                .get("StatefulSet", FULLNAME + "-standalone"),
            "network-enforcer");
    assertThat(env(insecure))
        .containsEntry("NE_PROVIDER_TLS_MODE", "insecure")
        .doesNotContainKeys("NE_PROVIDER_TLS_SERVER_NAME", "NE_PROVIDER_TLS_SECRET_NAME");
  }

  @Test
  void theIstioBlockReachesTheReceiverAndFluentBit() {
    Manifests m = render("controller.provider.name", "istio");
    JsonNode standalone = m.get("StatefulSet", FULLNAME + "-standalone");
    JsonNode main = container(standalone, "network-enforcer");
    assertThat(env(main)).containsEntry("NE_OTLP_PORT", "4417");
    assertThat(
            m.get("Service", FULLNAME + "-istio-otlp")
                .path("spec")
                .path("ports")
                .get(0)
                .path("port")
                .asInt())
        .isEqualTo(4417);
    // issuerRef: both certificates come from that issuer; the server name is on the receiver's.
    Map<String, String> receiver = csi(standalone);
    assertThat(receiver)
        .containsEntry("csi.cert-manager.io/issuer-name", "mesh-issuer")
        .containsEntry("csi.cert-manager.io/issuer-kind", "ClusterIssuer")
        .containsEntry("csi.cert-manager.io/issuer-group", "cert-manager.io");
    assertThat(receiver.get("csi.cert-manager.io/dns-names"))
        .contains("logs.network-enforcer.example");
    JsonNode fluentBit = m.get("DaemonSet", FULLNAME + "-istio-fluent-bit");
    assertThat(csi(fluentBit))
        .containsEntry("csi.cert-manager.io/issuer-name", "mesh-issuer")
        .containsEntry("csi.cert-manager.io/issuer-kind", "ClusterIssuer")
        // fluent-bit's name is the one the receiver pins.
        .containsEntry(
            "csi.cert-manager.io/common-name", "fluent-bit.logs.network-enforcer.example");
    assertThat(env(main))
        .containsEntry("NE_OTLP_CLIENT_NAME", "fluent-bit.logs.network-enforcer.example");
    assertThat(container(fluentBit, "fluent-bit").path("image").asText())
        .isEqualTo("registry.example.com/fluent/fluent-bit:4.2.0");
    String config =
        m.get("ConfigMap", FULLNAME + "-fluent-bit").path("data").path("fluent-bit.conf").asText();
    assertThat(config)
        .containsPattern("tls.vhost\\s+logs.network-enforcer.example")
        .containsPattern("Port\\s+4417");
    // The chart CA is not needed when every certificate comes from the user's issuer and telemetry
    // is external.
    assertThat(m.ofKind("Issuer")).isEmpty();

    // existingSecret with the CA bundle in a ConfigMap: one projected volume with ca.crt from it.
    Manifests secret =
        render(
            "controller.provider.name",
            "istio",
            "controller.provider.istio.tls.mode",
            "existingSecret");
    for (JsonNode workload :
        List.of(
            secret.get("StatefulSet", FULLNAME + "-standalone"),
            secret.get("DaemonSet", FULLNAME + "-istio-fluent-bit"))) {
      JsonNode sources =
          Manifests.volume(workload, "provider-certs")
              .orElseThrow()
              .path("projected")
              .path("sources");
      assertThat(sources.get(0).path("secret").path("name").asText()).isEqualTo("ztunnel-logs-tls");
      assertThat(sources.get(1).path("configMap").path("name").asText())
          .isEqualTo("ztunnel-logs-ca");
      assertThat(sources.get(1).path("configMap").path("items").get(0).path("key").asText())
          .isEqualTo("bundle.pem");
      assertThat(sources.get(1).path("configMap").path("items").get(0).path("path").asText())
          .isEqualTo("ca.crt");
    }
  }

  @Test
  void theCalicoBlockReachesTheFlowSource() {
    JsonNode main =
        container(
            render("controller.provider.name", "calico")
                .get("StatefulSet", FULLNAME + "-standalone"),
            "network-enforcer");
    assertThat(env(main))
        .containsEntry("NE_GOLDMANE_ENDPOINT", "goldmane.calico-system.svc:7443")
        .containsEntry("NE_PROVIDER_TLS_SECRET_NAMESPACE", "calico-system")
        .containsEntry("NE_PROVIDER_TLS_CA_CONFIGMAP", "goldmane-ca-bundle")
        .containsEntry("NE_PROVIDER_TLS_CA_CONFIGMAP_KEY", "tigera-ca-bundle.crt");
  }

  @Test
  void distributedEveryComponentIsAControllerPodAndReplicasAreTheWritersCount() {
    Manifests m =
        render(
            "mode",
            "distributed",
            "kafka.bootstrapServers",
            "kafka:9092",
            "controller.replicas",
            "3");
    assertThat(m.get("Deployment", FULLNAME + "-writer").path("spec").path("replicas").asInt())
        .isEqualTo(3);
    for (JsonNode workload :
        List.of(
            m.get("Deployment", FULLNAME + "-ingest"),
            m.get("StatefulSet", FULLNAME + "-processor"),
            m.get("Deployment", FULLNAME + "-writer"))) {
      JsonNode main = podSpec(workload).path("containers").get(0);
      assertThat(main.path("image").asText())
          .isEqualTo("registry.example.com/kubewarden/network-enforcer:v0.4.0");
      assertThat(env(main)).containsEntry("HTTPS_PROXY", "http://proxy.example:3128");
      assertThat(main.path("resources").path("limits").path("memory").asText()).isEqualTo("3Gi");
      assertThat(
              workload
                  .path("spec")
                  .path("template")
                  .path("metadata")
                  .path("labels")
                  .path("team")
                  .asText())
          .isEqualTo("platform-security");
      assertThat(
              podSpec(workload)
                  .path("nodeSelector")
                  .path("node-role.example.com/security")
                  .asText())
          .isEqualTo("true");
    }
    for (String component : List.of("ingest", "processor", "writer")) {
      assertThat(
              m.get("ServiceAccount", FULLNAME + "-" + component)
                  .path("metadata")
                  .path("annotations")
                  .path("iam.example.com/role")
                  .asText())
          .isEqualTo("network-enforcer");
    }
  }

  @Test
  void theDefaultCollectorTakesItsImageAndResources() {
    Manifests m = render("telemetry.collectorStrategy", "default");
    JsonNode collector =
        container(m.get("Deployment", FULLNAME + "-otel-collector"), "otel-collector");
    assertThat(collector.path("image").asText())
        .isEqualTo("registry.example.com/otel/opentelemetry-collector-contrib:0.160.0");
    assertThat(collector.path("resources").path("limits").path("cpu").asText()).isEqualTo("250m");
  }

  @Test
  void aGoDurationIsAcceptedAndAnythingElseIsNot() {
    assertThat(HelmChart.template(values("controller.wnpStatusUpdateInterval", "1m30s")).ok())
        .isTrue();
    assertThat(HelmChart.template(values("controller.wnpStatusUpdateInterval", "1.5h")).ok())
        .isTrue();
    HelmChart.Result bad =
        HelmChart.template(values("controller.wnpStatusUpdateInterval", "90 seconds"));
    assertThat(bad.ok()).isFalse();
    assertThat(bad.stderr()).contains("wnpStatusUpdateInterval");
  }

  @Test
  void standaloneIsOnePodWhateverReplicasSay() {
    HelmChart.Result result =
        HelmChart.template(HelmChart.referenceValues(), values("controller.replicas", "2"));
    assertThat(result.ok()).isFalse();
    assertThat(result.stderr()).contains("controller.replicas=2 needs mode=distributed");
  }

  private static Map<String, String> csi(JsonNode workload) {
    JsonNode attributes =
        Manifests.volume(workload, "provider-certs")
            .orElseThrow()
            .path("csi")
            .path("volumeAttributes");
    Map<String, String> out = new TreeMap<>();
    attributes.properties().forEach(e -> out.put(e.getKey(), e.getValue().asText()));
    return out;
  }
}
