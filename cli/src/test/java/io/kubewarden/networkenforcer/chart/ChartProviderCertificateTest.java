package io.kubewarden.networkenforcer.chart;

import static io.kubewarden.networkenforcer.chart.HelmChart.FULLNAME;
import static io.kubewarden.networkenforcer.chart.HelmChart.NAMESPACE;
import static io.kubewarden.networkenforcer.chart.HelmChart.values;
import static io.kubewarden.networkenforcer.chart.Manifests.container;
import static io.kubewarden.networkenforcer.chart.Manifests.env;
import static io.kubewarden.networkenforcer.chart.Manifests.mounts;
import static io.kubewarden.networkenforcer.chart.Manifests.texts;
import static io.kubewarden.networkenforcer.chart.Manifests.volume;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.kubewarden.networkenforcer.cli.CliRun;
import io.kubewarden.networkenforcer.cli.compose.HubbleRelayStandIn;
import io.kubewarden.networkenforcer.cli.compose.SampleCluster;
import io.kubewarden.networkenforcer.cli.services.ServiceRunner;
import io.kubewarden.networkenforcer.common.tls.PemKeys;
import io.kubewarden.networkenforcer.embedded.EmbeddedKafkaBroker;
import io.kubewarden.networkenforcer.ingest.proto.hubble.observer.GetFlowsRequest;
import io.kubewarden.networkenforcer.ingest.proto.hubble.observer.ObserverGrpc;
import io.kubewarden.networkenforcer.ingest.transport.GrpcChannels;
import io.kubewarden.networkenforcer.ingest.transport.Keepalive;
import io.kubewarden.networkenforcer.ingest.transport.ReloadingTls;
import io.kubewarden.networkenforcer.ingest.transport.TlsMode;
import io.kubewarden.networkenforcer.ingest.transport.TlsSettings;
import io.kubewarden.networkenforcer.testing.KubeApiServer;
import io.kubewarden.networkenforcer.testing.KubeTools;
import io.kubewarden.networkenforcer.testing.LoopbackPorts;
import io.kubewarden.networkenforcer.testing.ProjectCrds;
import io.kubewarden.networkenforcer.testing.TestCertificates;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Own identities (issue 35, goal 5): with {@code tls.mode=certificate} cert-manager issues ingest a
 * client certificate of its own from an issuer the provider trusts, and ingest mounts it instead of
 * the data plane's Secret. Rendered for Cilium and Calico in both modes; on a real API server with
 * cert-manager's released CRDs (the Certificate passes their schema) and the chart's RBAC (ingest
 * may read no provider Secret); and through a real mutual TLS handshake: the {@code ingest} command
 * with the chart's environment streams from a Hubble Relay stand-in that trusts only the issuer's
 * CA, while a certificate of another CA, or none, is refused by the relay.
 */
class ChartProviderCertificateTest {
  private static final String ISSUER = "hubble-ca";
  private static final String POD_CERT_DIR = "/etc/provider/certs";
  private static final Set<String> NOT_SERVED = Set.of("kafka.strimzi.io", "monitoring.coreos.com");
  private static final ResourceDefinitionContext CERTIFICATE =
      new ResourceDefinitionContext.Builder()
          .withGroup("cert-manager.io")
          .withVersion("v1")
          .withKind("Certificate")
          .withPlural("certificates")
          .withNamespaced(true)
          .build();

  @TempDir static Path dir;

  private static KubeApiServer api;
  private static EmbeddedKafkaBroker broker;
  private static HubbleRelayStandIn relay;
  private static CompletableFuture<CliRun> ingest;

  @AfterAll
  static void stop() throws Exception {
    ServiceRunner.stopAll();
    if (ingest != null) {
      CliRun result = ingest.get(2, TimeUnit.MINUTES);
      assertThat(result.exitCode()).as(result.err()).isZero();
    }
    if (relay != null) {
      relay.close();
    }
    if (broker != null) {
      broker.close();
    }
    if (api != null) {
      api.close();
    }
  }

