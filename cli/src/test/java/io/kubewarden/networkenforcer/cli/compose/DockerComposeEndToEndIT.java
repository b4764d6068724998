package io.kubewarden.networkenforcer.cli.compose;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.security.auth.module.UnixSystem;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.kubewarden.networkenforcer.cli.CliRun;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.testing.KubeApiServer;
import io.kubewarden.networkenforcer.testing.ProjectCrds;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's docker-compose run, for real: {@code docker compose up} of the repository's
 * docker-compose.yml with the project image and the local Kafka image, against
 *
 * <ul>
 *   <li>the real kube-apiserver harness on the host, through a kubeconfig written with mode 0600 as
 *       kubectl writes it (the containers must still read it), holding the sample's workloads;
 *   <li>a Hubble Relay stand-in on the host serving the sample capture over {@code GetFlows},
 *       reached as {@code host.docker.internal} with {@code NE_PROVIDER_TLS_MODE=insecure}.
 * </ul>
 *
 * The proposals {@code learn} makes of the sample must appear in the API server, and every service
 * must answer {@code /readyz} on its published port. Host-side servers listen on the Docker
 * bridge's local address only; an override publishes the file's ports on 127.0.0.1 (ephemeral host
 * ports, so parallel builds do not collide). {@code docker compose down --volumes} runs at the end,
 * also when something failed. Needs a Docker engine, the images and Compose v2: {@code
 * hack/tools/docker.sh}.
 */
class DockerComposeEndToEndIT {
  /** The probe port (/readyz) of each service in its container. */
  private static final Map<String, Integer> PROBE_PORTS =
      Map.of("ingest", 8081, "processor", 8081, "writer", 8081);

  private static final Duration PIPELINE_DEADLINE = Duration.ofMinutes(8);

  @TempDir static Path dir;

  static KubeApiServer api;
  static HubbleRelayStandIn relay;
  static ComposeProject compose;

  @BeforeAll
  static void start() throws Exception {
    String bridge = DockerBridge.hostAddress();
    api = KubeApiServer.builder().bindAddress(bridge).start();
    ProjectCrds.install(api.client(), Duration.ofSeconds(60));
    SampleCluster.create(api.client(), CliRun.sample("cluster-state.json"));
    relay = HubbleRelayStandIn.serve(CliRun.sample("hubble-flows.jsonl"), bridge);

    Path composeFile = CliRun.repoRoot().resolve("docker-compose.yml");
    Path override =
        LoopbackPublishing.writeOverride(composeFile, dir.resolve("loopback-ports.yml"));
    Map<String, String> variables = new LinkedHashMap<>();
    variables.put("NE_IMAGE", System.getProperty("ne.test.image"));
    variables.put("NE_KAFKA_IMAGE", System.getProperty("ne.test.kafka.image"));
    variables.put("KUBECONFIG", privateKubeconfig(api.kubeconfig()).toString());
    variables.put("NE_PROVIDER", "cilium");
    variables.put("NE_PROVIDER_TLS_MODE", "insecure");
    variables.put("NE_HUBBLE_ENDPOINT", "host.docker.internal:" + relay.port());
    variables.put("NE_NAMESPACE", "default");
    // Not root: the user who owns the 0600 kubeconfig, as the compose file tells people to run it.
    variables.put("NE_USER", new UnixSystem().getUid() + ":" + new UnixSystem().getGid());
    variables
        .values()
        .forEach(
            v -> assertThat(v).as("set by the failsafe configuration of cli/pom.xml").isNotNull());
    compose =
        new ComposeProject(
            "ne-compose-it-" + ProcessHandle.current().pid(),
            List.of(composeFile, override),
            variables);
    try {
      compose.up();
    } catch (RuntimeException e) {
      stop();
      throw e;
    }
  }

  @AfterAll
  static void stop() {
    try {
      if (compose != null) {
        printLogs();
        compose.close();
        assertThat(compose.containers()).as("containers left after docker compose down").isEmpty();
      }
    } finally {
      closeHostServers();
    }
  }

