package io.kubewarden.networkenforcer.chart;

import static io.kubewarden.networkenforcer.chart.HelmChart.FULLNAME;
import static io.kubewarden.networkenforcer.chart.HelmChart.NAMESPACE;
import static io.kubewarden.networkenforcer.chart.HelmChart.values;
import static io.kubewarden.networkenforcer.chart.Manifests.container;
import static io.kubewarden.networkenforcer.chart.Manifests.env;
import static io.kubewarden.networkenforcer.chart.Manifests.texts;
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
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.ClientAuth;
import io.grpc.stub.StreamObserver;
import io.kubewarden.networkenforcer.cli.CliRun;
import io.kubewarden.networkenforcer.cli.compose.HubbleRelayStandIn;
import io.kubewarden.networkenforcer.cli.compose.SampleCluster;
import io.kubewarden.networkenforcer.cli.services.ServiceRunner;
import io.kubewarden.networkenforcer.common.tls.PemKeys;
import io.kubewarden.networkenforcer.embedded.EmbeddedKafkaBroker;
import io.kubewarden.networkenforcer.ingest.proto.goldmane.FlowResult;
import io.kubewarden.networkenforcer.ingest.proto.goldmane.FlowStreamRequest;
import io.kubewarden.networkenforcer.ingest.proto.goldmane.FlowsGrpc;
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
import java.net.InetSocketAddress;
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
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Own identities (issue 35, goal 5) on real parts: the {@code tls.mode=certificate} install created
 * on a real API server with cert-manager's released CRDs (the Certificate passes their schema) and
 * the chart's RBAC (ingest may read no provider Secret); real mutual TLS handshakes: the {@code
 * ingest} command with the chart's environment and its own service account streams from a Hubble
 * Relay stand-in, and from a Goldmane stand-in, that trust only the issuer's CA, while a
 * certificate of another CA with the same names, or none, is refused by them; and the install notes
 * say whose identity ingest uses.
 */
class ChartProviderCertificateHandshakeTest {
  private static final String ISSUER = ChartProviderCertificateTest.ISSUER;
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
  private static final List<ManagedChannel> CHANNELS = new CopyOnWriteArrayList<>();
  private static final String GOLDMANE_NAME = "goldmane.calico-system.svc";

