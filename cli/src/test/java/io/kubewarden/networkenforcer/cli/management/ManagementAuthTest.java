package io.kubewarden.networkenforcer.cli.management;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.cli.RunningCommand;
import io.kubewarden.networkenforcer.embedded.EmbeddedKafkaBroker;
import io.kubewarden.networkenforcer.testing.ChartedApiServer;
import java.io.InputStream;
import java.io.OutputStream;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The management port behind Kubernetes authentication and authorization, on a real API server with
 * the chart's RBAC: the real {@code processor} command runs as the chart's processor service
 * account, and clients present tokens the API server issued (TokenRequest) for service accounts an
 * operator bound to the chart's reader ClusterRoles. Here: which port serves what, and that one
 * stalled client stalls nobody; every refusal (401, 403, the flow dumper) and every reader served
 * are rows of {@code security.ThreatModelTest}.
 */
class ManagementAuthTest {
  private static final String RELEASE = ChartedApiServer.KUBERNETES;
  private static final String FULLNAME = RELEASE + "-network-enforcer";
  private static final String MONITORING = "monitoring";
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  static EmbeddedKafkaBroker broker;
  static ChartedApiServer cluster;
  static RunningCommand processor;
  static int managementPort;
  static int probePort;
  static String prometheus;
  static String operator;

  @BeforeAll
  static void start() throws Exception {
    broker = EmbeddedKafkaBroker.startDefault();
    cluster = ChartedApiServer.start("demo");
    cluster.createNamespace(MONITORING);
    // What the chart README tells an operator to do: bind the reader ClusterRoles.
    prometheus =
        cluster.boundServiceAccount(MONITORING, "prometheus", FULLNAME + "-metrics-reader");
    operator = cluster.boundServiceAccount(MONITORING, "operator", FULLNAME + "-management-reader");

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
    processor = RunningCommand.start(env, "processor", "kafka-streams ok");
    managementPort = processor.managementPort();
    probePort = processor.probePort();
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (processor != null) {
        processor.close();
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
}