  private static Map<String, String> certificateMode(String provider, String mode) {
    Map<String, String> values =
        values(
            "controller.provider.name",
            provider,
            "controller.provider." + provider + ".tls.mode",
            "certificate",
            "controller.provider." + provider + ".tls.issuerRef.name",
            ISSUER,
            "controller.provider." + provider + ".tls.issuerRef.kind",
            "ClusterIssuer",
            "mode",
            mode);
    if (mode.equals("distributed")) {
      values.put("kafka.bootstrapServers", "kafka:9093");
    }
    return values;
  }

  @Test
  void ingestMountsItsOwnCertificateFromTheNamedIssuerInsteadOfTheBorrowedSecret() {
    int checked = 0;
    for (String provider : List.of("cilium", "calico")) {
      for (String mode : List.of("standalone", "distributed")) {
        String component = mode.equals("distributed") ? "ingest" : "standalone";
        Manifests m = HelmChart.render(certificateMode(provider, mode));
        String name = FULLNAME + "-" + provider + "-client";
        JsonNode spec = m.get("Certificate", name).path("spec");
        assertThat(spec.path("issuerRef").path("name").asText()).isEqualTo(ISSUER);
        assertThat(spec.path("issuerRef").path("kind").asText()).isEqualTo("ClusterIssuer");
        assertThat(spec.path("issuerRef").path("group").asText()).isEqualTo("cert-manager.io");
        assertThat(texts(spec.path("usages"))).contains("client auth");
        // RSA with cert-manager's default encoding (PKCS#1): no encoding is asked for.
        assertThat(spec.path("privateKey").path("algorithm").asText()).isEqualTo("RSA");
        assertThat(spec.path("privateKey").has("encoding")).isFalse();
        assertThat(spec.path("secretName").asText()).isEqualTo(name);

        String kind = component.equals("ingest") ? "Deployment" : "StatefulSet";
        JsonNode workload = m.get(kind, FULLNAME + "-" + component);
        // The Secret carries the reading pod's selector labels: the release's label query finds it
        // after an uninstall, when cert-manager keeps it.
        assertThat(spec.path("secretTemplate").path("labels"))
            .isEqualTo(workload.path("spec").path("selector").path("matchLabels"));
        assertThat(volume(workload, "provider-certs").orElseThrow().path("secret"))
            .hasToString("{\"secretName\":\"" + name + "\"}");
        JsonNode container =
            container(workload, component.equals("ingest") ? "ingest" : "network-enforcer");
        assertThat(mounts(container)).containsEntry("provider-certs", POD_CERT_DIR);
        Map<String, String> env = env(container);
        assertThat(env)
            .containsEntry("NE_PROVIDER_TLS_CERT_DIR", POD_CERT_DIR)
            .containsEntry("NE_PROVIDER_TLS_MODE", "issuer")
            .doesNotContainKeys("NE_PROVIDER_TLS_SECRET_NAME", "NE_PROVIDER_TLS_CA_CONFIGMAP");
        // Nothing of the provider's namespace is read any more.
        assertThat(m.find("Role", FULLNAME + "-provider-tls")).isEmpty();
        checked++;
      }
    }
    assertThat(checked).isEqualTo(4);
  }

  @Test
  void theDefaultsStillBorrowTheProvidersSecret() {
    for (String provider : List.of("cilium", "calico")) {
      Manifests m = HelmChart.render(values("controller.provider.name", provider));
      assertThat(m.find("Certificate", FULLNAME + "-" + provider + "-client")).isEmpty();
      assertThat(env(container(m.get("StatefulSet", FULLNAME + "-standalone"), "network-enforcer")))
          .containsEntry(
              "NE_PROVIDER_TLS_SECRET_NAME",
              provider.equals("cilium") ? "hubble-relay-client-certs" : "goldmane-key-pair");
      assertThat(m.find("Role", FULLNAME + "-provider-tls")).isPresent();
    }
  }