  @AfterAll
  static void stop() throws Exception {
    CHANNELS.forEach(ManagedChannel::shutdownNow);
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

  @BeforeAll
  static void apiServerWithCertManagerCrdsAndABroker() throws Exception {
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
    broker = EmbeddedKafkaBroker.startDefault();
  }

  /**
   * The distributed Cilium install in certificate mode on the API server; the ingest command then
   * runs with its chart environment and its own service account against a relay stand-in that
   * trusts only the issuer's CA.
   */
  @Test
  void theRelayAcceptsIngestsOwnCertificateAndRefusesAnyOther() throws Exception {
    Manifests chart = install("cilium");
    JsonNode spec = chart.get("Certificate", FULLNAME + "-cilium-client").path("spec");
    // Hubble's CA (the issuer's, as with Cilium's certManagerIssuerRef) signs the relay's server
    // certificate and ingest's client certificate, shaped as the rendered Certificate asks.
    TestCertificates hubbleCa = TestCertificates.newCa(ISSUER);
    Path server = serverCerts(hubbleCa, "relay", "*.hubble-relay.cilium.io");
    Path caOnly = caOnly(hubbleCa, "relay-client-ca");
    relay =
        HubbleRelayStandIn.serveTls(
            CliRun.sample("hubble-flows.jsonl"),
            "127.0.0.1",
            server.resolve("tls.crt"),
            server.resolve("server-pkcs8.key"),
            caOnly.resolve("ca.crt"));
    Path own = issueAsRendered(hubbleCa, spec, "cilium-own");
    Map<String, String> env = ingestEnv(chart, own);
    env.put("NE_HUBBLE_ENDPOINT", "127.0.0.1:" + relay.port());
    int probePort = startIngest(env);

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
    assertThat(relay.calls()).isEqualTo(1);
    stopIngest();

    String target = "127.0.0.1:" + relay.port();
    int refused =
        refusals(
            "cilium",
            hubbleCa,
            spec,
            own,
            caOnly,
            certDir ->
                ObserverGrpc.newBlockingStub(channel(target, certDir, "ui.hubble-relay.cilium.io"))
                    .withDeadlineAfter(30, TimeUnit.SECONDS)
                    .getFlows(GetFlowsRequest.newBuilder().setFollow(true).build())
                    .hasNext());
    // Ingest's stream and the direct call with its certificate; nothing of the refused ones.
    assertThat(relay.calls()).as("no refused attempt reached the relay").isEqualTo(2);
    System.out.printf(
        "own identity (cilium, tls.mode certificate): attempts refused: %d of 2,"
            + " legitimate calls accepted: 2 of 2%n",
        refused);
  }

  /**
   * The same for Calico: a Goldmane that, as Goldmane does, requires a client certificate whose
   * chain its CA bundle verifies; the bundle here holds only the issuer's CA.
   */
  @Test
  void goldmaneAcceptsIngestsOwnCertificateAndRefusesAnyOther() throws Exception {
    Manifests chart = install("calico");
    JsonNode spec = chart.get("Certificate", FULLNAME + "-calico-client").path("spec");
    TestCertificates tigeraCa = TestCertificates.newCa("tigera-operator-signer");
    Path server = serverCerts(tigeraCa, "goldmane", GOLDMANE_NAME);
    Path bundle = caOnly(tigeraCa, "tigera-ca-bundle");
    List<FlowStreamRequest> calls = new CopyOnWriteArrayList<>();
    Server goldmane =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .sslContext(
                GrpcSslContexts.forServer(
                        server.resolve("tls.crt").toFile(),
                        server.resolve("server-pkcs8.key").toFile())
                    .trustManager(bundle.resolve("ca.crt").toFile())
                    .clientAuth(ClientAuth.REQUIRE)
                    .build())
            .addService(
                new FlowsGrpc.FlowsImplBase() {
                  @Override
                  public void stream(FlowStreamRequest request, StreamObserver<FlowResult> out) {
                    // Goldmane keeps the stream open and sends buckets as they close.
                    calls.add(request);
                  }
                })
            .build()
            .start();
    try {
      Path own = issueAsRendered(tigeraCa, spec, "calico-own");
      Map<String, String> env = ingestEnv(chart, own);
      String target = "127.0.0.1:" + goldmane.getPort();
      env.put("NE_GOLDMANE_ENDPOINT", target);
      // The name the default endpoint goldmane.calico-system.svc:7443 gives.
      env.put("NE_PROVIDER_TLS_SERVER_NAME", GOLDMANE_NAME);
      startIngest(env);
      await("ingest opens Goldmane's stream with its own certificate")
          .atMost(Duration.ofMinutes(3))
          .pollInterval(Duration.ofMillis(500))
          .until(() -> ingest.isDone() || calls.size() >= 1);
      assertThat(ingest.isDone()).as(() -> "ingest ended: " + ingest.join().err()).isFalse();
      assertThat(calls).hasSize(1);
      stopIngest();

      int refused =
          refusals(
              "calico",
              tigeraCa,
              spec,
              own,
              bundle,
              certDir ->
                  FlowsGrpc.newBlockingStub(channel(target, certDir, GOLDMANE_NAME))
                      .withDeadlineAfter(5, TimeUnit.SECONDS)
                      .stream(FlowStreamRequest.getDefaultInstance())
                      .hasNext());
      assertThat(calls).as("no refused attempt reached Goldmane").hasSize(2);
      System.out.printf(
          "own identity (calico, tls.mode certificate): attempts refused: %d of 2,"
              + " legitimate calls accepted: 2 of 2%n",
          refused);
    } finally {
      goldmane.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void theInstallNotesSayWhoseIdentityIngestUses() throws Exception {
    String own =
        dryRunInstall(
            "--set",
            "controller.provider.name=calico",
            "--set",
            "controller.provider.calico.tls.mode=certificate",
            "--set",
            "controller.provider.calico.tls.issuerRef.name=" + ISSUER,
            "--set",
            "controller.provider.calico.tls.issuerRef.kind=ClusterIssuer");
    assertThat(own)
        .contains(
            "Ingest's own client certificate for Goldmane: Secret notes-network-enforcer-calico-client")
        .contains("cert-manager from ClusterIssuer " + ISSUER)
        .doesNotContain("borrows");
    String borrowed = dryRunInstall("--set", "controller.provider.name=cilium");
    assertThat(borrowed)
        .contains(
            "Ingest borrows cilium's key pair kube-system/hubble-relay-client-certs to reach Hubble"
                + " Relay.")
        .contains("controller.provider.cilium.tls.mode=certificate");
    assertThat(dryRunInstall("--set", "controller.provider.name=istio"))
        .doesNotContain("borrows")
        .doesNotContain("Ingest's own client certificate");
  }

  /** {@code helm install --dry-run=server} of another release on the API server: its notes. */
  private static String dryRunInstall(String... values) {
    // The CRDs are templates of the chart, already created from the same files: let the release
    // adopt them, as the chart README tells an existing installation to.
    for (String crd :
        List.of(
            "workloadnetworkpolicies.networkenforcer.kubewarden.io",
            "workloadnetworkpolicyproposals.networkenforcer.kubewarden.io")) {
      api.client()
          .apiextensions()
          .v1()
          .customResourceDefinitions()
          .withName(crd)
          .edit(
              c -> {
                Map<String, String> labels = new HashMap<>();
                Map<String, String> annotations = new HashMap<>();
                if (c.getMetadata().getLabels() != null) {
                  labels.putAll(c.getMetadata().getLabels());
                }
                if (c.getMetadata().getAnnotations() != null) {
                  annotations.putAll(c.getMetadata().getAnnotations());
                }
                labels.put("app.kubernetes.io/managed-by", "Helm");
                annotations.put("meta.helm.sh/release-name", "notes");
                annotations.put("meta.helm.sh/release-namespace", NAMESPACE);
                c.getMetadata().setLabels(labels);
                c.getMetadata().setAnnotations(annotations);
                return c;
              });
    }
    List<String> args =
        new ArrayList<>(
            List.of(
                "install",
                "notes",
                HelmChart.chartDir().toString(),
                "--namespace",
                NAMESPACE,
                "--dry-run=server"));
    args.addAll(List.of(values));
    HelmChart.Result result =
        HelmChart.against(api.kubeconfig(), dir.resolve("helm-home"), args.toArray(String[]::new));
    assertThat(result.exitCode()).as(result.stdout() + result.stderr()).isZero();
    return result.stdout().substring(result.stdout().indexOf("NOTES:"));
  }

  /**
   * Creates the distributed certificate-mode install of that provider on the API server (the
   * Certificate against cert-manager's schema) and checks ingest's account reads no Secret.
   */
  private static Manifests install(String provider) throws Exception {
    KubernetesClient admin = api.client();
    Map<String, String> values =
        ChartProviderCertificateTest.certificateMode(provider, "distributed");
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
    int applied = 0;
    for (HasMetadata object :
        admin
            .load(new ByteArrayInputStream(rendered.stdout().getBytes(StandardCharsets.UTF_8)))
            .items()) {
      String apiVersion = object.getApiVersion();
      String group = apiVersion.contains("/") ? apiVersion.split("/")[0] : "";
      if (!NOT_SERVED.contains(group) && !object.getKind().equals("CustomResourceDefinition")) {
        admin.resource(object).forceConflicts().serverSideApply();
        applied++;
      }
    }
    assertThat(applied).isGreaterThan(20);
    String name = FULLNAME + "-" + provider + "-client";
    // Stored as cert-manager's own schema takes it.
    GenericKubernetesResource stored =
        admin.genericKubernetesResources(CERTIFICATE).inNamespace(NAMESPACE).withName(name).get();
    assertThat(stored).isNotNull();
    Map<String, Object> storedSpec = castMap(stored.getAdditionalProperties().get("spec"));
    assertThat(castMap(storedSpec.get("issuerRef"))).containsEntry("name", ISSUER);
    // Ingest's account reads no Secret of the provider's namespace, nor its own certificate's.
    String ingestUser = "system:serviceaccount:" + NAMESPACE + ":" + FULLNAME + "-ingest";
    assertThat(allowed(admin, ingestUser, "kube-system", "hubble-relay-client-certs")).isFalse();
    assertThat(allowed(admin, ingestUser, "calico-system", "goldmane-key-pair")).isFalse();
    assertThat(allowed(admin, ingestUser, NAMESPACE, name)).isFalse();
    return Manifests.parse(rendered.stdout());
  }

  /** A server certificate of that CA, its key also as PKCS#8 for the Netty stand-ins. */
  private static Path serverCerts(TestCertificates ca, String name, String dnsName)
      throws Exception {
    Path certs = ca.issue(dir.resolve(name), dnsName, List.of(dnsName), List.of(), true);
    Files.write(
        certs.resolve("server-pkcs8.key"),
        PemKeys.toPkcs8Pem(Files.readAllBytes(certs.resolve("tls.key"))));
    return certs;
  }

  private static Path caOnly(TestCertificates ca, String name) throws Exception {
    Path only = Files.createDirectories(dir.resolve(name));
    Files.writeString(only.resolve("ca.crt"), ca.caPem());
    return only;
  }

  /** The Secret's keys as the kubelet projects them at /etc/provider/certs. */
  private static Path issueAsRendered(TestCertificates ca, JsonNode spec, String name)
      throws Exception {
    Path own =
        ca.issue(
            dir.resolve(name),
            spec.path("commonName").asText(),
            texts(spec.path("dnsNames")),
            List.of(),
            spec.path("privateKey").path("algorithm").asText().equals("RSA"));
    assertThat(Files.readString(own.resolve("tls.key"))).startsWith("-----BEGIN RSA PRIVATE KEY");
    return own;
  }

  /** Ingest's container environment as rendered, pointed at the test's parts. */
  private static Map<String, String> ingestEnv(Manifests chart, Path certDir) {
    Map<String, String> env = new HashMap<>();
    env(container(chart.get("Deployment", FULLNAME + "-ingest"), "ingest"))
        .forEach(
            (name, value) -> {
              if (name.startsWith("NE_") && !value.startsWith("fieldRef:")) {
                env.put(name, value);
              }
            });
    assertThat(env).containsEntry("NE_PROVIDER_TLS_CERT_DIR", POD_CERT_DIR);
    env.put("NE_PROVIDER_TLS_CERT_DIR", certDir.toString());
    env.put("NE_KAFKA_BOOTSTRAP_SERVERS", broker.bootstrapServers());
    env.put(
        "NE_KUBECONFIG", api.serviceAccountKubeconfig(NAMESPACE, FULLNAME + "-ingest").toString());
    env.put("NE_POD_NAME", "ingest-0");
    env.put("NE_POD_NAMESPACE", NAMESPACE);
    return env;
  }

  /** Starts the ingest command; returns its probe port. */
  private static int startIngest(Map<String, String> env) {
    int probePort = LoopbackPorts.free();
    env.put("NE_PROBE_PORT", String.valueOf(probePort));
    env.put("NE_MANAGEMENT_PORT", String.valueOf(LoopbackPorts.free()));
    env.put("NE_MANAGEMENT_AUTH", "none");
    ingest = CompletableFuture.supplyAsync(() -> CliRun.run(env, "ingest"));
    return probePort;
  }

  private static void stopIngest() throws Exception {
    ServiceRunner.stopAll();
    CliRun result = ingest.get(2, TimeUnit.MINUTES);
    ingest = null;
    assertThat(result.exitCode()).as(result.err()).isZero();
  }

  /** A call with the client side of that directory, on the same channel code ingest uses. */
  private interface Call {
    void open(Path certDir) throws Exception;
  }

  /**
   * What the server refuses in the handshake: a certificate of another CA with ingest's names (the
   * client trusting the server), and no certificate. Returns how many were refused UNAVAILABLE. The
   * same call with ingest's own certificate first reaches the server, so a refusal is the server's
   * and not the client's.
   */
  private static int refusals(
      String provider, TestCertificates serverCa, JsonNode spec, Path own, Path caOnly, Call call)
      throws Exception {
    try {
      call.open(own);
    } catch (StatusRuntimeException e) {
      // Goldmane sends nothing until a bucket closes: the call reached it and ran out of time.
      assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    }
    Path foreign =
        TestCertificates.newCa(FULLNAME + "-ca")
            .issue(
                dir.resolve(provider + "-foreign"),
                spec.path("commonName").asText(),
                texts(spec.path("dnsNames")),
                List.of(),
                true);
    Files.writeString(foreign.resolve("ca.crt"), serverCa.caPem());
    Map<String, Path> attempts =
        Map.of("a certificate of another CA with the same name", foreign, "no certificate", caOnly);
    int refused = 0;
    for (var attempt : attempts.entrySet()) {
      assertThatThrownBy(() -> call.open(attempt.getValue()))
          .as(attempt.getKey())
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
      refused++;
    }
    return refused;
  }

  private static ManagedChannel channel(String target, Path certDir, String serverName) {
    ManagedChannel channel =
        GrpcChannels.open(
            target,
            TlsSettings.fromDirectory(TlsMode.issuer, certDir, serverName),
            ReloadingTls.fromDirectory(certDir),
            Keepalive.grpcGoCompatible());
    CHANNELS.add(channel);
    return channel;
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
