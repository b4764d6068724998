package io.kubewarden.networkenforcer.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.kubewarden.networkenforcer.cli.compose.HubbleRelayStandIn;
import io.kubewarden.networkenforcer.cli.compose.SampleCluster;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicy;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.common.policy.Labels;
import io.kubewarden.networkenforcer.embedded.EmbeddedKafkaBroker;
import io.kubewarden.networkenforcer.testing.ChartedApiServer;
import io.kubewarden.networkenforcer.testing.LoopbackPorts;
import java.io.IOException;
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
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * What ships, run as a user runs it: every command of {@code cli/target/network-enforcer.jar},
 * started by the {@code ./network-enforcer} launcher as a process of its own, against a real
 * kube-apiserver prepared like an installed chart (CRDs, RBAC, admission policies; the services use
 * the chart's service accounts) and one embedded broker for the distributed services. The services
 * come up, turn the flows of a Hubble Relay stand-in into the proposals {@code learn} makes of the
 * same capture, and stop on SIGTERM. Runs after {@code package} (failsafe), so the jar tested is
 * the one built.
 *
 * <p>Order matters: standalone and the distributed services write the same proposals, the history
 * commands read the flows the distributed ingest published.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ShippedJarIT {
  private static final Path JAR = CliRun.repoRoot().resolve("cli/target/network-enforcer.jar");
  private static final Path LAUNCHER = CliRun.repoRoot().resolve("network-enforcer");
  private static final String NS = ChartedApiServer.RELEASE_NAMESPACE;
  private static final String RELEASE = ChartedApiServer.KUBERNETES;
  private static final Duration START = Duration.ofMinutes(3);
  private static final Duration PIPELINE = Duration.ofMinutes(3);

  /** The README's diff example. */
  private static final String SERVER_PROPOSAL = "demo/deployment-http-server-ingress";

  @TempDir static Path dir;

  static ChartedApiServer cluster;
  static EmbeddedKafkaBroker broker;
  static HubbleRelayStandIn relay;
  static Map<String, WorkloadNetworkPolicyProposal> learned;
  static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
  static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  @BeforeAll
  static void start() throws Exception {
    assertThat(JAR).as("the packaged jar (./mvnw package builds it before failsafe runs)").exists();
    cluster = ChartedApiServer.start("demo");
    SampleCluster.create(cluster.admin(), CliRun.sample("cluster-state.json"));
    broker = EmbeddedKafkaBroker.startDefault();
    relay = HubbleRelayStandIn.serve(CliRun.sample("hubble-flows.jsonl"), "127.0.0.1");
  }

  @AfterAll
  static void stop() throws Exception {
    if (relay != null) {
      relay.close();
    }
    if (broker != null) {
      broker.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  @Order(1)
  void learnWritesTheProposalsOfTheSample() throws Exception {
    Path out = dir.resolve("learned");
    Run run =
        Run.toEnd(
            Map.of(),
            "learn",
            "--input",
            CliRun.sample("hubble-flows.jsonl").toString(),
            "--output-dir",
            out.toString());
    assertThat(run.exitCode()).as(run.output()).isZero();
    learned = proposalFiles(out);
    assertThat(learned.keySet())
        .containsExactly(
            "demo/deployment-http-client-egress",
            SERVER_PROPOSAL,
            "kube-system/deployment-coredns-ingress");
  }

  @Test
  @Order(2)
  void standaloneTurnsRelayFlowsIntoTheSameProposalsOnTheApiServer() throws Exception {
    int management = LoopbackPorts.free();
    try (Service standalone =
        Service.start(
            "standalone",
            Map.of(),
            "standalone",
            "--kubeconfig",
            cluster.api().kubeconfig().toString(),
            "--pod-namespace",
            NS,
            "--pod-name",
            "standalone-0",
            "--lease-name",
            ChartedApiServer.leaseName(RELEASE),
            "--data-dir",
            dir.resolve("standalone").toString(),
            "--management-port",
            String.valueOf(management),
            "--embedded-kafka-port",
            "0",
            "--kafka-partitions",
            "2",
            "--provider",
            "cilium",
            "--hubble-endpoint",
            "127.0.0.1:" + relay.port(),
            "--provider-tls-mode",
            "insecure",
            "--evidence-flush-interval",
            "500ms",
            "--status-sync-interval",
            "2s")) {
      standalone.awaitReady("kafka-streams ok", "ingest ok", "writer ok");
      awaitTheLearnedProposalsInTheCluster(standalone);
      standalone.stopWithSigterm();
    }
  }

  @Test
  @Order(3)
  void ingestProcessorAndWriterTurnRelayFlowsIntoProposalsAndPromoteOne() throws Exception {
    // Standalone wrote the same proposals: start from none, so that these come from the services
    // below.
    // No writer runs now: the proposals keep the writer's finalizer until the command the chart's
    // uninstall hook runs takes it off.
    Run released =
        Run.toEnd(
            Map.of(), "release-finalizers", "--kubeconfig", cluster.api().kubeconfig().toString());
    assertThat(released.exitCode()).as(released.output()).isZero();
    assertThat(released.output()).contains("finalizer removed from 3 proposal(s)");
    KubernetesClient admin = cluster.admin();
    admin.resources(WorkloadNetworkPolicyProposal.class).inAnyNamespace().delete();
    await().atMost(Duration.ofMinutes(1)).until(() -> proposalsInTheCluster().isEmpty());

    Map<String, String> kafka =
        Map.of(
            "NE_KAFKA_BOOTSTRAP_SERVERS",
            broker.bootstrapServers(),
            "NE_KAFKA_REPLICATION_FACTOR",
            "1",
            "NE_KAFKA_PARTITIONS",
            "2",
            "NE_PROVIDER",
            "cilium");
    int processorPort = LoopbackPorts.free();
    int writerPort = LoopbackPorts.free();
    int ingestPort = LoopbackPorts.free();
    try (Service processor =
            Service.start(
                "processor",
                kafka,
                "processor",
                "--state-dir",
                dir.resolve("processor-state").toString(),
                "--management-port",
                String.valueOf(processorPort),
                "--processing-guarantee",
                "at_least_once",
                "--evidence-flush-interval",
                "500ms");
        Service writer =
            Service.start(
                "writer",
                kafka,
                "writer",
                "--kubeconfig",
                cluster
                    .api()
                    .serviceAccountKubeconfig(NS, RELEASE + "-network-enforcer-writer")
                    .toString(),
                "--pod-namespace",
                NS,
                "--pod-name",
                "writer-0",
                "--lease-name",
                ChartedApiServer.leaseName(RELEASE),
                "--management-port",
                String.valueOf(writerPort),
                "--status-sync-interval",
                "2s");
        Service ingest =
            Service.start(
                "ingest",
                kafka,
                "ingest",
                "--kubeconfig",
                cluster
                    .api()
                    .serviceAccountKubeconfig(NS, RELEASE + "-network-enforcer-ingest")
                    .toString(),
                "--hubble-endpoint",
                "127.0.0.1:" + relay.port(),
                "--provider-tls-mode",
                "insecure",
                "--management-port",
                String.valueOf(ingestPort))) {
      processor.awaitReady("kafka-streams ok");
      writer.awaitReady("writer ok");
      ingest.awaitReady("ingest ok");
      awaitTheLearnedProposalsInTheCluster(writer);

      // A second writer stands by: Ready (it can take the lease over), not leading, writing
      // nothing.
      int standbyPort = LoopbackPorts.free();
      try (Service standby =
          Service.start(
              "writer-standby",
              kafka,
              "writer",
              "--kubeconfig",
              cluster
                  .api()
                  .serviceAccountKubeconfig(NS, RELEASE + "-network-enforcer-writer")
                  .toString(),
              "--pod-namespace",
              NS,
              "--pod-name",
              "writer-1",
              "--lease-name",
              ChartedApiServer.leaseName(RELEASE),
              "--management-port",
              String.valueOf(standbyPort),
              "--status-sync-interval",
              "2s")) {
        standby.awaitReady("writer ok");
        String leader = "network_enforcer_writer_leader\\{[^}]*\\} ";
        assertThat(Service.get(standbyPort, "/metrics")).containsPattern(leader + "0\\.0");
        assertThat(Service.get(writerPort, "/metrics")).containsPattern(leader + "1\\.0");
        standby.stopWithSigterm("writer");
      }

      // The README's diff: a proposal of the learn run against the cluster's
      // WorkloadNetworkPolicies.
      Path proposalFile = dir.resolve("learned").resolve(SERVER_PROPOSAL + ".yaml");
      Run before =
          Run.toEnd(
              Map.of(),
              "diff",
              "--proposal",
              proposalFile.toString(),
              "--kubeconfig",
              cluster.api().kubeconfig().toString());
      // No policy yet: the target is only in the proposals, everything added: a difference (exit
      // 3).
      assertThat(before.exitCode()).as(before.output()).isEqualTo(3);
      assertThat(before.stdout())
          .startsWith(
              "Compared 1 proposal with 0 policies from the cluster at "
                  + cluster.api().url()
                  + "/: 0 targets in both (0 different), 1 only in the proposals, 0 only in the policies.\n")
          .contains(
              "Only in the proposals (no policy for the target yet; everything is added):\n"
                  + "demo/Deployment/http-server Ingress: WorkloadNetworkPolicyProposal "
                  + SERVER_PROPOSAL
                  + "\n");

      // Promoted, the writer makes it a policy; the same connectivity as the learned proposal.
      admin
          .resources(WorkloadNetworkPolicyProposal.class)
          .inNamespace("demo")
          .withName("deployment-http-server-ingress")
          .edit(
              p -> {
                Map<String, String> labels =
                    new HashMap<>(
                        p.getMetadata().getLabels() == null
                            ? Map.of()
                            : p.getMetadata().getLabels());
                labels.put(Labels.PROMOTE, "monitor");
                p.getMetadata().setLabels(labels);
                return p;
              });
      await()
          .atMost(PIPELINE)
          .until(
              () ->
                  !admin
                      .resources(WorkloadNetworkPolicy.class)
                      .inNamespace("demo")
                      .list()
                      .getItems()
                      .isEmpty());
      Run after =
          Run.toEnd(
              Map.of(),
              "diff",
              "--proposal",
              proposalFile.toString(),
              "--kubeconfig",
              cluster.api().kubeconfig().toString());
      assertThat(after.exitCode()).as(after.output()).isZero();
      assertThat(after.stdout())
          .startsWith(
              "Compared 1 proposal with 1 policy from the cluster at "
                  + cluster.api().url()
                  + "/: 1 target in both (0 different), 0 only in the proposals, 0 only in the policies.\n");

      ingest.stopWithSigterm();
      writer.stopWithSigterm();
      processor.stopWithSigterm();
    }
  }

  @Test
  @Order(4)
  void simulateFromTheFlowsTopicReportsTheDenialsOfAPolicy() throws Exception {
    Path policy =
        Files.writeString(
            dir.resolve("deny-http-server.yaml"),
            """
        kind: NetworkPolicy
        metadata: {name: deny-all, namespace: demo}
        spec:
          podSelector: {matchLabels: {app: http-server}}
          policyTypes: [Ingress]
        """);
    Run run =
        Run.toEnd(
            Map.of(),
            "simulate",
            "--policy",
            policy.toString(),
            "--from",
            "1h",
            "--kafka-bootstrap-servers",
            broker.bootstrapServers(),
            "-o",
            "json");
    assertThat(run.exitCode()).as(run.output()).isEqualTo(3);
    JsonNode report = Json.mapper().readTree(run.stdout());
    List<String> denied = new ArrayList<>();
    report
        .path("denied")
        .forEach(
            d ->
                denied.add(
                    d.path("peer").asText()
                        + " "
                        + d.path("protocol").asText()
                        + "/"
                        + d.path("port").asInt()));
    // The sample's two connections to the server: TCP 18080 and UDP 18081.
    assertThat(denied)
        .containsExactly(
            "demo/Deployment/http-client TCP/18080", "demo/Deployment/http-client UDP/18081");
  }

  @Test
  @Order(5)
  void replayRebuildsTheProposalsFromTheFlowsTopic() throws Exception {
    Path out = dir.resolve("replayed");
    Run run =
        Run.toEnd(
            Map.of(),
            "replay",
            "--from",
            "1h",
            "--provider",
            "cilium",
            "--kafka-bootstrap-servers",
            broker.bootstrapServers(),
            "--output-dir",
            out.toString());
    assertThat(run.exitCode()).as(run.output()).isZero();
    Map<String, WorkloadNetworkPolicyProposal> replayed = proposalFiles(out);
    assertThat(replayed.keySet()).isEqualTo(learned.keySet());
    learned.forEach(
        (name, p) ->
            assertThat(replayed.get(name).getSpec().sameAllowListAs(p.getSpec()))
                .as(name)
                .isTrue());
  }

  private static void awaitTheLearnedProposalsInTheCluster(Service service) {
    await("the sample's proposals in the API server")
        .atMost(PIPELINE)
        .pollInterval(Duration.ofSeconds(1))
        .untilAsserted(
            () -> {
              assertThat(service.isAlive()).as(service::log).isTrue();
              Map<String, WorkloadNetworkPolicyProposal> stored = proposalsInTheCluster();
              assertThat(stored.keySet()).isEqualTo(learned.keySet());
              learned.forEach(
                  (name, p) ->
                      assertThat(stored.get(name).getSpec().sameAllowListAs(p.getSpec()))
                          .as(name)
                          .isTrue());
            });
  }

  private static Map<String, WorkloadNetworkPolicyProposal> proposalsInTheCluster() {
    return cluster
        .admin()
        .resources(WorkloadNetworkPolicyProposal.class)
        .inAnyNamespace()
        .list()
        .getItems()
        .stream()
        .collect(
            Collectors.toMap(
                p -> p.getMetadata().getNamespace() + "/" + p.getMetadata().getName(),
                p -> p,
                (a, b) -> a,
                TreeMap::new));
  }

  private static Map<String, WorkloadNetworkPolicyProposal> proposalFiles(Path out)
      throws IOException {
    Map<String, WorkloadNetworkPolicyProposal> found = new TreeMap<>();
    try (Stream<Path> files = Files.walk(out)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".yaml")).toList()) {
        WorkloadNetworkPolicyProposal p =
            SERIALIZATION.unmarshal(Files.readString(file), WorkloadNetworkPolicyProposal.class);
        found.put(p.getMetadata().getNamespace() + "/" + p.getMetadata().getName(), p);
      }
    }
    return found;
  }

  /** The launcher with the built jar, in a clean environment plus {@code env}. */
  private static ProcessBuilder launcher(Map<String, String> env, Path log, String... args) {
    List<String> command = new ArrayList<>(List.of("bash", LAUNCHER.toString()));
    command.addAll(List.of(args));
    ProcessBuilder pb =
        new ProcessBuilder(command)
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    Map<String, String> environment = pb.environment();
    environment.keySet().removeIf(k -> k.startsWith("NE_") || k.equals("KUBECONFIG"));
    environment.put("NE_JAR", JAR.toString());
    environment.put("NE_CACHE_DIR", dir.resolve("cache").toString());
    environment.putAll(env);
    return pb;
  }

  /** A command run to its end. */
  private record Run(int exitCode, String stdout, String output) {
    static Run toEnd(Map<String, String> env, String... args) throws Exception {
      Path log = Files.createTempFile(dir, args[0], ".log");
      Path out = Files.createTempFile(dir, args[0], ".out");
      ProcessBuilder pb =
          launcher(env, log, args)
              .redirectErrorStream(false)
              .redirectOutput(out.toFile())
              .redirectError(log.toFile());
      Process p = pb.start();
      if (!p.waitFor(3, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        throw new AssertionError(
            String.join(" ", args) + " did not end within 3 minutes: " + Files.readString(log));
      }
      String stdout = Files.readString(out);
      return new Run(
          p.exitValue(), stdout, "stdout:\n" + stdout + "\nstderr:\n" + Files.readString(log));
    }
  }

  /** A service process: started, probed over HTTP, stopped with SIGTERM (as the kubelet does). */
  private static final class Service implements AutoCloseable {
    private final String name;
    private final Process process;
    private final Path log;
    private final int probePort;

    private Service(String name, Process process, Path log, int probePort) {
      this.name = name;
      this.process = process;
      this.log = log;
      this.probePort = probePort;
    }

    /**
     * Each service on a probe port of its own (the default 8081 would be shared by every process
     * here); the management port open to this test: ManagementAuthTest checks the token review on
     * the real processor command.
     */
    static Service start(String name, Map<String, String> env, String... args) throws IOException {
      Path log = dir.resolve(name + ".log");
      int probePort = LoopbackPorts.free();
      List<String> all = new ArrayList<>(List.of(args));
      all.addAll(List.of("--probe-port", String.valueOf(probePort), "--management-auth", "none"));
      return new Service(
          name,
          launcher(new HashMap<>(env), log, all.toArray(String[]::new)).start(),
          log,
          probePort);
    }

    boolean isAlive() {
      return process.isAlive();
    }

    String log() {
      try {
        String all = Files.readString(log, StandardCharsets.UTF_8);
        return name + " log:\n" + all.substring(Math.max(0, all.length() - 20_000));
      } catch (IOException e) {
        return name + ": no log (" + e + ")";
      }
    }

    /** /readyz answers 200 with every line given, and /healthz 200, on the probe port. */
    void awaitReady(String... readyLines) {
      int port = probePort;
      await(name + " ready")
          .atMost(START)
          .pollInterval(Duration.ofMillis(500))
          .untilAsserted(
              () -> {
                assertThat(process.isAlive()).as(this::log).isTrue();
                assertThat(get(port, "/readyz")).startsWith("200 ");
              });
      assertThat(get(port, "/readyz")).contains(readyLines);
      assertThat(get(port, "/healthz")).startsWith("200 ");
    }

    /** SIGTERM: the JVM runs the shutdown hook (the service stops its parts) and exits with 143. */
    void stopWithSigterm() throws Exception {
      stopWithSigterm(name);
    }

    /**
     * @param command the command's name, which its shutdown log line starts with
     */
    void stopWithSigterm(String command) throws Exception {
      process.destroy();
      assertThat(process.waitFor(2, TimeUnit.MINUTES)).as(this::log).isTrue();
      assertThat(process.exitValue()).as(this::log).isEqualTo(143);
      assertThat(log()).contains(command + ": stopping").doesNotContain("Exception in thread");
    }

    @Override
    public void close() throws Exception {
      if (process.isAlive()) {
        process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      }
    }

    private static String get(int port, String path) {
      try {
        HttpResponse<String> r =
            HTTP.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                    .timeout(Duration.ofSeconds(5))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        return r.statusCode() + " " + r.body();
      } catch (IOException e) {
        return "no answer: " + e;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return "interrupted";
      }
    }
  }
}