  @Test
  void certificateModeNeedsAnIssuerTheProviderTrusts() {
    HelmChart.Result noIssuer =
        HelmChart.template(
            values(
                "controller.provider.name",
                "calico",
                "controller.provider.calico.tls.mode",
                "certificate"));
    assertThat(noIssuer.ok()).isFalse();
    assertThat(noIssuer.stderr())
        .contains(
            "controller.provider.calico.tls.issuerRef.name is required when"
                + " controller.provider.calico.tls.mode=certificate")
        .contains("the chart's own CA is not one of them");
    // Istio's receiver and fluent-bit already get certificates of their own (tls.mode issuer).
    HelmChart.Result istio =
        HelmChart.template(
            values(
                "controller.provider.istio.tls.mode",
                "certificate",
                "controller.provider.istio.tls.issuerRef.name",
                ISSUER));
    assertThat(istio.ok()).isFalse();
    assertThat(istio.stderr()).contains("/controller/provider/istio/tls/mode");
  }

  /**
   * The distributed Cilium install in certificate mode, created on a real API server with
   * cert-manager's CRDs; the ingest command then runs with its chart environment and its own
   * service account against a relay stand-in that trusts only the issuer's CA.
   */
  @Test
  void theRelayAcceptsIngestsOwnCertificateAndRefusesAnyOther() throws Exception {
    api = KubeApiServer.builder().start();
    KubernetesClient admin = api.client();
    ProjectCrds.install(admin, Duration.ofSeconds(60));
    installCertManagerCrds(admin);
    admin
        .namespaces()
        .resource(
            new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build())
        .create();
    SampleCluster.create(admin, CliRun.sample("cluster-state.json"));
    Map<String, String> values = certificateMode("cilium", "distributed");
    // The test broker is plain text (ThreatModelTest covers the Kafka side).
    values.putAll(
        values(
            "kafka.tls.enabled",
            "false",
            "kafka.insecurePlaintext",
            "true",
            "kafka.partitions",
            "2",
            "kafka.replicationFactor",
            "1",
            "telemetry.collectorStrategy",
            "none"));
    HelmChart.Result rendered = HelmChart.template(values);
    assertThat(rendered.ok()).as(rendered.stderr()).isTrue();
    int created = 0;
    for (HasMetadata object :
        admin
            .load(new ByteArrayInputStream(rendered.stdout().getBytes(StandardCharsets.UTF_8)))
            .items()) {
      String apiVersion = object.getApiVersion();
      String group = apiVersion.contains("/") ? apiVersion.split("/")[0] : "";
      if (!NOT_SERVED.contains(group) && !object.getKind().equals("CustomResourceDefinition")) {
        admin.resource(object).create();
        created++;
      }
    }
    assertThat(created).isGreaterThan(20);
    // Stored as cert-manager's own schema takes it.
    GenericKubernetesResource stored =
        admin
            .genericKubernetesResources(CERTIFICATE)
            .inNamespace(NAMESPACE)
            .withName(FULLNAME + "-cilium-client")
            .get();
    assertThat(stored).isNotNull();
    Map<String, Object> storedSpec = castMap(stored.getAdditionalProperties().get("spec"));
    assertThat(castMap(storedSpec.get("issuerRef"))).containsEntry("name", ISSUER);
    // Ingest's account reads no Secret of Cilium's namespace, nor any of its own.
    String ingestUser = "system:serviceaccount:" + NAMESPACE + ":" + FULLNAME + "-ingest";
    assertThat(allowed(admin, ingestUser, "kube-system", "hubble-relay-client-certs")).isFalse();
    assertThat(allowed(admin, ingestUser, NAMESPACE, FULLNAME + "-cilium-client")).isFalse();

    // Hubble's CA (the issuer's, as with Cilium's certManagerIssuerRef) signs the relay's server
    // certificate and ingest's client certificate, shaped as the rendered Certificate asks.
    TestCertificates hubbleCa = TestCertificates.newCa(ISSUER);
    Path relayCerts =
        hubbleCa.issue(
            dir.resolve("relay"),
            "*.hubble-relay.cilium.io",
            List.of("*.hubble-relay.cilium.io"),
            List.of(),
            true);
    Path relayKey = relayCerts.resolve("relay-pkcs8.key");
    Files.write(relayKey, PemKeys.toPkcs8Pem(Files.readAllBytes(relayCerts.resolve("tls.key"))));
    Path caOnly = Files.createDirectories(dir.resolve("relay-client-ca"));
    Files.writeString(caOnly.resolve("ca.crt"), hubbleCa.caPem());
    relay =
        HubbleRelayStandIn.serveTls(
            CliRun.sample("hubble-flows.jsonl"),
            "127.0.0.1",
            relayCerts.resolve("tls.crt"),
            relayKey,
            caOnly.resolve("ca.crt"));
    JsonNode spec =
        Manifests.parse(rendered.stdout())
            .get("Certificate", stored.getMetadata().getName())
            .path("spec");
    // The Secret's keys as the kubelet projects them at /etc/provider/certs.
    Path own =
        hubbleCa.issue(
            dir.resolve("own"),
            spec.path("commonName").asText(),
            texts(spec.path("dnsNames")),
            List.of(),
            spec.path("privateKey").path("algorithm").asText().equals("RSA"));
    assertThat(Files.readString(own.resolve("tls.key"))).startsWith("-----BEGIN RSA PRIVATE KEY");

    broker = EmbeddedKafkaBroker.startDefault();
    Map<String, String> env = new HashMap<>();
    env(container(
            Manifests.parse(rendered.stdout()).get("Deployment", FULLNAME + "-ingest"), "ingest"))
        .forEach(
            (name, value) -> {
              if (name.startsWith("NE_") && !value.startsWith("fieldRef:")) {
                env.put(name, value);
              }
            });
    assertThat(env).containsEntry("NE_PROVIDER_TLS_CERT_DIR", POD_CERT_DIR);
    env.put("NE_PROVIDER_TLS_CERT_DIR", own.toString());
    env.put("NE_HUBBLE_ENDPOINT", "127.0.0.1:" + relay.port());
    env.put("NE_KAFKA_BOOTSTRAP_SERVERS", broker.bootstrapServers());
    env.put(
        "NE_KUBECONFIG", api.serviceAccountKubeconfig(NAMESPACE, FULLNAME + "-ingest").toString());
    env.put("NE_POD_NAME", "ingest-0");
    env.put("NE_POD_NAMESPACE", NAMESPACE);
    int probePort = LoopbackPorts.free();
    env.put("NE_PROBE_PORT", String.valueOf(probePort));
    env.put("NE_MANAGEMENT_PORT", String.valueOf(LoopbackPorts.free()));
    env.put("NE_MANAGEMENT_AUTH", "none");
    ingest = CompletableFuture.supplyAsync(() -> CliRun.run(env, "ingest"));

    HttpClient http = HttpClient.newHttpClient();
    await("ingest streams from the relay with its own certificate")
        .atMost(Duration.ofMinutes(3))
        .pollInterval(Duration.ofMillis(500))
        .until(
            () ->
                ingest.isDone()
                    || (ready(http, probePort)
                        && relay.calls() >= 1
                        && relay.capturedFlowsSent(0) == relay.capturedFlows()));
    assertThat(ingest.isDone()).as(() -> "ingest ended: " + ingest.join().err()).isFalse();
    int accepted = relay.calls();
    assertThat(accepted).isEqualTo(1);

    // What the relay refuses: the handshake fails before any call reaches it.
    TestCertificates otherCa = TestCertificates.newCa(FULLNAME + "-ca");
    Map<String, Path> attempts = new java.util.LinkedHashMap<>();
    attempts.put(
        "a certificate of another CA with the same name",
        withCa(
            otherCa.issue(
                dir.resolve("foreign"),
                spec.path("commonName").asText(),
                texts(spec.path("dnsNames")),
                List.of(),
                true),
            hubbleCa));
    attempts.put("no client certificate", caOnly);
    List<String> refused = new ArrayList<>();
    for (var attempt : attempts.entrySet()) {
      assertThatThrownBy(() -> firstResponse(attempt.getValue()))
          .as(attempt.getKey())
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
      refused.add(attempt.getKey());
    }
    assertThat(relay.calls()).as("no refused attempt reached the relay").isEqualTo(accepted);
    System.out.printf(
        "own identity (cilium, tls.mode certificate): attempts refused: %d of %d,"
            + " legitimate calls accepted: %d of %d%n",
        refused.size(), attempts.size(), accepted, 1);
  }