  @Test
  void theSampleBecomesTheSameProposalsInTheApiServerAsLearnMakes() throws Exception {
    Map<String, WorkloadNetworkPolicyProposal> expected = learnedFromTheSample();
    assertThat(expected).hasSize(3);
    KubernetesClient admin = api.client();
    // The writer updates a proposal as evidence arrives: wait until all of them are what learn
    // made.
    await("the sample's proposals in the API server")
        .atMost(PIPELINE_DEADLINE)
        .pollInterval(Duration.ofSeconds(2))
        .untilAsserted(
            () -> {
              Map<String, WorkloadNetworkPolicyProposal> stored = proposalsIn(admin);
              assertThat(stored.keySet()).isEqualTo(expected.keySet());
              KubernetesSerialization json = admin.getKubernetesSerialization();
              expected.forEach(
                  (name, learned) -> {
                    var spec = stored.get(name).getSpec();
                    assertThat(spec.sameAllowListAs(learned.getSpec()))
                        .as(
                            "%s in the API server:%n%s%nlearned:%n%s",
                            name, json.asJson(spec), json.asJson(learned.getSpec()))
                        .isTrue();
                  });
            });
    // At least one, not exactly one: the ingest reconnects (and resumes with `since`) whenever a
    // stream
    // ends, and the compose restart policy may restart it on a loaded machine; the exact figures
    // that
    // matter are the proposals above.
    assertThat(relay.calls()).as("GetFlows streams opened").isGreaterThanOrEqualTo(1);
  }

  @Test
  void everyServiceIsReadyOnItsPublishedPort() {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    PROBE_PORTS.forEach(
        (service, containerPort) -> {
          assertThat(compose.publishedAddress(service, containerPort))
              .as(service)
              .isEqualTo("127.0.0.1");
          URI readyz =
              URI.create(
                  "http://127.0.0.1:" + compose.publishedPort(service, containerPort) + "/readyz");
          await(service + " ready at " + readyz)
              .atMost(PIPELINE_DEADLINE)
              .pollInterval(Duration.ofSeconds(1))
              .ignoreExceptions()
              .until(
                  () ->
                      http.send(
                                  HttpRequest.newBuilder(readyz)
                                      .timeout(Duration.ofSeconds(5))
                                      .build(),
                                  HttpResponse.BodyHandlers.discarding())
                              .statusCode()
                          == 200);
        });
    // The OTLP receivers (istio provider) are published as well: gRPC 4317 and HTTP 4318.
    assertThat(compose.publishedPort("ingest", 4317)).isPositive();
    assertThat(compose.publishedPort("ingest", 4318)).isPositive();
  }

  private static Map<String, WorkloadNetworkPolicyProposal> learnedFromTheSample()
      throws IOException {
    Path out = dir.resolve("learned");
    CliRun run =
        CliRun.run(
            "learn",
            "--input",
            CliRun.sample("hubble-flows.jsonl").toString(),
            "--output-dir",
            out.toString());
    assertThat(run.exitCode()).as(run.err()).isZero();
    KubernetesSerialization serialization = new KubernetesSerialization();
    Map<String, WorkloadNetworkPolicyProposal> learned = new TreeMap<>();
    try (Stream<Path> files = Files.walk(out)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".yaml")).toList()) {
        WorkloadNetworkPolicyProposal p =
            serialization.unmarshal(Files.readString(file), WorkloadNetworkPolicyProposal.class);
        learned.put(p.getMetadata().getNamespace() + "/" + p.getMetadata().getName(), p);
      }
    }
    return learned;
  }

  private static Map<String, WorkloadNetworkPolicyProposal> proposalsIn(KubernetesClient admin) {
    return admin
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

  /** A copy of the kubeconfig readable by its owner only, as kubectl writes ~/.kube/config. */
  private static Path privateKubeconfig(Path kubeconfig) throws IOException {
    Path copy = dir.resolve("kube/config");
    Files.createDirectories(copy.getParent());
    Files.createFile(
        copy, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(copy, Files.readString(kubeconfig));
    return copy;
  }

  private static void printLogs() {
    try {
      System.out.println(
          "---- docker compose logs of " + compose.name() + " ----\n" + compose.logs());
    } catch (RuntimeException e) {
      System.out.println("cannot read the compose logs: " + e);
    }
  }

  private static void closeHostServers() {
    try {
      if (relay != null) {
        relay.close();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      if (api != null) {
        api.close();
      }
    }
  }
}
