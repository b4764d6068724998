package io.kubewarden.networkenforcer.cli.incluster;

import static io.kubewarden.networkenforcer.cli.incluster.ClusterSteps.releasePods;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.kubewarden.networkenforcer.cli.CliRun;
import io.kubewarden.networkenforcer.cli.compose.HubbleRelayStandIn;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicy;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.testing.KubeCluster;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
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
 * The product as a user runs it, in a real single-node cluster ({@link KubeCluster}: kubelet,
 * containerd, CNI, kube-proxy, CoreDNS, local-path default StorageClass): the image the build
 * loaded into Docker is imported into the node's containerd, the chart is installed with {@code
 * helm install} and its pods must become Ready under the chart's own probes. A Hubble Relay
 * stand-in serves the sample capture over the real gRPC API with mutual TLS (keys shaped like
 * cert-manager's, PKCS#1), reached through a Service, kube-proxy and CoreDNS; the proposals in the
 * cluster must be exactly those {@code learn} makes of the capture, also after each pod was killed
 * with SIGKILL and restarted by the kubelet: Ready again only once the relay has its new GetFlows
 * call, resumed with a {@code since}, and every flow the relay resent that the topic already held
 * dropped (none published again, read from the pod's {@code /metrics}). Then a promoted proposal
 * becomes a NetworkPolicy, a flow it denies (published on the open stream) becomes violation status
 * while the other proposals' counts stay exact; {@code helm upgrade} to a second tag of the image
 * and the relay killed and served again keep them exact (the pod leaves Ready while its relay is
 * gone); {@code helm uninstall} leaves nothing of the release. Prints the {@code in-cluster:}
 * summary line and the timings.
 *
 * <p>Values: the defaults plus the image (repository, tag, pullPolicy Never) and, marked below,
 * what this cluster cannot offer the defaults (see {@link #INSTALL_OVERRIDES}).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class InClusterIT {

  static final String RELEASE = "ne";
  static final String NAMESPACE = "ne-system";
  private static final String SAMPLE_NAMESPACE = "demo";
  private static final String RELAY_SERVER_NAME = "ui.hubble-relay.cilium.io";
  private static final Duration READY = Duration.ofMinutes(4);
  private static final Duration PIPELINE = Duration.ofMinutes(3);

  /**
   * What the default values need and this cluster does not have, each chosen so the rest of the
   * defaults run unchanged:
   *
   * <ul>
   *   <li>provider istio (the default) needs cert-manager's CSI driver for its certificates and the
   *       fluent-bit image; neither is here (no registry; cert-manager not built from source yet).
   *       cilium with its default {@code existingSecret} TLS runs with a Secret shaped like
   *       cert-manager's output instead;
   *   <li>the default collector needs the OpenTelemetry Collector image and cert-manager's CSI
   *       driver: {@code none} (status only).
   * </ul>
   */
  static final Map<String, String> INSTALL_OVERRIDES =
      Map.of(
          "controller.provider.name", "cilium",
          "telemetry.collectorStrategy", "none");

  /** The default values' fluent-bit.stateHostPath. */
  static final Path FLUENT_BIT_STATE = Path.of("/var/lib/network-enforcer/fluent-bit");

  @TempDir static Path dir;

  static KubeCluster cluster;
  static HubbleRelayStandIn relay;
  static Duration imageImport;
  static Duration installToReady;
  static int installs;
  static int readyInstalls;
  static int restarts;
  static int promoted;
  static long violations;
  static long lost = -1;
  static long doubled = -1;

  /**
   * Flows a relay resent after a restart that the restarted ingest dropped as already in the topic.
   */
  static long resentDropped;

  static long resentTotal;

  /** Flows sent by relays already stopped (the relay killed and served again). */
  static long flowsOfEarlierRelays;

  static Path relayCertificate;
  static Path relayKey;
  static Path relayClientCa;
  static Map<String, WorkloadNetworkPolicyProposal> learned;
  static DefaultValuesRelease defaults;
  static DistributedRelease distributed;
  static CalicoRelease calico;
  static boolean fluentBitStateExisted;

  @BeforeAll
  static void start() throws IOException {
    cluster = KubeCluster.shared();
    imageImport = cluster.importDockerImage(image());
    learned = learnedFromTheSample();
    defaults = new DefaultValuesRelease(cluster, dir, image());
    fluentBitStateExisted = Files.exists(FLUENT_BIT_STATE.getParent());
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      System.out.printf(
          "in-cluster: installs %d/%d ready, flows %d, proposals %d, promoted %d, violations %d, "
              + "restarts %d, lost %d, doubled %d%n",
          readyInstalls,
          installs,
          flowsOfEarlierRelays + (relay == null ? 0 : relay.flowsSent()),
          learned == null ? 0 : learned.size(),
          promoted,
          violations,
          restarts,
          lost,
          doubled);
      System.out.printf(
          "in-cluster: flows the relay resent after restarts %d, dropped by ingest as already in "
              + "the topic %d (the rest: replies and duplicate reports the parser drops)%n",
          resentTotal, resentDropped);
      System.out.println(
          defaults == null
              ? ""
              : defaults.summary() + " (default values: istio, cert-manager, collector)");
      System.out.printf(
          "in-cluster timings: %s; image import %d ms; helm install to Ready %s ms%n",
          cluster == null ? "-" : cluster.timings(),
          imageImport == null ? -1 : imageImport.toMillis(),
          installToReady == null ? "-" : installToReady.toMillis());
      if (distributed != null) {
        System.out.println(distributed.summary() + "\n" + distributed.timings());
      }
      if (calico != null) {
        System.out.println(calico.summary());
      }
      if (defaults != null && defaults.installToReady != null) {
        System.out.printf(
            "in-cluster timings (default values): helm install to Ready %d ms%n",
            defaults.installToReady.toMillis());
      }
    } finally {
      if (relay != null) {
        relay.close();
      }
      if (distributed != null) {
        distributed.close();
      }
      if (calico != null) {
        calico.close();
      }
      if (cluster != null) {
        Instant closing = Instant.now();
        cluster.close();
        if (!fluentBitStateExisted) {
          // The chart's fluent-bit keeps its offsets in a hostPath directory (DirectoryOrCreate).
          deleteRecursively(FLUENT_BIT_STATE.getParent());
        }
        List<String> left = cluster.hostDifferences();
        System.out.printf(
            "in-cluster: cluster stopped in %d ms; host differences: %s%n",
            Duration.between(closing, Instant.now()).toMillis(), left);
        assertThat(left).as("what the cluster left on the host").isEmpty();
      }
    }
  }

  @Test
  @Order(1)
  void theNodeIsReadyAndRunsAPodOfTheBuiltImage() {
    KubernetesClient admin = cluster.client();
    assertThat(admin.nodes().withName(KubeCluster.NODE_NAME).get().getStatus().getConditions())
        .anyMatch(c -> c.getType().equals("Ready") && c.getStatus().equals("True"));
    admin
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName("smoke").endMetadata().build())
        .createOr(NonDeletingOperation::update);
    Pod pod =
        new PodBuilder()
            .withNewMetadata()
            .withName("version")
            .withNamespace("smoke")
            .endMetadata()
            .withNewSpec()
            .withRestartPolicy("Never")
            .addNewContainer()
            .withName("main")
            .withImage(image())
            .withImagePullPolicy("Never")
            .withArgs("--version")
            .endContainer()
            .endSpec()
            .build();
    admin.pods().resource(pod).create();
    cluster.await(
        "the version pod Succeeded", READY, () -> "Succeeded".equals(phase("smoke", "version")));
    String log = admin.pods().inNamespace("smoke").withName("version").getLog();
    assertThat(log).contains("network-enforcer " + image().substring(image().lastIndexOf(':') + 1));
    admin.namespaces().withName("smoke").delete();
  }

  @Test
  @Order(2)
  void theChartInstallsAndTheCaptureBecomesTheProposalsLearnMakes() throws Exception {
    KubernetesClient admin = cluster.client();
    createSampleWorkloads(admin);
    serveRelay(admin);
    installs++;
    Instant start = Instant.now();
    helm("install", RELEASE, chart().toString(), "--namespace", NAMESPACE, "--create-namespace");
    cluster.await("every pod of the release Ready", READY, () -> allReady(admin));
    installToReady = Duration.between(start, Instant.now());
    readyInstalls++;
    awaitExactProposals(admin);
    assertThat(relay.calls()).as("GetFlows streams opened").isGreaterThanOrEqualTo(1);
  }

  @Test
  @Order(3)
  void aPodKilledWithSigkillIsRestartedAndNothingIsLostOrDoubled() {
    KubernetesClient admin = cluster.client();
    List<Pod> pods = releasePods(admin);
    assertThat(pods).isNotEmpty();
    for (Pod pod : pods) {
      int streamsBefore = relay.calls();
      ContainerStatus main = pod.getStatus().getContainerStatuses().get(0);
      int before = main.getRestartCount();
      Instant killed = Instant.now();
      cluster.killContainer(main.getContainerID());
      String name = pod.getMetadata().getName();
      cluster.await(
          name + " restarted by the kubelet and Ready",
          READY,
          () -> {
            Pod now = admin.pods().inNamespace(NAMESPACE).withName(name).get();
            return now != null
                && now.getStatus().getContainerStatuses().get(0).getRestartCount() > before
                && ready(now);
          });
      // Read at once: Ready must mean the restarted ingest's stream is back (the relay took its
      // call).
      int streamsAtReady = relay.calls();
      restarts++;
      System.out.printf(
          "in-cluster: %s SIGKILLed, restarted and Ready in %d ms%n",
          name, Duration.between(killed, Instant.now()).toMillis());
      if (readsTheRelay(pod)) {
        assertThat(streamsAtReady)
            .as("GetFlows streams when the restarted %s said Ready", name)
            .isGreaterThan(streamsBefore);
        awaitExactProposals(admin);
        assertResumedWithoutRepublishing(admin, name, streamsAtReady - 1, true);
      }
    }
    awaitExactProposals(admin);
  }

  /**
   * The restarted ingest asked the relay from its resume point (not from nothing) and dropped every
   * flow the relay resent that the flows topic already held: it published none, so the topic still
   * holds each flow once ({@code flows published} by the relay against {@code published} by
   * ingest).
   */
  private static void assertResumedWithoutRepublishing(
      KubernetesClient admin, String podName, int call, boolean resendExpected) {
    Instant since = relay.since(call);
    int resent = relay.capturedFlowsSent(call);
    assertThat(since)
        .as("the restarted ingest's GetFlows since (resumed, not from now)")
        .isNotNull();
    Map<String, Double> m = ingestMetrics(admin, podName);
    double accepted = m.getOrDefault("accepted", 0.0);
    double alreadyPublished = m.getOrDefault("already-published", 0.0);
    double published = m.getOrDefault("published", 0.0);
    System.out.printf(
        "in-cluster: %s resumed from %s: relay resent %d flows, ingest accepted %.0f, dropped "
            + "%.0f as already in the topic, published %.0f%n",
        podName, since, resent, accepted, alreadyPublished, published);
    if (resendExpected) {
      assertThat(resent).as("flows the relay resent from the resume point").isPositive();
      assertThat(accepted).as("resent flows the restarted ingest accepted").isPositive();
    }
    assertThat(alreadyPublished)
        .as("resent flows dropped as already published")
        .isEqualTo(accepted);
    assertThat(published).as("flows published again after the restart").isZero();
    resentTotal += resent;
    resentDropped += (long) alreadyPublished;
  }

  /** Whether the pod follows the relay (ingest, or standalone with ingest inside). */
  private static boolean readsTheRelay(Pod pod) {
    String component = pod.getMetadata().getLabels().get("app.kubernetes.io/component");
    return "standalone".equals(component) || "ingest".equals(component);
  }

  /**
   * The ingest counters of a pod from its management port ({@code /metrics}, behind the chart's
   * Kubernetes access check: a token of a ServiceAccount bound to the release's metrics-reader
   * role): {@code accepted}, {@code published} and the {@code already-published} drops of the
   * cilium source.
   */
  static Map<String, Double> ingestMetrics(KubernetesClient admin, String podName) {
    String token = scraperToken(admin);
    Pod pod = admin.pods().inNamespace(NAMESPACE).withName(podName).get();
    java.net.URI uri =
        java.net.URI.create("http://" + pod.getStatus().getPodIP() + ":8080/metrics");
    try {
      java.net.http.HttpResponse<String> response =
          java.net.http.HttpClient.newHttpClient()
              .send(
                  java.net.http.HttpRequest.newBuilder(uri)
                      .header("Authorization", "Bearer " + token)
                      .timeout(Duration.ofSeconds(20))
                      .build(),
                  java.net.http.HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).as("GET %s: %s", uri, response.body()).isEqualTo(200);
      Map<String, Double> out = new TreeMap<>();
      for (String line : response.body().lines().toList()) {
        if (line.startsWith("network_enforcer_ingest_flows_accepted_total{")
            && line.contains("provider=\"cilium\"")) {
          out.merge("accepted", value(line), Double::sum);
        } else if (line.startsWith("network_enforcer_ingest_flows_published_total{")
            && line.contains("provider=\"cilium\"")) {
          out.merge("published", value(line), Double::sum);
        } else if (line.startsWith("network_enforcer_ingest_flows_dropped_total{")
            && line.contains("reason=\"already-published\"")) {
          out.merge("already-published", value(line), Double::sum);
        }
      }
      return out;
    } catch (IOException e) {
      throw new AssertionError("cannot read " + uri, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  private static double value(String line) {
    return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
  }

  /**
   * A token of {@code demo/scraper}, bound to the release's {@code *-metrics-reader} ClusterRole.
   */
  private static String scraperToken(KubernetesClient admin) {
    String role =
        admin
            .rbac()
            .clusterRoles()
            .withLabel("app.kubernetes.io/instance", RELEASE)
            .list()
            .getItems()
            .stream()
            .map(r -> r.getMetadata().getName())
            .filter(n -> n.endsWith("-metrics-reader"))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no metrics-reader ClusterRole in the release"));
    admin
        .serviceAccounts()
        .inNamespace(SAMPLE_NAMESPACE)
        .resource(
            new ServiceAccountBuilder().withNewMetadata().withName("scraper").endMetadata().build())
        .createOr(NonDeletingOperation::update);
    admin
        .rbac()
        .clusterRoleBindings()
        .resource(
            new io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder()
                .withNewMetadata()
                .withName("in-cluster-scraper")
                .endMetadata()
                .withNewRoleRef()
                .withApiGroup("rbac.authorization.k8s.io")
                .withKind("ClusterRole")
                .withName(role)
                .endRoleRef()
                .addNewSubject()
                .withKind("ServiceAccount")
                .withName("scraper")
                .withNamespace(SAMPLE_NAMESPACE)
                .endSubject()
                .build())
        .createOr(NonDeletingOperation::update);
    return cluster
        .kubectl("create", "token", "scraper", "--namespace", SAMPLE_NAMESPACE, "--duration", "1h")
        .trim();
  }

  @Test
  @Order(4)
  void aPromotedProposalBecomesANetworkPolicy() {
    KubernetesClient admin = cluster.client();
    String name = learned.values().iterator().next().getMetadata().getName();
    String namespace = learned.values().iterator().next().getMetadata().getNamespace();
    ClusterSteps.promote(admin, namespace, name, "protect");
    cluster.await(
        "NetworkPolicy " + namespace + "/" + name,
        PIPELINE,
        () ->
            admin.network().networkPolicies().inNamespace(namespace).withName(name).get() != null);
    NetworkPolicy policy =
        admin.network().networkPolicies().inNamespace(namespace).withName(name).get();
    assertThat(policy.getSpec().getPodSelector()).isNotNull();
    assertThat(
            admin
                .resources(WorkloadNetworkPolicy.class)
                .inNamespace(namespace)
                .withName(name)
                .get())
        .isNotNull();
    promoted++;
  }

  @Test
  @Order(5)
  void aFlowThePromotedPolicyDeniesBecomesViolationStatus() throws IOException {
    KubernetesClient admin = cluster.client();
    WorkloadNetworkPolicyProposal promotedProposal = learned.values().iterator().next();
    String name = promotedProposal.getMetadata().getName();
    String namespace = promotedProposal.getMetadata().getNamespace();
    String denied = deniedFlow(namespace, name);
    int streams = relay.publish(denied);
    System.out.printf(
        "in-cluster: denied flow sent on %d of %d GetFlows streams%n", streams, relay.calls());
    assertThat(streams).as("open GetFlows streams of %d opened", relay.calls()).isEqualTo(1);
    // The writer merges violations into the status every wnpStatusUpdateInterval (default 30 s).
    cluster.await(
        "a violation in the status of " + namespace + "/" + name,
        PIPELINE,
        () -> {
          WorkloadNetworkPolicy policy =
              admin
                  .resources(WorkloadNetworkPolicy.class)
                  .inNamespace(namespace)
                  .withName(name)
                  .get();
          return policy != null
              && policy.getStatus() != null
              && policy.getStatus().getActiveViolationCount() > 0;
        });
    violations =
        admin.resources(WorkloadNetworkPolicy.class).inAnyNamespace().list().getItems().stream()
            .filter(w -> w.getStatus() != null)
            .mapToLong(w -> w.getStatus().getActiveViolationCount())
            .sum();
    assertThat(violations).isEqualTo(1);
    // The denied flow went out after everything the restarted ingest asked for again, on the same
    // stream, and its violation needed a status sync: the other proposals' counts must still be
    // exact.
    Map<String, WorkloadNetworkPolicyProposal> notPromoted = new TreeMap<>(learned);
    notPromoted.remove(namespace + "/" + name);
    awaitExactProposals(admin, notPromoted);
  }

  /**
   * The capture's first flow of the promoted proposal's workload, now, to a port its policy does
   * not allow, dropped by Cilium with POLICY_DENIED naming the NetworkPolicy made from it.
   */
  private static String deniedFlow(String namespace, String policyName) throws IOException {
    com.fasterxml.jackson.databind.ObjectMapper json =
        new com.fasterxml.jackson.databind.ObjectMapper();
    String workload =
        policyName.replaceFirst("^deployment-", "").replaceFirst("-(egress|ingress)$", "");
    boolean egress = policyName.endsWith("-egress");
    for (String line : Files.readAllLines(CliRun.sample("hubble-flows.jsonl"))) {
      com.fasterxml.jackson.databind.JsonNode record = json.readTree(line);
      com.fasterxml.jackson.databind.JsonNode flow = record.path("flow");
      String side = egress ? "source" : "destination";
      if (flow.isMissingNode()
          || !flow.path(side).path("pod_name").asText().startsWith(workload + "-")
          || !flow.path("l4").has("TCP")
          || flow.path("is_reply").asBoolean(false)) {
        continue;
      }
      var copy = (com.fasterxml.jackson.databind.node.ObjectNode) flow.deepCopy();
      copy.put("time", Instant.now().toString());
      copy.put("uuid", java.util.UUID.randomUUID().toString());
      copy.put("verdict", "DROPPED");
      copy.put("drop_reason_desc", "POLICY_DENIED");
      copy.put("Summary", "TCP Flags: SYN");
      ((com.fasterxml.jackson.databind.node.ObjectNode) copy.path("l4").path("TCP"))
          .put("destination_port", 9443);
      var denier = copy.putArray(egress ? "egress_denied_by" : "ingress_denied_by").addObject();
      denier.put("name", policyName).put("namespace", namespace).put("kind", "NetworkPolicy");
      var out = json.createObjectNode();
      out.set("flow", copy);
      out.put("time", copy.path("time").asText());
      return json.writeValueAsString(out);
    }
    throw new AssertionError("no TCP flow of " + workload + " in the sample to deny");
  }

  @Test
  @Order(6)
  void helmUpgradeToANewImageLosesAndDoublesNothing() throws Exception {
    KubernetesClient admin = cluster.client();
    String image = image();
    String newTag = image.substring(image.lastIndexOf(':') + 1) + "-upgrade";
    String newImage = image.substring(0, image.lastIndexOf(':')) + ":" + newTag;
    Process tag =
        new ProcessBuilder("docker", "tag", image, newImage).redirectErrorStream(true).start();
    assertThat(tag.waitFor())
        .as(new String(tag.getInputStream().readAllBytes(), StandardCharsets.UTF_8))
        .isZero();
    Duration imported = cluster.importDockerImage(newImage);
    int streamsBefore = relay.calls();
    Instant start = Instant.now();
    helm(
        "upgrade",
        RELEASE,
        chart().toString(),
        "--namespace",
        NAMESPACE,
        "--reuse-values",
        "--set",
        "image.tag=" + newTag,
        "--wait",
        "--timeout",
        "4m");
    cluster.await(
        "every pod of the release on " + newImage + " and Ready",
        READY,
        () -> {
          List<Pod> pods = releasePods(admin);
          return !pods.isEmpty()
              && pods.stream()
                  .allMatch(
                      p ->
                          ready(p)
                              && p.getSpec().getContainers().stream()
                                  .allMatch(c -> c.getImage().equals(newImage)));
        });
    int streamsAtReady = relay.calls();
    System.out.printf(
        "in-cluster: helm upgrade to %s: image import %d ms, upgrade to Ready %d ms%n",
        newImage, imported.toMillis(), Duration.between(start, Instant.now()).toMillis());
    assertThat(streamsAtReady)
        .as("GetFlows streams once the upgraded pods were Ready")
        .isGreaterThan(streamsBefore);
    WorkloadNetworkPolicyProposal promotedProposal = learned.values().iterator().next();
    Map<String, WorkloadNetworkPolicyProposal> notPromoted = new TreeMap<>(learned);
    notPromoted.remove(
        promotedProposal.getMetadata().getNamespace()
            + "/"
            + promotedProposal.getMetadata().getName());
    awaitExactProposals(admin, notPromoted);
    Pod reader =
        releasePods(admin).stream().filter(InClusterIT::readsTheRelay).findFirst().orElseThrow();
    // The newest flow in the topic is the denied one (now): the relay has none of the capture after
    // it.
    assertResumedWithoutRepublishing(
        admin, reader.getMetadata().getName(), streamsAtReady - 1, false);
    long violationsNow =
        admin.resources(WorkloadNetworkPolicy.class).inAnyNamespace().list().getItems().stream()
            .filter(w -> w.getStatus() != null)
            .mapToLong(w -> w.getStatus().getActiveViolationCount())
            .sum();
    assertThat(violationsNow).as("violations after the upgrade").isEqualTo(violations);
  }

  @Test
  @Order(7)
  void theRelayKilledTakesIngestOutOfReadyAndItsReturnLosesAndDoublesNothing() throws Exception {
    KubernetesClient admin = cluster.client();
    Pod reader =
        releasePods(admin).stream().filter(InClusterIT::readsTheRelay).findFirst().orElseThrow();
    String name = reader.getMetadata().getName();
    int port = relay.port();
    Instant killed = Instant.now();
    // The stand-in runs in this JVM: its server is stopped at once (connections cut, no goodbye).
    flowsOfEarlierRelays += relay.flowsSent();
    relay.close();
    cluster.await(
        name + " not Ready while its relay is gone",
        READY,
        () -> {
          Pod now = admin.pods().inNamespace(NAMESPACE).withName(name).get();
          return now != null && !ready(now);
        });
    Duration toNotReady = Duration.between(killed, Instant.now());
    relay =
        HubbleRelayStandIn.serveTls(
            CliRun.sample("hubble-flows.jsonl"),
            cluster.nodeAddress(),
            port,
            relayCertificate,
            relayKey,
            relayClientCa);
    Instant back = Instant.now();
    cluster.await(
        name + " Ready again on the relay's return",
        READY,
        () -> {
          Pod now = admin.pods().inNamespace(NAMESPACE).withName(name).get();
          return now != null && ready(now);
        });
    int streamsAtReady = relay.calls();
    System.out.printf(
        "in-cluster: relay killed: %s not Ready after %d ms, Ready %d ms after its return%n",
        name, toNotReady.toMillis(), Duration.between(back, Instant.now()).toMillis());
    assertThat(streamsAtReady)
        .as("GetFlows streams of the new relay when %s said Ready", name)
        .isPositive();
    // The same process resumes from the last flow it saw (the denied one): nothing of the capture
    // is after it.
    assertThat(relay.since(0)).as("the resumed call's since").isNotNull();
    WorkloadNetworkPolicyProposal promotedProposal = learned.values().iterator().next();
    Map<String, WorkloadNetworkPolicyProposal> notPromoted = new TreeMap<>(learned);
    notPromoted.remove(
        promotedProposal.getMetadata().getNamespace()
            + "/"
            + promotedProposal.getMetadata().getName());
    awaitExactProposals(admin, notPromoted);
  }

  @Test
  @Order(8)
  void helmUninstallLeavesNothingOfTheRelease() {
    // No CSI certificate in this install (collector none, Relay's own Secret): nothing kept.
    List<String> left =
        ClusterSteps.uninstallAsTheReadmeSays(cluster, READY, InClusterIT::releaseLeftovers);
    assertThat(left).as("objects left after helm uninstall").isEmpty();
  }

  @Test
  @Order(9)
  void theDefaultValuesInstallWithCertManagerFluentBitAndTheCollector() throws IOException {
    defaults.prepare();
    defaults.installAndAwaitReady();
  }

  @Test
  @Order(10)
  void theDefaultValuesReleaseTurnsZtunnelFlowsIntoTheProposalsLearnMakes() throws IOException {
    defaults.ztunnelFlowsBecomeTheProposalsLearnMakes();
  }

  @Test
  @Order(11)
  void theDefaultValuesReleasePromotesToAnAuthorizationPolicy() {
    defaults.promotionBecomesAnAuthorizationPolicy();
  }

  @Test
  @Order(12)
  void theDefaultValuesReleaseReportsADenyAsViolationAndCollectorEvent() throws Exception {
    defaults.aDeniedConnectionBecomesAViolationAndACollectorEvent();
  }

  @Test
  @Order(13)
  void theDefaultValuesReleaseLosesAndDoublesNothingWhenEachPodIsKilled() {
    defaults.eachPodKilledOnceLosesAndDoublesNothing();
  }

  @Test
  @Order(14)
  void theDefaultValuesNetworkPoliciesAllowExactlyTheThreatModelsPaths() {
    new EnforcedNetworkPolicies(cluster).allowExactlyTheThreatModelsPaths();
  }

  @Test
  @Order(20)
  void distributedModeGetsAKafkaOfItsOwnWithMutualTlsAndTheReadmesTopicsAndAcls() throws Exception {
    distributed =
        new DistributedRelease(
            cluster,
            dir,
            image(),
            Objects.requireNonNull(
                System.getProperty("ne.test.kafka.image"), "ne.test.kafka.image (cli/pom.xml)"));
    distributed.startKafka();
    distributed.createTopicsAndAclsAsTheReadmeSays();
  }

  @Test
  @Order(21)
  void theDistributedModeInstallsAndTheCaptureBecomesTheProposalsLearnMakes() throws Exception {
    installs++;
    distributed.installAndAwaitTheProposalsLearnMakes();
    readyInstalls++;
  }

  @Test
  @Order(22)
  void eachDistributedPodKilledWithSigkillLosesAndDoublesNothing() throws Exception {
    distributed.eachPodKilledWithSigkillLosesAndDoublesNothing();
  }

  @Test
  @Order(23)
  void theKafkaBrokerKilledWithSigkillLosesAndDoublesNothing() throws Exception {
    distributed.theBrokerKilledWithSigkillLosesAndDoublesNothing();
  }

  @Test
  @Order(24)
  void helmUninstallOfTheDistributedReleaseLeavesNothing() throws Exception {
    distributed.helmUninstallLeavesNothing();
  }

  @Test
  @Order(30)
  void calicoInstallsWithItsDefaultsAndEveryPodIsReady() throws IOException {
    calico = new CalicoRelease(cluster, dir, image());
    installs++;
    calico.installAndAwaitReady();
    readyInstalls++;
  }

  @Test
  @Order(31)
  void calicoGoldmaneFlowsBecomeTheProposalsLearnMakes() {
    calico.flowsBecomeTheProposalsLearnMakes();
  }

  @Test
  @Order(32)
  void calicoPodsKilledWithSigkillAreRestartedAndNothingIsLostOrDoubled() {
    calico.eachPodKilledOnceIsRestartedAndNothingIsLostOrDoubled();
  }

  @Test
  @Order(33)
  void calicoHelmUninstallLeavesNothingOfTheRelease() {
    calico.helmUninstallLeavesNothing();
  }

  /**
   * What is left of the release: its namespace's objects (but the namespace's own) and its
   * cluster-wide ones.
   */
  static List<String> releaseLeftovers() {
    String left =
        cluster.kubectl(
            "get",
            "all,configmaps,secrets,serviceaccounts,roles,rolebindings,"
                + "persistentvolumeclaims,leases",
            "--namespace",
            NAMESPACE,
            "--ignore-not-found",
            "-o",
            "name");
    List<String> all =
        new ArrayList<>(
            left.lines()
                .filter(line -> !line.isBlank())
                .filter(
                    line ->
                        !line.equals("configmap/kube-root-ca.crt")
                            && !line.equals("serviceaccount/default"))
                .toList());
    String clusterWide =
        cluster.kubectl(
            "get",
            "clusterroles,clusterrolebindings,validatingadmissionpolicies,"
                + "validatingadmissionpolicybindings",
            "-l",
            "app.kubernetes.io/instance=" + RELEASE,
            "-o",
            "name");
    clusterWide
        .lines()
        .filter(line -> !line.isBlank() && !line.startsWith("No resources"))
        .forEach(all::add);
    return all;
  }

  // --- steps -------------------------------------------------------------------------------------

  /**
   * The sample's workloads as real Deployments (the pause image) with the captured labels and
   * accounts.
   */
  private static void createSampleWorkloads(KubernetesClient admin) {
    ClusterSteps.createWorkloads(
        admin, SAMPLE_NAMESPACE, cluster.pauseImage(), List.of("http-client", "http-server"));
  }

  /**
   * The relay stand-in on the node's address, as {@code hubble-relay.kube-system.svc:443} (a
   * Service whose EndpointSlice points there), and Cilium's client Secret the chart reads by
   * default.
   */
  private static void serveRelay(KubernetesClient admin) throws IOException {
    CertManagerShapedTls tls = CertManagerShapedTls.create(dir.resolve("tls"));
    CertManagerShapedTls.Pair server = tls.server("relay", RELAY_SERVER_NAME);
    CertManagerShapedTls.Pair client =
        tls.client("client", "network-enforcer.hubble-relay.cilium.io");
    relayCertificate = server.certificate();
    relayKey = serverKeyPkcs8(server);
    relayClientCa = tls.ca();
    relay =
        HubbleRelayStandIn.serveTls(
            CliRun.sample("hubble-flows.jsonl"),
            cluster.nodeAddress(),
            0,
            relayCertificate,
            relayKey,
            relayClientCa);
    admin
        .secrets()
        .inNamespace("kube-system")
        .resource(
            new SecretBuilder()
                .withNewMetadata()
                .withName("hubble-relay-client-certs")
                .endMetadata()
                .withType("kubernetes.io/tls")
                .addToData("ca.crt", base64(tls.ca()))
                .addToData("tls.crt", base64(client.certificate()))
                .addToData("tls.key", base64(client.key()))
                .build())
        .createOr(NonDeletingOperation::update);
    admin
        .services()
        .inNamespace("kube-system")
        .resource(
            new ServiceBuilder()
                .withNewMetadata()
                .withName("hubble-relay")
                .endMetadata()
                .withNewSpec()
                .addNewPort()
                .withName("grpc")
                .withPort(443)
                .withProtocol("TCP")
                .endPort()
                .endSpec()
                .build())
        .createOr(NonDeletingOperation::update);
    admin
        .discovery()
        .v1()
        .endpointSlices()
        .inNamespace("kube-system")
        .resource(
            new EndpointSliceBuilder()
                .withNewMetadata()
                .withName("hubble-relay-stand-in")
                .addToLabels("kubernetes.io/service-name", "hubble-relay")
                .endMetadata()
                .withAddressType("IPv4")
                .addNewEndpoint()
                .withAddresses(cluster.nodeAddress())
                .endEndpoint()
                .addNewPort()
                .withName("grpc")
                .withPort(relay.port())
                .withProtocol("TCP")
                .endPort()
                .build())
        .createOr(NonDeletingOperation::update);
  }

  /** Netty's server reads PKCS#8; only the product's side must cope with cert-manager's PKCS#1. */
  private static Path serverKeyPkcs8(CertManagerShapedTls.Pair server) throws IOException {
    Path pkcs8 = server.key().resolveSibling("relay-pkcs8.key");
    Process process =
        new ProcessBuilder(
                "openssl",
                "pkcs8",
                "-topk8",
                "-nocrypt",
                "-in",
                server.key().toString(),
                "-out",
                pkcs8.toString())
            .redirectErrorStream(true)
            .start();
    try {
      assertThat(process.waitFor())
          .as(new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8))
          .isZero();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
    return pkcs8;
  }

  private static void helm(String... args) {
    List<String> overrides = new ArrayList<>();
    if (args[0].equals("install")) {
      String image = image();
      int colon = image.lastIndexOf(':');
      overrides.addAll(
          List.of(
              "--set",
              "image.repository=" + image.substring(0, colon),
              "--set",
              "image.tag=" + image.substring(colon + 1),
              "--set",
              "image.pullPolicy=Never"));
      INSTALL_OVERRIDES.forEach(
          (key, value) -> overrides.addAll(List.of("--set", key + "=" + value)));
    }
    ClusterSteps.helm(cluster, List.of(args), overrides);
  }

  /**
   * Waits until the cluster holds exactly the proposals learn made, with exactly its evidence
   * counts.
   */
  private static void awaitExactProposals(KubernetesClient admin) {
    awaitExactProposals(admin, learned);
  }

  private static void awaitExactProposals(
      KubernetesClient admin, Map<String, WorkloadNetworkPolicyProposal> learned) {
    ClusterSteps.awaitExactProposals(
        cluster,
        "the sample's proposals in the cluster",
        PIPELINE,
        learned,
        () -> proposalsIn(admin),
        (l, d) -> {
          lost = l;
          doubled = d;
        },
        () -> ClusterSteps.releaseLogs(cluster, 120));
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
    Map<String, WorkloadNetworkPolicyProposal> proposals = ClusterSteps.learnedIn(out);
    assertThat(proposals).isNotEmpty();
    return proposals;
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

  private static boolean allReady(KubernetesClient admin) {
    List<Pod> pods = releasePods(admin);
    return !pods.isEmpty() && pods.stream().allMatch(InClusterIT::ready);
  }

  static boolean ready(Pod pod) {
    return pod.getStatus() != null
        && pod.getStatus().getConditions() != null
        && pod.getStatus().getConditions().stream()
            .anyMatch(c -> c.getType().equals("Ready") && c.getStatus().equals("True"));
  }

  private static String phase(String namespace, String name) {
    Pod pod = cluster.client().pods().inNamespace(namespace).withName(name).get();
    return pod == null || pod.getStatus() == null ? null : pod.getStatus().getPhase();
  }

  private static String image() {
    return Objects.requireNonNull(
        System.getProperty("ne.test.image"), "ne.test.image (set by cli/pom.xml failsafe)");
  }

  static Path chart() {
    return CliRun.repoRoot().resolve("charts").resolve("network-enforcer");
  }

  private static void deleteRecursively(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    }
  }

  private static String base64(Path file) throws IOException {
    return Base64.getEncoder().encodeToString(Files.readAllBytes(file));
  }
}