  /** Opens a stream as ingest does (same channel code) with the material of {@code certDir}. */
  private static void firstResponse(Path certDir) throws InterruptedException {
    TlsSettings settings =
        TlsSettings.fromDirectory(TlsMode.issuer, certDir, "ui.hubble-relay.cilium.io");
    ReloadingTls tls = ReloadingTls.fromDirectory(certDir);
    ManagedChannel channel =
        GrpcChannels.open("127.0.0.1:" + relay.port(), settings, tls, Keepalive.grpcGoCompatible());
    try {
      ObserverGrpc.newBlockingStub(channel)
          .withDeadlineAfter(30, TimeUnit.SECONDS)
          .getFlows(GetFlowsRequest.newBuilder().setFollow(true).build())
          .hasNext();
    } finally {
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      tls.close();
    }
  }

  /** The client trusts the relay (Hubble's CA) whatever signed its own certificate. */
  private static Path withCa(Path certDir, TestCertificates ca) throws Exception {
    Files.writeString(certDir.resolve("ca.crt"), ca.caPem());
    return certDir;
  }

  private static void installCertManagerCrds(KubernetesClient admin) throws Exception {
    Path crds = KubeTools.toolsDir().resolve("cluster").resolve("cert-manager-crds");
    assertThat(crds)
        .as("cert-manager's released CRDs: run `%s`", KubeTools.CLUSTER_BUILD_SCRIPT)
        .isDirectory();
    try (var files = Files.list(crds)) {
      for (Path crd : files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
        try (InputStream in = Files.newInputStream(crd)) {
          admin.load(in).forceConflicts().serverSideApply();
        }
      }
    }
    await("cert-manager's Certificate served")
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .until(
            () ->
                admin.genericKubernetesResources(CERTIFICATE).inNamespace("default").list()
                    != null);
  }

  private static boolean allowed(
      KubernetesClient admin, String user, String namespace, String secret) {
    return admin
        .authorization()
        .v1()
        .subjectAccessReview()
        .create(
            new SubjectAccessReviewBuilder()
                .withNewSpec()
                .withUser(user)
                .withGroups(
                    "system:serviceaccounts",
                    "system:serviceaccounts:" + NAMESPACE,
                    "system:authenticated")
                .withNewResourceAttributes()
                .withVerb("get")
                .withResource("secrets")
                .withNamespace(namespace)
                .withName(secret)
                .endResourceAttributes()
                .endSpec()
                .build())
        .getStatus()
        .getAllowed();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> castMap(Object value) {
    return (Map<String, Object>) value;
  }

  private static boolean ready(HttpClient http, int probePort) {
    try {
      return http.send(
                  HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + probePort + "/readyz"))
                      .timeout(Duration.ofSeconds(10))
                      .build(),
                  HttpResponse.BodyHandlers.discarding())
              .statusCode()
          == 200;
    } catch (Exception e) {
      return false;
    }
  }
}
