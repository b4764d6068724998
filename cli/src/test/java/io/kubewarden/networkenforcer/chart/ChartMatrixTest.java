package io.kubewarden.networkenforcer.chart;

import static io.kubewarden.networkenforcer.chart.HelmChart.FULLNAME;
import static io.kubewarden.networkenforcer.chart.HelmChart.NAMESPACE;
import static io.kubewarden.networkenforcer.chart.Manifests.container;
import static io.kubewarden.networkenforcer.chart.Manifests.elements;
import static io.kubewarden.networkenforcer.chart.Manifests.env;
import static io.kubewarden.networkenforcer.chart.Manifests.mounts;
import static io.kubewarden.networkenforcer.chart.Manifests.podSpec;
import static io.kubewarden.networkenforcer.chart.Manifests.texts;
import static io.kubewarden.networkenforcer.chart.Manifests.volume;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Renders every provider x TLS mode x collector strategy x mode that the rules allow and checks
 * what each component receives: its subcommand, env, mounts, certificates and companions.
 */
class ChartMatrixTest {
  private static final String CA_ISSUER = FULLNAME + "-ca";
  private static final String OTLP_SERVICE = FULLNAME + "-istio-otlp";

  static Stream<Combination> validCombinations() {
    return Combination.all().stream().filter(Combination::valid);
  }

  /** The pod that reads the flow source, and the one that writes to the API and sends events. */
  private record Pods(
      JsonNode flowSource,
      JsonNode flowSourceContainer,
      JsonNode eventSource,
      JsonNode eventSourceContainer) {}

