package io.kubewarden.networkenforcer.cli.management;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubewarden.networkenforcer.cli.CliRun;
import io.kubewarden.networkenforcer.cli.services.CaughtUpPage;
import io.kubewarden.networkenforcer.cli.services.ServiceRunner;
import io.kubewarden.networkenforcer.common.http.KubernetesAccessCheck;
import io.kubewarden.networkenforcer.embedded.EmbeddedKafkaBroker;
import io.kubewarden.networkenforcer.ingest.dumper.FlowDumper;
import io.kubewarden.networkenforcer.ingest.dumper.FlowDumperServer;
import io.kubewarden.networkenforcer.testing.ChartedApiServer;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The management port behind Kubernetes authentication and authorization, on a real API server with
 * the chart's RBAC: the real {@code processor} command runs as the chart's processor service
 * account (so its TokenReviews and SubjectAccessReviews need exactly what the chart grants), and
 * clients present tokens the API server issued (TokenRequest) for service accounts an operator
 * bound, or did not bind, to the chart's reader ClusterRoles.
 */
class ManagementAuthTest {
  private static final String RELEASE = ChartedApiServer.KUBERNETES;
  private static final String FULLNAME = RELEASE + "-network-enforcer";
  private static final String MONITORING = "monitoring";
  private static final Duration WAIT = Duration.ofMinutes(2);
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  static EmbeddedKafkaBroker broker;
  static ChartedApiServer cluster;
  static CompletableFuture<CliRun> processor;
  static int managementPort;
  static int probePort;
  static String prometheus;
  static String operator;
  static String intruder;
  static String ingest;

