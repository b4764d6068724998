package io.kubewarden.networkenforcer.security;

import static io.kubewarden.networkenforcer.chart.HelmChart.values;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kubewarden.networkenforcer.chart.HelmChart;
import io.kubewarden.networkenforcer.chart.Manifests;
import io.kubewarden.networkenforcer.cli.RunningCommand;
import io.kubewarden.networkenforcer.cli.services.CaughtUpPage;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicy;
import io.kubewarden.networkenforcer.common.topics.Topic;
import io.kubewarden.networkenforcer.common.topics.TopicAccess;
import io.kubewarden.networkenforcer.common.topics.Topics;
import io.kubewarden.networkenforcer.testing.ChartedApiServer;
import io.kubewarden.networkenforcer.testing.LoopbackPorts;
import io.kubewarden.networkenforcer.testing.ServiceAccountAudit;
import io.kubewarden.networkenforcer.testing.TestCertificates;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chart README's threat model, row by row, against the parts as the product starts them: the
 * {@code ingest} (istio) and {@code processor} commands with the environment the chart renders for
 * them by default (their own Kafka client certificate, Kubernetes authentication on the management
 * port, the pinned fluent-bit name), one broker with mutual TLS and an authorizer holding each
 * component's ACLs as the chart's properties files address it, a real API server with the chart's
 * RBAC. Every attempt an attacker of a row would make is refused with its specific refusal, every
 * legitimate call of the row is accepted (so a refusal is not everything being down), and the test
 * prints {@code threat model: attempts refused: R of R, legitimate calls accepted: A of A}.
 *
 * <p>Rows checked elsewhere: the NetworkPolicies and the collector path ({@code
 * ChartNetworkPolicyTest}, rendered), {@code watchNamespaces} ({@code ChartWatchNamespacesTest}),
 * the standalone broker ({@code EmbeddedKafkaBrokerTest}), docker-compose ({@code
 * DockerComposeTest}), SASL principals and the services' whole work under ACLs ({@code
 * KafkaAclTest}), the chart's SCRAM properties ({@code ScramKafkaTest}), a slow client ({@code
 * ManagementAuthTest}).
 */
class ThreatModelTest {
  private static final String PROBES = "kubelet -> probe port";
  private static final String MANAGEMENT = "scraper, person -> management port, flow dumper";
  private static final String OTLP = "fluent-bit -> OTLP receiver";
  private static final String API = "components -> API server";
  private static final String KAFKA = "ingest, processor, writer -> Kafka";

  /** The chart's release on the API server, as {@link HelmChart} renders it: same names. */
  private static final String FULLNAME = HelmChart.FULLNAME;

  /** The API server's istio release, whose RBAC the writer of an istio cluster needs. */
  private static final String ISTIO_FULLNAME = ChartedApiServer.ISTIO + "-network-enforcer";

  private static final String NS = "demo";
  private static final String MONITORING = "monitoring";
  private static final String MADE_UP_TOKEN = "eyJhbGciOiJSUzI1NiJ9.e30.c2ln";

  /** Where the chart mounts the receiver's certificate in ingest's pod. */
  private static final String POD_PROVIDER_DIR = "/etc/provider/certs";

  private static final Topics PIPELINE = Topics.withDefaultPrefix();

  /** The topics the raw Kafka attempts aim at: what lands there is counted alone. */
  private static final Topics REFUSALS = new Topics("refusals.");

  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @TempDir static Path dir;

  static Manifests chart;
  static TestCertificates meshCa;
  static MutualTlsKafka kafka;
  static ChartedApiServer api;
  static RunningCommand ingest;
  static RunningCommand processor;
  static RunningCommand writer;
  static OtlpClients otlp;
  static int dumperPort;
  static String fluentBitName;
  static String prometheus;
  static String operator;
  static String intruder;
  static String ingestToken;