  private static Pods pods(Manifests m, Combination c) {
    if (c.distributed()) {
      JsonNode ingest = m.get("Deployment", FULLNAME + "-ingest");
      JsonNode writer = m.get("Deployment", FULLNAME + "-writer");
      return new Pods(ingest, container(ingest, "ingest"), writer, container(writer, "writer"));
    }
    JsonNode standalone = m.get("StatefulSet", FULLNAME + "-standalone");
    JsonNode main = container(standalone, "network-enforcer");
    return new Pods(standalone, main, standalone, main);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("validCombinations")
  void componentsRunTheirSubcommand(Combination c) {
    Manifests m = HelmChart.render(c.values());
    if (c.distributed()) {
      JsonNode ingest = m.get("Deployment", FULLNAME + "-ingest");
      JsonNode processor = m.get("StatefulSet", FULLNAME + "-processor");
      JsonNode writer = m.get("Deployment", FULLNAME + "-writer");
      assertThat(texts(container(ingest, "ingest").path("args"))).containsExactly("ingest");
      assertThat(texts(container(processor, "processor").path("args")))
          .containsExactly("processor");
      assertThat(texts(container(writer, "writer").path("args"))).containsExactly("writer");
      assertThat(ingest.path("spec").path("replicas").asInt())
          .isEqualTo(c.provider().equals("istio") ? 2 : 1);
      assertThat(processor.path("spec").path("replicas").asInt()).isEqualTo(2);
      assertThat(writer.path("spec").path("replicas").asInt()).isEqualTo(2);
      assertThat(m.find("StatefulSet", FULLNAME + "-standalone")).isEmpty();

      for (JsonNode main :
          List.of(
              container(ingest, "ingest"),
              container(processor, "processor"),
              container(writer, "writer"))) {
        assertThat(env(main))
            .containsEntry("NE_KAFKA_BOOTSTRAP_SERVERS", Combination.BOOTSTRAP)
            .containsEntry("NE_KAFKA_REPLICATION_FACTOR", "3")
            .containsEntry("NE_KAFKA_TOPIC_PREFIX", "network-enforcer.")
            .containsEntry("NE_PROVIDER", c.provider());
      }
      Map<String, String> processorEnv = env(container(processor, "processor"));
      assertThat(processorEnv)
          .containsEntry("NE_NUM_STANDBY_REPLICAS", "1")
          .containsEntry("NE_PROCESSING_GUARANTEE", "exactly_once_v2")
          .containsEntry("NE_STATE_DIR", "/var/lib/network-enforcer/state")
          // Static membership: each StatefulSet pod's stable name is its group.instance.id.
          .containsEntry("NE_GROUP_INSTANCE_ID", "fieldRef:metadata.name")
          .doesNotContainKeys(
              "NE_PROVIDER_TLS_MODE",
              "OTEL_EXPORTER_OTLP_ENDPOINT",
              "NE_STATUS_SYNC_INTERVAL",
              // The backend follows the provider unless cilium.policyBackend says cilium.
              "NE_BACKEND");
      assertThat(mounts(container(processor, "processor")))
          .containsEntry("state", "/var/lib/network-enforcer/state");
      assertThat(elements(processor.path("spec").path("volumeClaimTemplates")))
          .extracting(v -> v.path("metadata").path("name").asText())
          .containsExactly("state");
      // Its token only reviews the tokens of management requests (managementAuth kubernetes, the
      // default).
      assertThat(podSpec(processor).path("automountServiceAccountToken").asBoolean(false)).isTrue();

      assertThat(env(container(writer, "writer")))
          .doesNotContainKey("NE_LEADER_ELECTION")
          .containsEntry("NE_LEASE_NAME", FULLNAME + "-writer")
          .containsEntry("NE_LEASE_NAMESPACE", NAMESPACE)
          .containsEntry("NE_STATUS_SYNC_INTERVAL", "30s")
          // Lost events hold Converged false for the processor's quiet period.
          .containsEntry("NE_CONVERGENCE_QUIET_PERIOD", "7d")
          .containsEntry("NE_POD_NAME", "fieldRef:metadata.name")
          // Static members: a leader restarted in its pod takes its partitions back at once.
          .containsEntry("NE_GROUP_INSTANCE_ID", "fieldRef:metadata.name")
          .doesNotContainKeys("NE_PROVIDER_TLS_MODE", "NE_NUM_STANDBY_REPLICAS");
      assertThat(env(container(ingest, "ingest")))
          .doesNotContainKeys(
              "OTEL_EXPORTER_OTLP_ENDPOINT",
              "NE_TELEMETRY_COLLECTOR_STRATEGY",
              "NE_STATUS_SYNC_INTERVAL",
              "NE_LEADER_ELECTION");

      // Replicas prefer different nodes.
      for (JsonNode workload : List.of(ingest, processor, writer)) {
        JsonNode term =
            podSpec(workload)
                .path("affinity")
                .path("podAntiAffinity")
                .path("preferredDuringSchedulingIgnoredDuringExecution")
                .get(0)
                .path("podAffinityTerm");
        assertThat(term.path("topologyKey").asText()).isEqualTo("kubernetes.io/hostname");
        assertThat(term.path("labelSelector").path("matchLabels"))
            .isEqualTo(workload.path("spec").path("selector").path("matchLabels"));
      }
      assertThat(m.ofKind("PodDisruptionBudget"))
          .extracting(p -> p.path("metadata").path("name").asText())
          .contains(FULLNAME + "-processor", FULLNAME + "-writer");
      assertThat(m.find("PodDisruptionBudget", FULLNAME + "-ingest"))
          .matches(
              p -> p.isPresent() == c.provider().equals("istio"),
              "an ingest PDB only with 2 replicas (istio)");
    } else {
      JsonNode standalone = m.get("StatefulSet", FULLNAME + "-standalone");
      JsonNode main = container(standalone, "network-enforcer");
      assertThat(texts(main.path("args"))).containsExactly("standalone");
      assertThat(standalone.path("spec").path("replicas").asInt()).isEqualTo(1);
      assertThat(env(main))
          .containsEntry("NE_DATA_DIR", "/var/lib/network-enforcer")
          .containsEntry("NE_KAFKA_REPLICATION_FACTOR", "1")
          .containsEntry("NE_NUM_STANDBY_REPLICAS", "0")
          // Static membership here too: a restart does not wait out the dead member's session.
          .containsEntry("NE_GROUP_INSTANCE_ID", "fieldRef:metadata.name")
          .doesNotContainKey("NE_LEADER_ELECTION")
          // The single writer still takes the Lease, and RBAC allows exactly this name.
          .containsEntry("NE_LEASE_NAME", FULLNAME + "-writer")
          .containsEntry("NE_LEASE_NAMESPACE", NAMESPACE)
          .containsEntry("NE_STATUS_SYNC_INTERVAL", "30s")
          .doesNotContainKey("NE_KAFKA_BOOTSTRAP_SERVERS");
      assertThat(mounts(main)).containsEntry("data", "/var/lib/network-enforcer");
      assertThat(elements(standalone.path("spec").path("volumeClaimTemplates")))
          .extracting(v -> v.path("metadata").path("name").asText())
          .containsExactly("data");
      assertThat(m.ofKind("Deployment"))
          .extracting(d -> d.path("metadata").path("name").asText())
          .doesNotContain(FULLNAME + "-ingest", FULLNAME + "-writer");
      assertThat(m.find("StatefulSet", FULLNAME + "-processor")).isEmpty();
    }
  }

  /** policyBackend cilium: the processor (or standalone) learns CiliumNetworkPolicies. */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"standalone", "distributed"})
  void theCiliumPolicyBackendIsGivenToWhatLearns(String mode) {
    Combination c = new Combination("cilium", "existingSecret", "none", mode);
    Map<String, String> values = c.values();
    values.put("controller.provider.cilium.policyBackend", "cilium");
    Manifests m = HelmChart.render(values);
    JsonNode learner =
        c.distributed()
            ? container(m.get("StatefulSet", FULLNAME + "-processor"), "processor")
            : container(m.get("StatefulSet", FULLNAME + "-standalone"), "network-enforcer");
    assertThat(env(learner))
        .containsEntry("NE_BACKEND", "cilium")
        .doesNotContainKey("NE_CILIUM_ENTITIES");
    if (c.distributed()) {
      assertThat(env(container(m.get("Deployment", FULLNAME + "-writer"), "writer")))
          .doesNotContainKey("NE_BACKEND");
    }
  }

  /** Entities are a rule of the cilium backend: set only with it, whatever the value says. */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"standalone", "distributed"})
  void ciliumEntitiesAreGivenOnlyWithTheCiliumPolicyBackend(String mode) {
    Combination c = new Combination("cilium", "existingSecret", "none", mode);
    Map<String, String> values = c.values();
    values.put("controller.provider.cilium.entities", "true");
    String learnerName = FULLNAME + (c.distributed() ? "-processor" : "-standalone");
    String learnerContainer = c.distributed() ? "processor" : "network-enforcer";
    assertThat(
            env(
                container(
                    HelmChart.render(values).get("StatefulSet", learnerName), learnerContainer)))
        .doesNotContainKey("NE_CILIUM_ENTITIES");

    values.put("controller.provider.cilium.policyBackend", "cilium");
    assertThat(
            env(
                container(
                    HelmChart.render(values).get("StatefulSet", learnerName), learnerContainer)))
        .containsEntry("NE_CILIUM_ENTITIES", "true");
  }

  /**
   * L7 HTTP rules are rules of the cilium backend: set only with it and the value, off by default.
   */
  @Test
  void l7HttpLearningIsGivenOnlyWithTheCiliumPolicyBackendAndTheValue() {
    Combination c = new Combination("cilium", "existingSecret", "none", "distributed");
    Map<String, String> values = c.values();
    values.put("controller.provider.cilium.policyBackend", "cilium");
    String processor = FULLNAME + "-processor";
    assertThat(env(container(HelmChart.render(values).get("StatefulSet", processor), "processor")))
        .doesNotContainKey("NE_LEARN_L7_HTTP");
    values.put("processor.learning.l7Http", "true");
    assertThat(env(container(HelmChart.render(values).get("StatefulSet", processor), "processor")))
        .containsEntry("NE_LEARN_L7_HTTP", "true");
    values.put("controller.provider.cilium.policyBackend", "kubernetes");
    assertThat(env(container(HelmChart.render(values).get("StatefulSet", processor), "processor")))
        .doesNotContainKey("NE_LEARN_L7_HTTP");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("validCombinations")
  void flowSourceGetsProviderEndpointAndCertificates(Combination c) {
    Manifests m = HelmChart.render(c.values());
    Pods pods = pods(m, c);
    Map<String, String> env = env(pods.flowSourceContainer());
    assertThat(env)
        .containsEntry("NE_PROVIDER", c.provider())
        // certificate is the command's issuer mode: a certificate issued for ingest, mounted.
        .containsEntry(
            "NE_PROVIDER_TLS_MODE", c.tlsMode().equals("certificate") ? "issuer" : c.tlsMode())
        .containsEntry("NE_FLOW_DUMPER_ENABLED", "false");
    switch (c.provider()) {
      case "istio" -> {
        assertThat(env).containsEntry("NE_OTLP_PORT", "4317");
        // Only fluent-bit's certificate name: the one the chart's issuer gives it, or the Secret's.
        switch (c.tlsMode()) {
          case "issuer" ->
              assertThat(env).containsEntry("NE_OTLP_CLIENT_NAME", "fluent-bit." + NAMESPACE);
          case "existingSecret" ->
              assertThat(env).containsEntry("NE_OTLP_CLIENT_NAME", Combination.ISTIO_CLIENT);
          default -> assertThat(env).doesNotContainKey("NE_OTLP_CLIENT_NAME");
        }
        assertThat(elements(pods.flowSourceContainer().path("ports")))
            .anyMatch(
                p ->
                    p.path("name").asText().equals("otlp")
                        && p.path("containerPort").asInt() == 4317);
        JsonNode service = m.get("Service", OTLP_SERVICE);
        assertThat(service.path("spec").path("ports").get(0).path("port").asInt()).isEqualTo(4317);
        assertThat(service.path("spec").path("ports").get(0).path("targetPort").asText())
            .isEqualTo("otlp");
        assertThat(
                service.path("spec").path("selector").path("app.kubernetes.io/component").asText())
            .isEqualTo(c.distributed() ? "ingest" : "standalone");
      }
      case "cilium" -> {
        boolean insecure = c.tlsMode().equals("insecure");
        // api.md: insecure moves the default port 443 to 80 and clears the server name.
        assertThat(env)
            .containsEntry(
                "NE_HUBBLE_ENDPOINT",
                insecure ? "hubble-relay.kube-system.svc:80" : "hubble-relay.kube-system.svc:443");
        if (insecure) {
          assertThat(env).doesNotContainKey("NE_PROVIDER_TLS_SERVER_NAME");
        } else {
          assertThat(env).containsEntry("NE_PROVIDER_TLS_SERVER_NAME", "ui.hubble-relay.cilium.io");
        }
        assertThat(m.find("Service", OTLP_SERVICE)).isEmpty();
      }
      default -> {
        assertThat(env).containsEntry("NE_GOLDMANE_ENDPOINT", "goldmane.calico-system.svc:7443");
        assertThat(m.find("Service", OTLP_SERVICE)).isEmpty();
      }
    }

    Map<String, String> mounts = mounts(pods.flowSourceContainer());
    JsonNode certVolume = volume(pods.flowSource(), "provider-certs").orElse(null);
    switch (c.tlsMode()) {
      case "issuer" -> {
        assertThat(mounts).containsEntry("provider-certs", "/etc/provider/certs");
        assertThat(env).containsEntry("NE_PROVIDER_TLS_CERT_DIR", "/etc/provider/certs");
        JsonNode attributes = certVolume.path("csi").path("volumeAttributes");
        assertThat(certVolume.path("csi").path("driver").asText()).isEqualTo("csi.cert-manager.io");
        assertThat(attributes.path("csi.cert-manager.io/issuer-name").asText())
            .isEqualTo(CA_ISSUER);
        String usages = attributes.path("csi.cert-manager.io/key-usages").asText();
        if (c.provider().equals("istio")) {
          // The receiver is the TLS server fluent-bit dials by the Service name.
          assertThat(usages).contains("server auth");
          assertThat(attributes.path("csi.cert-manager.io/dns-names").asText())
              .contains(OTLP_SERVICE + "." + NAMESPACE + ".svc.cluster.local");
        } else {
          assertThat(usages).contains("client auth");
        }
        if (c.provider().equals("cilium")) {
          assertThat(attributes.path("csi.cert-manager.io/dns-names").asText())
              .isEqualTo("network-enforcer.hubble-relay.cilium.io");
        }
      }
      case "certificate" -> {
        // Ingest's own: the Secret of the chart's Certificate, from the named issuer.
        String name = FULLNAME + "-" + c.provider() + "-client";
        assertThat(certVolume.path("secret").path("secretName").asText()).isEqualTo(name);
        assertThat(mounts).containsEntry("provider-certs", "/etc/provider/certs");
        assertThat(env)
            .containsEntry("NE_PROVIDER_TLS_CERT_DIR", "/etc/provider/certs")
            .doesNotContainKey("NE_PROVIDER_TLS_SECRET_NAME");
        JsonNode certificate = m.get("Certificate", name).path("spec");
        assertThat(certificate.path("secretName").asText()).isEqualTo(name);
        assertThat(certificate.path("issuerRef").path("name").asText())
            .isEqualTo(Combination.PROVIDER_ISSUER);
        assertThat(texts(certificate.path("usages"))).contains("client auth");
      }
      case "existingSecret" -> {
        if (c.provider().equals("istio")) {
          assertThat(certVolume.path("secret").path("secretName").asText())
              .isEqualTo(Combination.ISTIO_SECRET);
          assertThat(mounts).containsEntry("provider-certs", "/etc/provider/certs");
          assertThat(env).containsEntry("NE_PROVIDER_TLS_CERT_DIR", "/etc/provider/certs");
        } else {
          // The defaults point into the provider's namespace: read through the API, never mounted.
          assertThat(certVolume).isNull();
          assertThat(mounts).doesNotContainKey("provider-certs");
          assertThat(env).doesNotContainKey("NE_PROVIDER_TLS_CERT_DIR");
          if (c.provider().equals("cilium")) {
            assertThat(env)
                .containsEntry("NE_PROVIDER_TLS_SECRET_NAMESPACE", "kube-system")
                .containsEntry("NE_PROVIDER_TLS_SECRET_NAME", "hubble-relay-client-certs")
                .doesNotContainKey("NE_PROVIDER_TLS_CA_CONFIGMAP");
          } else {
            assertThat(env)
                .containsEntry("NE_PROVIDER_TLS_SECRET_NAMESPACE", "calico-system")
                .containsEntry("NE_PROVIDER_TLS_SECRET_NAME", "goldmane-key-pair")
                .containsEntry("NE_PROVIDER_TLS_CA_CONFIGMAP", "goldmane-ca-bundle")
                .containsEntry("NE_PROVIDER_TLS_CA_CONFIGMAP_KEY", "tigera-ca-bundle.crt");
          }
        }
      }
      default -> {
        assertThat(certVolume).isNull();
        assertThat(env)
            .doesNotContainKeys("NE_PROVIDER_TLS_CERT_DIR", "NE_PROVIDER_TLS_SECRET_NAME");
      }
    }

    // The cross-namespace Role exists exactly when the Secret is read from the provider's
    // namespace.
    boolean crossNamespace = c.tlsMode().equals("existingSecret") && !c.provider().equals("istio");
    assertThat(m.find("Role", FULLNAME + "-provider-tls"))
        .matches(
            r -> r.isPresent() == crossNamespace,
            "provider-tls Role only for a cross-namespace Secret");
    if (crossNamespace) {
      assertThat(
              m.get("Role", FULLNAME + "-provider-tls").path("metadata").path("namespace").asText())
          .isEqualTo(c.provider().equals("cilium") ? "kube-system" : "calico-system");
    }

    // Only the flow source ever sees provider TLS material.
    for (JsonNode workload : m.workloads()) {
      if (workload == pods.flowSource() || workload.path("kind").asText().equals("DaemonSet")) {
        continue;
      }
      for (JsonNode container : elements(podSpec(workload).path("containers"))) {
        assertThat(mounts(container)).doesNotContainKey("provider-certs");
        assertThat(env(container).keySet()).noneMatch(k -> k.startsWith("NE_PROVIDER_TLS"));
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("validCombinations")
  void fluentBitRunsOnlyForIstioWithTheHopsTls(Combination c) {
    Manifests m = HelmChart.render(c.values());
    String name = FULLNAME + "-istio-fluent-bit";
    if (!c.provider().equals("istio")) {
      assertThat(m.find("DaemonSet", name)).isEmpty();
      assertThat(m.find("ConfigMap", FULLNAME + "-fluent-bit")).isEmpty();
      return;
    }
    JsonNode daemonSet = m.get("DaemonSet", name);
    FluentBitConfig config =
        FluentBitConfig.parse(
            m.get("ConfigMap", FULLNAME + "-fluent-bit")
                .path("data")
                .path("fluent-bit.conf")
                .asText());
    Map<String, List<String>> output = config.section("OUTPUT");
    assertThat(output.get("Host"))
        .containsExactly(OTLP_SERVICE + "." + NAMESPACE + ".svc.cluster.local");
    assertThat(output.get("Port")).containsExactly("4317");
    assertThat(output.get("grpc")).containsExactly("on");
    JsonNode fluentBit = container(daemonSet, "fluent-bit");
    JsonNode certs = volume(daemonSet, "provider-certs").orElse(null);
    switch (c.tlsMode()) {
      case "insecure" -> {
        assertThat(output.get("tls")).containsExactly("off");
        assertThat(certs).isNull();
      }
      case "issuer" -> {
        assertThat(output.get("tls")).containsExactly("on");
        assertThat(output.get("tls.verify")).containsExactly("on");
        assertThat(
                certs
                    .path("csi")
                    .path("volumeAttributes")
                    .path("csi.cert-manager.io/issuer-name")
                    .asText())
            .isEqualTo(CA_ISSUER);
        assertThat(
                certs
                    .path("csi")
                    .path("volumeAttributes")
                    .path("csi.cert-manager.io/key-usages")
                    .asText())
            .contains("client auth");
        assertThat(mounts(fluentBit)).containsEntry("provider-certs", "/etc/provider/certs");
        // fluent-bit's certificate carries the name the receiver pins (NE_OTLP_CLIENT_NAME).
        assertThat(
                certs
                    .path("csi")
                    .path("volumeAttributes")
                    .path("csi.cert-manager.io/common-name")
                    .asText())
            .isEqualTo(env(pods(m, c).flowSourceContainer()).get("NE_OTLP_CLIENT_NAME"))
            .isEqualTo("fluent-bit." + NAMESPACE);
      }
      default -> {
        assertThat(output.get("tls")).containsExactly("on");
        assertThat(certs.path("secret").path("secretName").asText())
            .isEqualTo(Combination.ISTIO_SECRET);
        assertThat(mounts(fluentBit)).containsEntry("provider-certs", "/etc/provider/certs");
      }
    }
    if (!c.tlsMode().equals("insecure")) {
      assertThat(output.get("tls.ca_file")).containsExactly("/etc/provider/certs/ca.crt");
      assertThat(output.get("tls.crt_file")).containsExactly("/etc/provider/certs/tls.crt");
      assertThat(output.get("tls.key_file")).containsExactly("/etc/provider/certs/tls.key");
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("validCombinations")
  void eventsGoWhereTheCollectorStrategySays(Combination c) {
    Manifests m = HelmChart.render(c.values());
    Pods pods = pods(m, c);
    Map<String, String> env = env(pods.eventSourceContainer());
    Map<String, String> mounts = mounts(pods.eventSourceContainer());
    String collector = FULLNAME + "-otel-collector";
    assertThat(env).containsEntry("NE_TELEMETRY_COLLECTOR_STRATEGY", c.collector());
    switch (c.collector()) {
      case "default" -> {
        assertThat(env)
            .containsEntry(
                "OTEL_EXPORTER_OTLP_ENDPOINT",
                "https://" + collector + "." + NAMESPACE + ".svc.cluster.local:4317")
            .containsEntry("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
            .containsEntry(
                "OTEL_EXPORTER_OTLP_CERTIFICATE", "/etc/network-enforcer/otel/certs/ca.crt")
            .containsEntry(
                "OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE", "/etc/network-enforcer/otel/certs/tls.crt")
            .containsEntry(
                "OTEL_EXPORTER_OTLP_CLIENT_KEY", "/etc/network-enforcer/otel/certs/tls.key");
        assertThat(mounts).containsEntry("otel-certs", "/etc/network-enforcer/otel/certs");
        assertThat(
                volume(pods.eventSource(), "otel-certs")
                    .orElseThrow()
                    .path("csi")
                    .path("volumeAttributes")
                    .path("csi.cert-manager.io/issuer-name")
                    .asText())
            .isEqualTo(CA_ISSUER);
        assertThat(m.find("Deployment", collector)).isPresent();
        assertThat(m.find("Service", collector)).isPresent();
        assertThat(m.find("ConfigMap", collector)).isPresent();
      }
      case "external" -> {
        assertThat(env)
            .containsEntry("OTEL_EXPORTER_OTLP_ENDPOINT", Combination.EXTERNAL_COLLECTOR)
            .containsEntry("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
            .containsEntry("OTEL_EXPORTER_OTLP_CERTIFICATE", "/etc/network-enforcer/otel/ca/ca.crt")
            .doesNotContainKeys(
                "OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE", "OTEL_EXPORTER_OTLP_INSECURE");
        assertThat(
                volume(pods.eventSource(), "otel-ca")
                    .orElseThrow()
                    .path("secret")
                    .path("secretName")
                    .asText())
            .isEqualTo("otel-ca");
        assertThat(m.find("Deployment", collector)).isEmpty();
      }
      default -> {
        assertThat(env.keySet()).noneMatch(k -> k.startsWith("OTEL_EXPORTER_OTLP_"));
        assertThat(mounts.keySet()).noneMatch(k -> k.startsWith("otel"));
        assertThat(m.find("Deployment", collector)).isEmpty();
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("validCombinations")
  void caChainExistsExactlyWhenACertificateIsIssued(Combination c) {
    Manifests m = HelmChart.render(c.values());
    boolean needed = c.collector().equals("default") || c.tlsMode().equals("issuer");
    assertThat(m.find("Issuer", CA_ISSUER))
        .matches(i -> i.isPresent() == needed, "CA issuer iff needed");
    assertThat(m.find("Issuer", FULLNAME + "-selfsigned"))
        .matches(i -> i.isPresent() == needed, "self-signed issuer iff needed");
    if (needed) {
      JsonNode ca = m.get("Certificate", CA_ISSUER);
      assertThat(ca.path("spec").path("isCA").asBoolean()).isTrue();
      assertThat(ca.path("spec").path("issuerRef").path("name").asText())
          .isEqualTo(FULLNAME + "-selfsigned");
      assertThat(m.get("Issuer", CA_ISSUER).path("spec").path("ca").path("secretName").asText())
          .isEqualTo(ca.path("spec").path("secretName").asText());
    }
    // Every CSI certificate names an Issuer this release renders.
    Set<String> issuers = new HashSet<>();
    m.ofKind("Issuer").forEach(i -> issuers.add(i.path("metadata").path("name").asText()));
    for (JsonNode workload : m.workloads()) {
      for (JsonNode volume : elements(podSpec(workload).path("volumes"))) {
        if (volume.has("csi")) {
          assertThat(issuers)
              .contains(
                  volume
                      .path("csi")
                      .path("volumeAttributes")
                      .path("csi.cert-manager.io/issuer-name")
                      .asText());
        }
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("validCombinations")
  void podsFollowTheRestrictedProfileAndExposeProbes(Combination c) {
    Manifests m = HelmChart.render(c.values());
    Set<String> serviceAccounts = new HashSet<>();
    m.ofKind("ServiceAccount")
        .forEach(sa -> serviceAccounts.add(sa.path("metadata").path("name").asText()));
    for (JsonNode workload : m.workloads()) {
      JsonNode pod = podSpec(workload);
      String name = workload.path("metadata").path("name").asText();
      assertThat(serviceAccounts)
          .as("service account of %s", name)
          .contains(pod.path("serviceAccountName").asText());
      assertThat(pod.path("securityContext").path("seccompProfile").path("type").asText())
          .isEqualTo("RuntimeDefault");
      boolean fluentBit = workload.path("kind").asText().equals("DaemonSet");
      if (!fluentBit) {
        assertThat(pod.path("securityContext").path("runAsNonRoot").asBoolean()).as(name).isTrue();
      }
      Set<String> volumes = new HashSet<>();
      elements(pod.path("volumes")).forEach(v -> volumes.add(v.path("name").asText()));
      elements(workload.path("spec").path("volumeClaimTemplates"))
          .forEach(v -> volumes.add(v.path("metadata").path("name").asText()));
      for (JsonNode container : elements(pod.path("containers"))) {
        JsonNode security = container.path("securityContext");
        assertThat(security.path("allowPrivilegeEscalation").asBoolean(true)).as(name).isFalse();
        assertThat(security.path("readOnlyRootFilesystem").asBoolean()).as(name).isTrue();
        assertThat(texts(security.path("capabilities").path("drop")))
            .as(name)
            .containsExactly("ALL");
        assertThat(container.path("resources").path("requests").path("memory").asText())
            .as(name)
            .isNotEmpty();
        assertThat(volumes).as("volumes of %s", name).containsAll(mounts(container).keySet());
        if (texts(container.path("args")).stream()
            .anyMatch(List.of("standalone", "ingest", "processor", "writer")::contains)) {
          assertThat(container.path("readinessProbe").path("httpGet").path("path").asText())
              .isEqualTo("/readyz");
          assertThat(container.path("livenessProbe").path("httpGet").path("path").asText())
              .isEqualTo("/healthz");
          // The probes on a port of their own, open; /metrics behind Kubernetes authentication.
          for (String probe : List.of("readinessProbe", "livenessProbe", "startupProbe")) {
            assertThat(container.path(probe).path("httpGet").path("port").asText())
                .as(probe)
                .isEqualTo("probes");
          }
          assertThat(elements(container.path("ports")))
              .anyMatch(
                  p ->
                      p.path("name").asText().equals("management")
                          && p.path("containerPort").asInt() == 8080);
          assertThat(elements(container.path("ports")))
              .anyMatch(
                  p ->
                      p.path("name").asText().equals("probes")
                          && p.path("containerPort").asInt() == 8081);
          assertThat(env(container))
              .containsEntry("NE_MANAGEMENT_PORT", "8080")
              .containsEntry("NE_PROBE_PORT", "8081")
              .containsEntry("NE_MANAGEMENT_AUTH", "kubernetes");
          assertThat(mounts(container)).containsEntry("tmp", "/tmp");
        }
      }
    }
    if (c.provider().equals("istio")) {
      JsonNode varlog =
          volume(m.get("DaemonSet", FULLNAME + "-istio-fluent-bit"), "varlog").orElseThrow();
      assertThat(varlog.path("hostPath").path("path").asText()).isEqualTo("/var/log");
    }
  }
}