  @BeforeAll
  static void start() throws Exception {
    broker = EmbeddedKafkaBroker.startDefault();
    cluster = ChartedApiServer.start("demo");
    KubernetesClient admin = cluster.admin();
    admin
        .namespaces()
        .resource(
            new NamespaceBuilder().withNewMetadata().withName(MONITORING).endMetadata().build())
        .create();
    for (String name : List.of("prometheus", "operator", "intruder")) {
      admin
          .serviceAccounts()
          .inNamespace(MONITORING)
          .resource(
              new ServiceAccountBuilder().withNewMetadata().withName(name).endMetadata().build())
          .create();
    }
    // What the chart README tells an operator to do: bind the reader ClusterRoles.
    bind(admin, "prometheus", FULLNAME + "-metrics-reader");
    bind(admin, "operator", FULLNAME + "-management-reader");
    prometheus = token(MONITORING, "prometheus");
    operator = token(MONITORING, "operator");
    intruder = token(MONITORING, "intruder");
    ingest = token(ChartedApiServer.RELEASE_NAMESPACE, FULLNAME + "-ingest");

    Path state = Files.createTempDirectory("ne-management-auth-");
    Map<String, String> env = new HashMap<>();
    env.put("NE_KAFKA_BOOTSTRAP_SERVERS", broker.bootstrapServers());
    env.put("NE_KAFKA_REPLICATION_FACTOR", "1");
    env.put("NE_KAFKA_PARTITIONS", "1");
    env.put("NE_MANAGEMENT_PORT", "0");
    env.put("NE_PROBE_PORT", "0");
    env.put("NE_PROVIDER", "calico");
    env.put("NE_STATE_DIR", state.toString());
    // NE_MANAGEMENT_AUTH unset: the default, kubernetes.
    env.put(
        "NE_KUBECONFIG",
        cluster
            .api()
            .serviceAccountKubeconfig(ChartedApiServer.RELEASE_NAMESPACE, FULLNAME + "-processor")
            .toString());
    processor = CompletableFuture.supplyAsync(() -> CliRun.run(env, "processor"));
    await().atMost(WAIT).until(() -> processor.isDone() || !ServiceRunner.active().isEmpty());
    assertThat(processor.isDone())
        .as(() -> "the processor ended early: " + processor.join().err())
        .isFalse();
    managementPort = ServiceRunner.active().iterator().next().managementPort();
    probePort = ServiceRunner.active().iterator().next().probePort();
    await().atMost(WAIT).until(() -> get(probePort, "/readyz", null).statusCode() == 200);
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (processor != null) {
        ServiceRunner.stopAll();
        CliRun result = processor.get(2, TimeUnit.MINUTES);
        assertThat(result.exitCode()).as(result.err()).isZero();
      }
    } finally {
      if (cluster != null) {
        cluster.close();
      }
      if (broker != null) {
        broker.close();
      }
    }
  }

  @Test
  void probesAnswerAnyoneOnTheirOwnPortOnly() throws Exception {
    assertThat(get(probePort, "/healthz", null).statusCode()).isEqualTo(200);
    assertThat(get(probePort, "/readyz", null).body()).contains("kafka-streams ok");
    assertThat(get(probePort, "/metrics", null).statusCode())
        .as("no metrics on the open port")
        .isEqualTo(404);
    assertThat(get(managementPort, "/healthz", operator).statusCode())
        .as("no probes on the guarded port")
        .isEqualTo(404);
  }

  @Test
  void anonymousAndUnauthorizedRequestsAreRefused() throws Exception {
    record Attempt(String who, String token, String path, int expected) {}
    List<Attempt> attempts =
        List.of(
            new Attempt("anonymous", null, "/metrics", 401),
            new Attempt("anonymous", null, CaughtUpPage.PATH, 401),
            new Attempt("a made-up token", "eyJhbGciOiJSUzI1NiJ9.e30.c2ln", "/metrics", 401),
            new Attempt("a service account nobody bound", intruder, "/metrics", 403),
            new Attempt("a service account nobody bound", intruder, CaughtUpPage.PATH, 403),
            new Attempt("ingest's own service account", ingest, "/metrics", 403),
            new Attempt("the metrics reader beyond /metrics", prometheus, CaughtUpPage.PATH, 403));
    List<String> outcomes = new ArrayList<>();
    int refused = 0;
    for (Attempt a : attempts) {
      HttpResponse<String> response = get(managementPort, a.path(), a.token());
      outcomes.add(a.who() + " GET " + a.path() + " -> " + response.statusCode());
      if (response.statusCode() == a.expected()) {
        refused++;
      }
      assertThat(response.body())
          .as("nothing of the page leaks")
          .doesNotContain("jvm_", "caughtUp");
      if (response.statusCode() == 401) {
        assertThat(response.headers().firstValue("WWW-Authenticate"))
            .contains("Bearer realm=\"network-enforcer\"");
      }
    }
    System.out.println(
        "management endpoints: attempts refused: " + refused + " of " + attempts.size());
    assertThat(outcomes)
        .containsExactlyElementsOf(
            attempts.stream()
                .map(a -> a.who() + " GET " + a.path() + " -> " + a.expected())
                .toList());
    assertThat(get(managementPort, "/metrics", intruder).body())
        .contains("system:serviceaccount:monitoring:intruder")
        .contains("may not get /metrics");
  }

  @Test
  void boundReadersAreServed() throws Exception {
    HttpResponse<String> metrics = get(managementPort, "/metrics", prometheus);
    assertThat(metrics.statusCode()).isEqualTo(200);
    assertThat(metrics.body()).contains("service=\"processor\"");
    HttpResponse<String> caughtUp = get(managementPort, CaughtUpPage.PATH, operator);
    assertThat(caughtUp.statusCode()).isEqualTo(200);
    assertThat(caughtUp.body()).startsWith("{\"caughtUp\":");
    assertThat(get(managementPort, "/metrics", operator).statusCode()).isEqualTo(200);
  }

  @Test
  void theFlowDumperIsGuardedTheSameWay() throws Exception {
    FlowDumper dumper = new FlowDumper(10);
    try (KubernetesClient asIngest =
            cluster
                .api()
                .serviceAccountClient(ChartedApiServer.RELEASE_NAMESPACE, FULLNAME + "-ingest");
        FlowDumperServer server =
            new FlowDumperServer(
                    dumper,
                    new InetSocketAddress("127.0.0.1", 0),
                    new KubernetesAccessCheck(asIngest))
                .start()) {
      assertThat(get(server.port(), "/flow", null).statusCode()).isEqualTo(401);
      assertThat(get(server.port(), "/flow", intruder).statusCode()).isEqualTo(403);
      assertThat(get(server.port(), "/flow", prometheus).statusCode()).isEqualTo(403);
      assertThat(get(server.port(), "/flow", operator).statusCode()).isEqualTo(200);
      System.out.println("flow dumper: attempts refused: 3 of 3");
    }
  }

  /**
   * A client that starts a request and never finishes it holds one thread of a port, not the port:
   * the probes and a scrape still answer at once, and the server drops the stalled connection after
   * its request time limit.
   */
  @Test
  void aSlowClientStallsNobody() throws Exception {
    try (Socket slowProbe = startRequestAndStall(probePort, "/healthz");
        Socket slowScrape = startRequestAndStall(managementPort, "/metrics")) {
      long start = System.nanoTime();
      assertThat(get(probePort, "/healthz", null).statusCode()).isEqualTo(200);
      assertThat(get(probePort, "/readyz", null).statusCode()).isEqualTo(200);
      assertThat(get(managementPort, "/metrics", prometheus).statusCode()).isEqualTo(200);
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));

      for (Socket slow : List.of(slowProbe, slowScrape)) {
        slow.setSoTimeout((int) Duration.ofSeconds(30).toMillis());
        long waiting = System.nanoTime();
        assertThat(closedByServer(slow.getInputStream()))
            .as("the server closed the stalled request")
            .isTrue();
        // The JDK server's request limit (10 s) plus its timer tick (1 s), from the request's
        // start.
        assertThat(Duration.ofNanos(System.nanoTime() - waiting))
            .isLessThan(Duration.ofSeconds(15));
      }
    }
  }

  private static Socket startRequestAndStall(int port, String path) throws Exception {
    Socket socket = new Socket("127.0.0.1", port);
    OutputStream out = socket.getOutputStream();
    // The request line and one header, never the blank line that ends the headers.
    out.write(
        ("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n").getBytes(StandardCharsets.US_ASCII));
    out.flush();
    return socket;
  }

  /** True when the server ends the connection (end of stream or reset) without answering. */
  private static boolean closedByServer(InputStream in) throws Exception {
    try {
      return in.read() == -1;
    } catch (SocketException reset) {
      return true;
    }
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

  private static String token(String namespace, String serviceAccount) {
    return cluster
        .admin()
        .serviceAccounts()
        .inNamespace(namespace)
        .withName(serviceAccount)
        .tokenRequest(
            new TokenRequestBuilder().withNewSpec().withExpirationSeconds(3600L).endSpec().build())
        .getStatus()
        .getToken();
  }

  private static void bind(KubernetesClient admin, String serviceAccount, String clusterRole) {
    admin
        .rbac()
        .clusterRoleBindings()
        .resource(
            new ClusterRoleBindingBuilder()
                .withNewMetadata()
                .withName(serviceAccount + "-" + clusterRole)
                .endMetadata()
                .withNewRoleRef()
                .withApiGroup("rbac.authorization.k8s.io")
                .withKind("ClusterRole")
                .withName(clusterRole)
                .endRoleRef()
                .addNewSubject()
                .withKind("ServiceAccount")
                .withName(serviceAccount)
                .withNamespace(MONITORING)
                .endSubject()
                .build())
        .create();
  }
}