  @BeforeAll
  static void start() throws Exception {
    chart =
        HelmChart.render(
            values(
                "mode",
                "distributed",
                "kafka.bootstrapServers",
                "kafka:9093",
                "controller.provider.name",
                "istio",
                "controller.flowDumper.enabled",
                "true",
                "writer.liveView.enabled",
                "true"));
    // The API server starts while the broker and its ACLs are set up: about 6 s of the class's
    // time.
    CompletableFuture<ChartedApiServer> apiServer =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return ChartedApiServer.start(
                    NS, ServiceAccountAudit.apiServerArgs(dir.resolve("audit.log")));
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            });
    meshCa = TestCertificates.newCa("network-enforcer-ca");
    kafka = MutualTlsKafka.start(chart, dir);
    kafka.declare(REFUSALS, PIPELINE);

    api = apiServer.join();
    api.createNamespace(MONITORING);
    // What the chart README tells an operator to do: bind the reader ClusterRoles.
    prometheus = api.boundServiceAccount(MONITORING, "prometheus", FULLNAME + "-metrics-reader");
    operator = api.boundServiceAccount(MONITORING, "operator", FULLNAME + "-management-reader");
    intruder = api.boundServiceAccount(MONITORING, "intruder", null);
    ingestToken = api.token(ChartedApiServer.RELEASE_NAMESPACE, FULLNAME + "-ingest");

    Map<String, String> ingestEnv = env("Deployment", "ingest");
    fluentBitName = ingestEnv.get("NE_OTLP_CLIENT_NAME");
    assertThat(fluentBitName)
        .as("the chart pins fluent-bit's name")
        .isEqualTo("fluent-bit.ne-system");
    assertThat(ingestEnv.get("NE_PROVIDER_TLS_CERT_DIR")).startsWith(dir.toString());
    meshCa.issue(
        Path.of(ingestEnv.get("NE_PROVIDER_TLS_CERT_DIR")),
        FULLNAME + "-ingest",
        List.of("localhost"),
        List.of("127.0.0.1"),
        true);
    int otlpPort = LoopbackPorts.free();
    int otlpHttpPort = LoopbackPorts.free();
    otlp = new OtlpClients(otlpPort, otlpHttpPort);
    dumperPort = LoopbackPorts.free();
    ingestEnv.put("NE_OTLP_PORT", Integer.toString(otlpPort));
    ingestEnv.put("NE_OTLP_HTTP_PORT", Integer.toString(otlpHttpPort));
    ingestEnv.put("NE_FLOW_DUMPER_PORT", Integer.toString(dumperPort));
    ingest = RunningCommand.start(ingestEnv, "ingest", "kafka ok");

    Map<String, String> processorEnv = env("StatefulSet", "processor");
    processorEnv.put("NE_STATE_DIR", dir.resolve("processor-state").toString());
    processorEnv.put("NE_NUM_STANDBY_REPLICAS", "0");
    processor = RunningCommand.start(processorEnv, "processor", "kafka-streams ok");

    // The API server holds the chart's RBAC of an istio release under another release name: the
    // writer takes that release's service account and Lease. The collector path is another row.
    Map<String, String> writerEnv = env("Deployment", "writer");
    writerEnv.put(
        "NE_KUBECONFIG",
        api.api()
            .serviceAccountKubeconfig(
                ChartedApiServer.RELEASE_NAMESPACE, ISTIO_FULLNAME + "-writer")
            .toString());
    writerEnv.put("NE_LEASE_NAME", ChartedApiServer.leaseName(ChartedApiServer.ISTIO));
    writerEnv.put("NE_LEASE_NAMESPACE", ChartedApiServer.RELEASE_NAMESPACE);
    writerEnv.put("NE_TELEMETRY_COLLECTOR_STRATEGY", "none");
    writerEnv.keySet().removeIf(name -> name.startsWith("OTEL_"));
    assertThat(writerEnv).containsEntry("NE_LIVE_VIEW", "true");
    writer = RunningCommand.start(writerEnv, "writer", "writer ok");
  }

  @AfterAll
  static void stop() throws Exception {
    // Every part is closed even when one fails (a service that does not exit cleanly).
    Exception first = null;
    for (AutoCloseable part : new AutoCloseable[] {writer, processor, ingest, api, kafka}) {
      try {
        if (part != null) {
          part.close();
        }
      } catch (Exception e) {
        first = first == null ? e : first;
      }
    }
    if (first != null) {
      throw first;
    }
  }

  @Test
  void everyRowRefusesItsAttackersAndServesItsOwners() throws Exception {
    ThreatLedger ledger = new ThreatLedger();
    probePort(ledger);
    managementPort(ledger);
    otlpReceiver(ledger);
    apiServer(ledger);
    kafka(ledger);

    System.out.println(ledger.summary());
    ledger.rowLines().forEach(System.out::println);
    assertThat(ledger.observed()).containsExactlyElementsOf(ledger.expected());
    // 114: each internal topic of the processor adds four (two strangers, each writes and reads).
    assertThat(ledger.refused()).isEqualTo(ledger.attempts()).isEqualTo(114);
    assertThat(ledger.accepted()).isEqualTo(ledger.legitimateCalls()).isEqualTo(21);
    componentsRequestedTheirGrants();
  }

  /**
   * Least privilege, measured: each component's requests in the API server's audit log, after the
   * rows above (management requests reviewed, ingest's informers, the attacks of the API server
   * row), against the grants to its service account. Ingest and the processor request every grant
   * but Goldmane's Secret and CA bundle (this ingest reads istio, the account is a calico
   * release's), and nothing outside them but the row's attacks; the writer's grants are measured
   * through a whole learn-promote-protect run in {@code ApiServerPipelineTest}.
   */
  private static void componentsRequestedTheirGrants() throws Exception {
    Map<String, String> accounts = new LinkedHashMap<>();
    accounts.put("ingest", FULLNAME + "-ingest");
    accounts.put("processor", FULLNAME + "-processor");
    accounts.put("writer", ISTIO_FULLNAME + "-writer");
    Map<String, Set<String>> unused = new LinkedHashMap<>();
    Map<String, Set<String>> ungranted = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : accounts.entrySet()) {
      List<ServiceAccountAudit.Request> requests =
          ServiceAccountAudit.requests(
              dir.resolve("audit.log"), ChartedApiServer.RELEASE_NAMESPACE, e.getValue());
      Set<String> granted =
          ServiceAccountAudit.granted(
              api.admin(), ChartedApiServer.RELEASE_NAMESPACE, e.getValue());
      Set<String> requested = new TreeSet<>();
      requests.forEach(r -> requested.add(r.permission()));
      unused.put(e.getKey(), new TreeSet<>(granted));
      unused.get(e.getKey()).removeAll(requested);
      ungranted.put(e.getKey(), new TreeSet<>(requested));
      ungranted.get(e.getKey()).removeAll(granted);
      System.out.println(
          e.getKey()
              + " RBAC, from the audit log: "
              + requests.size()
              + " requests; granted "
              + granted.size()
              + ", requested "
              + (granted.size() - unused.get(e.getKey()).size())
              + "; never requested: "
              + unused.get(e.getKey())
              + "; requested, not granted: "
              + ungranted.get(e.getKey()));
    }
    assertThat(unused.get("ingest")).containsExactly("get /configmaps", "get /secrets");
    assertThat(ungranted.get("ingest"))
        .as("the API server row's attacks")
        .containsExactly("create networking.k8s.io/networkpolicies", "list /secrets");
    assertThat(unused.get("processor")).isEmpty();
    assertThat(ungranted.get("processor")).containsExactly("list /pods");
    // DriftWatches' watch of the other backend's native kind, stopped at the 403.
    assertThat(ungranted.get("writer")).containsExactly("list networking.k8s.io/networkpolicies");
  }

  /** Open to anyone, so it must serve nothing but "up" and "ready". */
  private static void probePort(ThreatLedger ledger) throws Exception {
    Map<String, RunningCommand> services = new LinkedHashMap<>();
    services.put("ingest", ingest);
    services.put("processor", processor);
    services.put("writer", writer);
    for (Map.Entry<String, RunningCommand> e : services.entrySet()) {
      String name = e.getKey();
      RunningCommand service = e.getValue();
      ledger.attack(
          PROBES,
          "anyone GET /metrics on the " + name + "'s probe port",
          "404",
          status(service.probe("/metrics")));
      ledger.legitimate(
          PROBES, "kubelet GET /healthz of the " + name, "200", status(service.probe("/healthz")));
      ledger.legitimate(
          PROBES, "kubelet GET /readyz of the " + name, "200", status(service.probe("/readyz")));
    }
  }

  /**
   * TokenReview and SubjectAccessReview against the API server: no token or a made-up one 401, a
   * real token of a user RBAC does not let get the path 403, nothing of the page in either answer.
   */
  private static void managementPort(ThreatLedger ledger) throws Exception {
    int port = processor.managementPort();
    record Attempt(String who, String token, int port, String path, String expected) {}
    List<Attempt> attempts =
        List.of(
            new Attempt("anonymous", null, port, "/metrics", "401"),
            new Attempt("anonymous", null, port, CaughtUpPage.PATH, "401"),
            new Attempt("anonymous (ingest)", null, ingest.managementPort(), "/metrics", "401"),
            new Attempt("a made-up token", MADE_UP_TOKEN, port, "/metrics", "401"),
            new Attempt("a made-up token", MADE_UP_TOKEN, port, CaughtUpPage.PATH, "401"),
            new Attempt("a service account nobody bound", intruder, port, "/metrics", "403"),
            new Attempt("a service account nobody bound", intruder, port, CaughtUpPage.PATH, "403"),
            new Attempt("ingest's own service account", ingestToken, port, "/metrics", "403"),
            new Attempt("the metrics reader", prometheus, port, CaughtUpPage.PATH, "403"),
            new Attempt("anonymous", null, dumperPort, "/flow", "401"),
            new Attempt("a made-up token", MADE_UP_TOKEN, dumperPort, "/flow", "401"),
            new Attempt("a service account nobody bound", intruder, dumperPort, "/flow", "403"),
            new Attempt("the metrics reader", prometheus, dumperPort, "/flow", "403"),
            new Attempt("anonymous", null, writer.managementPort(), "/view", "401"),
            new Attempt("a made-up token", MADE_UP_TOKEN, writer.managementPort(), "/view", "401"),
            new Attempt(
                "a service account nobody bound",
                intruder,
                writer.managementPort(),
                "/view",
                "403"),
            new Attempt("the metrics reader", prometheus, writer.managementPort(), "/view", "403"));
    for (Attempt a : attempts) {
      HttpResponse<String> response = get(a.port(), a.path(), a.token());
      String observed = status(response);
      if (response.body().contains("jvm_")
          || response.body().contains("caughtUp")
          || response.body().toLowerCase().contains("<html")) {
        observed += " with the page";
      }
      if (response.statusCode() == 401
          && !response
              .headers()
              .firstValue("WWW-Authenticate")
              .orElse("")
              .equals("Bearer realm=\"network-enforcer\"")) {
        observed += " without a Bearer challenge";
      }
      // The refusal names the user the token belongs to: the API server's TokenReview, not a guess.
      if (response.statusCode() == 403
          && !response
              .body()
              .matches(
                  "(?s)system:serviceaccount:[a-z0-9-]+:[a-z0-9-]+ may not get "
                      + Pattern.quote(a.path())
                      + " .*")) {
        observed += " without the SubjectAccessReview's reason";
      }
      ledger.attack(MANAGEMENT, a.who() + " GET " + a.path(), a.expected(), observed);
    }

    HttpResponse<String> metrics = get(port, "/metrics", prometheus);
    ledger.legitimate(
        MANAGEMENT,
        "the metrics reader GET /metrics of the processor",
        "200 service=processor",
        status(metrics)
            + (metrics.body().contains("service=\"processor\"") ? " service=processor" : ""));
    HttpResponse<String> ingestMetrics = get(ingest.managementPort(), "/metrics", prometheus);
    ledger.legitimate(
        MANAGEMENT,
        "the metrics reader GET /metrics of ingest",
        "200 service=ingest",
        status(ingestMetrics)
            + (ingestMetrics.body().contains("service=\"ingest\"") ? " service=ingest" : ""));
    ledger.legitimate(
        MANAGEMENT,
        "the management reader GET /metrics of the processor",
        "200",
        status(get(port, "/metrics", operator)));
    // The single writer takes the Lease a moment after it is ready; a standby would answer 503.
    await("the writer leads")
        .atMost(Duration.ofSeconds(30))
        .until(() -> get(writer.managementPort(), "/view", operator).statusCode() == 200);
    HttpResponse<String> view = get(writer.managementPort(), "/view", operator);
    ledger.legitimate(
        MANAGEMENT,
        "the management reader GET /view",
        "200 text/html",
        status(view) + " " + view.headers().firstValue("Content-Type").orElse("").split(";")[0]);
    HttpResponse<String> caughtUp = get(port, CaughtUpPage.PATH, operator);
    ledger.legitimate(
        MANAGEMENT,
        "the management reader GET " + CaughtUpPage.PATH,
        "200 {\"caughtUp\":",
        status(caughtUp)
            + " "
            + caughtUp.body().substring(0, Math.min(12, caughtUp.body().length())));
  }

  /**
   * Only fluent-bit's certificate, of the chart's CA and with the pinned name, gets a log record
   * read: another certificate of the same CA is refused by name (gRPC PERMISSION_DENIED, HTTP 403),
   * one of another CA, none, or plain text never finish the TLS handshake (UNAVAILABLE). The flow
   * dumper, read by the management reader, shows that only fluent-bit's record was read.
   */
  private static void otlpReceiver(ThreatLedger ledger) throws Exception {
    Path sameCaOtherName =
        meshCa.issue(dir.resolve("otlp-other"), FULLNAME + "-writer", List.of(), List.of(), true);
    Path otherCaSameName =
        TestCertificates.newCa("another-ca")
            .issue(dir.resolve("otlp-forged"), fluentBitName, List.of(), List.of(), true);
    Path fluentBit =
        meshCa.issue(dir.resolve("otlp-fluent-bit"), fluentBitName, List.of(), List.of(), true);
    // Every client trusts the receiver's CA: only its own credential differs.
    Files.copy(
        fluentBit.resolve("ca.crt"),
        otherCaSameName.resolve("ca.crt"),
        StandardCopyOption.REPLACE_EXISTING);

    ledger.attack(
        OTLP,
        "a certificate of the same CA named " + FULLNAME + "-writer, gRPC",
        "PERMISSION_DENIED",
        otlp.grpcWith(sameCaOtherName));
    ledger.attack(
        OTLP,
        "a certificate of the same CA named " + FULLNAME + "-writer, HTTP",
        "403",
        otlp.httpWith(sameCaOtherName));
    ledger.attack(
        OTLP,
        "a certificate of another CA named " + fluentBitName + ", gRPC",
        "UNAVAILABLE",
        otlp.grpcWith(otherCaSameName));
    ledger.attack(
        OTLP,
        "no client certificate, gRPC",
        "UNAVAILABLE",
        otlp.grpcWithoutCertificate(fluentBit.resolve("ca.crt")));
    ledger.attack(OTLP, "plain text, gRPC", "UNAVAILABLE", otlp.grpcPlaintext());
    assertThat(drainDumper()).as("nothing of a refused client was read").isEmpty();

    String grpc = otlp.grpcWith(fluentBit);
    ledger.legitimate(OTLP, "fluent-bit's certificate, gRPC", "OK", grpc);
    String http = otlp.httpWith(fluentBit);
    ledger.legitimate(OTLP, "fluent-bit's certificate, HTTP", "200", http);
    // Read asynchronously after the export is answered: polled with a deadline, and only when both
    // were accepted, so a refusal is counted here rather than ending the walk.
    List<String> read = new ArrayList<>(drainDumper());
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (grpc.equals("OK")
        && http.equals("200")
        && read.size() < 2
        && System.nanoTime() < deadline) {
      Thread.sleep(100);
      read.addAll(drainDumper());
    }
    ledger.legitimate(
        OTLP,
        "the management reader GET /flow: fluent-bit's two records",
        "2 of http-server",
        read.size()
            + " of "
            + (read.stream().allMatch(l -> l.contains("http-server")) ? "http-server" : read));
  }

  /**
   * Each component's service account token holds exactly the chart's RBAC: one step beyond it the
   * API server answers 403.
   */
  private static void apiServer(ThreatLedger ledger) {
    String ns = ChartedApiServer.RELEASE_NAMESPACE;
    try (KubernetesClient asIngest = api.api().serviceAccountClient(ns, FULLNAME + "-ingest");
        KubernetesClient asProcessor = api.api().serviceAccountClient(ns, FULLNAME + "-processor");
        KubernetesClient asWriter = api.api().serviceAccountClient(ns, FULLNAME + "-writer")) {
      ledger.attack(
          API,
          "ingest creates a NetworkPolicy",
          "403",
          apiCall(
              () ->
                  asIngest
                      .network()
                      .v1()
                      .networkPolicies()
                      .inNamespace(NS)
                      .resource(
                          new NetworkPolicyBuilder()
                              .withNewMetadata()
                              .withName("allow-all")
                              .endMetadata()
                              .withNewSpec()
                              .endSpec()
                              .build())
                      .create()));
      ledger.attack(
          API,
          "ingest lists Secrets",
          "403",
          apiCall(() -> asIngest.secrets().inNamespace(ns).list()));
      ledger.attack(
          API,
          "the processor lists pods",
          "403",
          apiCall(() -> asProcessor.pods().inAnyNamespace().list()));
      ledger.attack(
          API,
          "the writer deletes a WorkloadNetworkPolicy",
          "403",
          apiCall(
              () ->
                  asWriter
                      .resources(WorkloadNetworkPolicy.class)
                      .inNamespace(NS)
                      .withName("deployment-catalog-ingress")
                      .delete()));
      ledger.legitimate(
          API, "ingest lists pods", "200", apiCall(() -> asIngest.pods().inAnyNamespace().list()));
      ledger.legitimate(
          API,
          "the writer lists WorkloadNetworkPolicies",
          "200",
          apiCall(() -> asWriter.resources(WorkloadNetworkPolicy.class).inAnyNamespace().list()));
    }
  }

  /**
   * The chart's default properties files (its own client certificate, cert-manager's PKCS#1 key) on
   * a broker that requires a certificate and authorizes by its subject: each component one step
   * beyond its ACLs, and a client without a certificate, with another CA's certificate named like
   * ingest, or in plain text, refused on every topic, internal topic and consumer group.
   */
  private static void kafka(ThreatLedger ledger) throws Exception {
    Map<String, Boolean> beyond = KafkaAttempts.beyondEachRow(kafka::client, REFUSALS);
    beyond.forEach(
        (what, refused) ->
            ledger.attack(
                KAFKA,
                what,
                "TopicAuthorizationException",
                refused ? "TopicAuthorizationException" : "accepted or another error"));

    // Strangers everywhere: every topic of the pipeline, every internal topic the running
    // processor created, written and read, and every consumer group's offsets read.
    Map<String, Properties> strangers = new LinkedHashMap<>();
    strangers.put("another CA's ingest", kafka.forged("ingest"));
    Properties noCertificate = kafka.client("ingest");
    noCertificate.keySet().removeIf(k -> k.toString().startsWith("ssl.keystore"));
    strangers.put("no certificate", noCertificate);
    Map<String, String> refusal =
        Map.of(
            "another CA's ingest", "SslAuthenticationException",
            "no certificate", "SslAuthenticationException");
    List<String> internal = internalTopics();
    List<String> groups = new ArrayList<>(List.of(MutualTlsKafka.APPLICATION_ID));
    groups.addAll(TopicAccess.writerGroups(MutualTlsKafka.WRITER_GROUPS));
    for (Map.Entry<String, Properties> stranger : strangers.entrySet()) {
      KafkaAttempts.everywhere(stranger.getKey(), stranger.getValue(), REFUSALS, internal, groups)
          .forEach(
              (what, observed) ->
                  ledger.attack(KAFKA, what, refusal.get(stranger.getKey()), observed));
    }
    // Plain text never gets past the TLS listener, whatever it aims at: one attempt stands for all
    // (each plain-text client reads the TLS alert's header as a 350 MB length and allocates it, so
    // dozens at once exhaust the test's heap).
    Properties plaintext = new Properties();
    plaintext.put("bootstrap.servers", kafka.bootstrapServers());
    try (KafkaProducer<byte[], byte[]> producer = KafkaAttempts.producer(plaintext)) {
      ledger.attack(
          KAFKA,
          "plain text writes " + REFUSALS.flows().name(),
          "TimeoutException",
          KafkaAttempts.sendFailure(producer, REFUSALS.flows().name()).getClass().getSimpleName());
    }
    // The same reads answered for the principals allowed them: the probes can succeed.
    ledger.legitimate(
        KAFKA,
        "processor reads " + internal.get(0),
        "read",
        KafkaAttempts.read(kafka.client("processor"), internal.get(0), null));
    String proposalsGroup = TopicAccess.writerGroups(MutualTlsKafka.WRITER_GROUPS).get(0);
    ledger.legitimate(
        KAFKA,
        "writer reads group " + proposalsGroup,
        "read",
        KafkaAttempts.read(kafka.client("writer"), REFUSALS.proposals().name(), proposalsGroup));

    Map<String, Topic<?, ?>> own = new LinkedHashMap<>();
    own.put("ingest", REFUSALS.flows());
    own.put("processor", REFUSALS.proposals());
    own.put("writer", REFUSALS.policies());
    for (Map.Entry<String, Topic<?, ?>> e : own.entrySet()) {
      String outcome;
      try (KafkaProducer<byte[], byte[]> producer =
          KafkaAttempts.producer(kafka.client(e.getKey()))) {
        KafkaAttempts.send(producer, e.getValue().name());
        outcome = "written";
      } catch (Exception refused) {
        outcome = refused.toString();
      }
      ledger.legitimate(KAFKA, e.getKey() + " writes " + e.getValue().name(), "written", outcome);
    }
    // Exactly the three legitimate records landed, one per topic; nothing of any attempt.
    try (KafkaConsumer<byte[], byte[]> admin =
        new KafkaConsumer<>(
            kafka.client(MutualTlsKafka.ADMIN),
            new ByteArrayDeserializer(),
            new ByteArrayDeserializer())) {
      List<TopicPartition> partitions =
          REFUSALS.all().stream().map(t -> new TopicPartition(t.name(), 0)).toList();
      Map<String, Long> landed = new LinkedHashMap<>();
      admin
          .endOffsets(partitions, Duration.ofSeconds(30))
          .forEach(
              (p, end) -> {
                if (end > 0) {
                  landed.put(p.topic(), end);
                }
              });
      assertThat(landed)
          .containsOnly(
              Map.entry(REFUSALS.flows().name(), 1L),
              Map.entry(REFUSALS.proposals().name(), 1L),
              Map.entry(REFUSALS.policies().name(), 1L));
    }
  }

  /**
   * The topics the running processor created under its application id: its loop topic, Kafka
   * Streams' repartition and changelog topics.
   */
  private static List<String> internalTopics() throws Exception {
    try (Admin admin = Admin.create(kafka.client(MutualTlsKafka.ADMIN))) {
      List<String> internal =
          admin.listTopics().names().get().stream()
              .filter(name -> name.startsWith(MutualTlsKafka.APPLICATION_ID + "-"))
              .sorted()
              .toList();
      System.out.println("the processor's internal topics: " + internal);
      return internal;
    }
  }

  // --- the parts, started as the chart starts them ---

  /**
   * The container's environment as the chart renders it (values only; the downward API's fields set
   * by hand), with the pod's mount directories moved to temporary ones holding what cert-manager
   * would write, the brokers and ports of this test, and the service account's token.
   */
  private static Map<String, String> env(String kind, String component) throws Exception {
    JsonNode container =
        chart
            .get(kind, FULLNAME + "-" + component)
            .path("spec")
            .path("template")
            .path("spec")
            .path("containers")
            .get(0);
    Path kafkaDir = kafka.mount(component);
    Map<String, String> env = new HashMap<>();
    for (JsonNode var : container.path("env")) {
      if (var.has("value")) {
        env.put(
            var.path("name").asText(),
            var.path("value")
                .asText()
                .replace(MutualTlsKafka.POD_DIR, kafkaDir.toString())
                .replace(POD_PROVIDER_DIR, dir.resolve(component + "-provider").toString()));
      }
    }
    assertThat(env)
        .containsEntry("NE_MANAGEMENT_AUTH", "kubernetes")
        .containsEntry("NE_KAFKA_CREATE_TOPICS", "false");
    env.remove("JAVA_TOOL_OPTIONS");
    env.put("NE_POD_NAME", component + "-0");
    env.put("NE_POD_NAMESPACE", ChartedApiServer.RELEASE_NAMESPACE);
    env.put("NE_KAFKA_BOOTSTRAP_SERVERS", kafka.bootstrapServers());
    env.put("NE_KAFKA_PARTITIONS", "1");
    env.put("NE_KAFKA_REPLICATION_FACTOR", "1");
    env.put("NE_MANAGEMENT_PORT", "0");
    env.put("NE_PROBE_PORT", "0");
    env.put(
        "NE_KUBECONFIG",
        api.api()
            .serviceAccountKubeconfig(
                ChartedApiServer.RELEASE_NAMESPACE, FULLNAME + "-" + component)
            .toString());
    return env;
  }

  /** What the flow dumper holds, flows and dropped records, drained by the management reader. */
  private static List<String> drainDumper() throws Exception {
    List<String> lines = new ArrayList<>();
    for (String path : List.of("/flow", "/flow?dropped=true")) {
      HttpResponse<String> response = get(dumperPort, path, operator);
      assertThat(response.statusCode()).as(path).isEqualTo(200);
      response.body().lines().filter(l -> !l.isBlank()).forEach(lines::add);
    }
    return lines;
  }

  private static String apiCall(Runnable call) {
    try {
      call.run();
      return "200";
    } catch (KubernetesClientException e) {
      return Integer.toString(e.getCode());
    }
  }

  private static String status(HttpResponse<String> response) {
    return Integer.toString(response.statusCode());
  }

  private static HttpResponse<String> get(int port, String path, String token) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(10));
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
