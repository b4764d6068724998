package io.kubewarden.networkenforcer.cli.incluster;

import static io.kubewarden.networkenforcer.cli.incluster.ClusterSteps.releasePods;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.kubewarden.networkenforcer.cli.CliRun;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.testing.ClusterImages;
import io.kubewarden.networkenforcer.testing.KubeCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The chart installed for Calico, standalone, with the defaults for Calico ({@code
 * controller.provider.name=calico} and the image): the ingest follows Goldmane at its default
 * {@code goldmane.calico-system.svc:7443} with Calico's own TLS material, read through the API from
 * {@code calico-system} (Secret {@code goldmane-key-pair}, ConfigMap {@code goldmane-ca-bundle}).
 * Goldmane is a stand-in in the test JVM ({@link GoldmaneStandIn}) serving the sample's Goldmane
 * capture, with this cluster's namespace and pods, over the real Flows API with mutual TLS, reached
 * through a Service, kube-proxy and CoreDNS. The proposals must be exactly those {@code learn}
 * makes of the same capture, also after each pod was killed with SIGKILL and restarted by the
 * kubelet (the ingest resumed, dropping what Goldmane resent that the topic held). Used by {@link
 * InClusterIT}, which owns the cluster.
 */
final class CalicoRelease {

  /** Not "demo" nor "shop": the proposals earlier installs left stay there (CRDs outlive them). */
  static final String APPS = "billing";

  static final String CALICO = "calico-system";
  private static final Duration READY = Duration.ofMinutes(6);
  private static final Duration PIPELINE = Duration.ofMinutes(3);
  private static final List<String> APPS_IN_CAPTURE = List.of("http-client", "http-server");

  /** Goldmane's key pair names, as Calico's operator issues them. */
  private static final List<String> GOLDMANE_DNS_NAMES =
      List.of(
          "goldmane",
          "goldmane.calico-system",
          "goldmane.calico-system.svc",
          "goldmane.calico-system.svc.cluster.local",
          "localhost");

  private final KubeCluster cluster;
  private final Path dir;
  private final String image;
  private GoldmaneStandIn goldmane;
  private Map<String, WorkloadNetworkPolicyProposal> learned;
  int readyInstalls;
  int installs;
  int flows;
  int restarts;
  long lost = -1;
  long doubled = -1;
  long resentTotal;
  long resentDropped;
  Duration installToReady;

  CalicoRelease(KubeCluster cluster, Path dir, String image) {
    this.cluster = cluster;
    this.dir = dir;
    this.image = image;
  }

  /**
   * Goldmane serving the capture, then {@code helm install} with the defaults for Calico; every pod
   * Ready under the chart's probes.
   */
  void installAndAwaitReady() throws IOException {
    KubernetesClient admin = cluster.client();
    // The default collector's certificates and image, as the default-values install needs them.
    cluster.installCertManager();
    cluster.importClusterImage(ClusterImages.OTEL_COLLECTOR);
    // One release of the chart at a time: its CRDs belong to release ne in ne-system.
    runHelm(
        List.of(
            "uninstall",
            InClusterIT.RELEASE,
            "--namespace",
            InClusterIT.NAMESPACE,
            "--ignore-not-found",
            "--wait",
            "--timeout",
            "3m"),
        List.of());
    // The claim of an earlier standalone pod goes through the garbage collector a moment later;
    // a new pod must not bind it (its broker log and state are another install's).
    cluster.await(
        "no pod or claim of an earlier release left",
        READY,
        () ->
            releasePods(admin).isEmpty()
                && admin
                    .persistentVolumeClaims()
                    .inNamespace(InClusterIT.NAMESPACE)
                    .withLabel("app.kubernetes.io/instance", InClusterIT.RELEASE)
                    .list()
                    .getItems()
                    .isEmpty());
    List<String> capture = captureOfThisCluster(admin);
    flows = capture.size();
    learned = learn(capture);
    ClusterSteps.forgetEarlierProposals(
        cluster,
        learned.values().stream().map(p -> p.getMetadata().getNamespace()).distinct().toList(),
        PIPELINE);
    serveGoldmane(admin, capture);
    installs++;
    Instant start = Instant.now();
    int colon = image.lastIndexOf(':');
    runHelm(
        List.of(
            "install",
            InClusterIT.RELEASE,
            InClusterIT.chart().toString(),
            "--namespace",
            InClusterIT.NAMESPACE,
            "--create-namespace"),
        List.of(
            "--set",
            "controller.provider.name=calico",
            "--set",
            "image.repository=" + image.substring(0, colon),
            "--set",
            "image.tag=" + image.substring(colon + 1),
            "--set",
            "image.pullPolicy=Never"));
    cluster.await(
        "every pod of the calico release Ready",
        READY,
        () -> {
          List<Pod> pods = releasePods(admin);
          return !pods.isEmpty() && pods.stream().allMatch(InClusterIT::ready);
        });
    installToReady = Duration.between(start, Instant.now());
    readyInstalls++;
    List<String> names =
        releasePods(admin).stream().map(p -> p.getMetadata().getName()).sorted().toList();
    System.out.printf("in-cluster (calico): Ready %s in %d ms%n", names, installToReady.toMillis());
    assertThat(names).anyMatch(n -> n.contains("standalone"));
  }

  /**
   * Each pod of the release killed once with SIGKILL: the kubelet restarts it and it is Ready
   * again; the one following Goldmane (standalone) only with a new Stream call, resumed from a
   * start time (not from now), every flow Goldmane resent that the topic held dropped and none
   * published again; the proposals' counts stay exact.
   */
  void eachPodKilledOnceIsRestartedAndNothingIsLostOrDoubled() {
    KubernetesClient admin = cluster.client();
    List<Pod> pods = releasePods(admin);
    assertThat(pods).isNotEmpty();
    for (Pod pod : pods) {
      String name = pod.getMetadata().getName();
      int callsBefore = goldmane.calls();
      ContainerStatus main = pod.getStatus().getContainerStatuses().get(0);
      int before = main.getRestartCount();
      Instant killed = Instant.now();
      cluster.killContainer(main.getContainerID());
      cluster.await(
          name + " restarted by the kubelet and Ready",
          READY,
          () -> {
            Pod now = admin.pods().inNamespace(InClusterIT.NAMESPACE).withName(name).get();
            return now != null
                && now.getStatus().getContainerStatuses().get(0).getRestartCount() > before
                && InClusterIT.ready(now);
          });
      // Read at once: Ready must mean the restarted ingest's stream is back.
      int callsAtReady = goldmane.calls();
      restarts++;
      System.out.printf(
          "in-cluster (calico): %s SIGKILLed, restarted and Ready in %d ms%n",
          name, Duration.between(killed, Instant.now()).toMillis());
      if (followsGoldmane(pod)) {
        assertThat(callsAtReady)
            .as("Goldmane Stream calls when the restarted %s said Ready", name)
            .isGreaterThan(callsBefore);
        awaitExactProposals(admin);
        assertResumedWithoutRepublishing(admin, name, callsAtReady - 1);
      }
    }
    awaitExactProposals(admin);
  }

  /** The capture's flows become exactly the proposals learn made of it. */
  void flowsBecomeTheProposalsLearnMakes() {
    awaitExactProposals(cluster.client());
    assertThat(goldmane.calls()).as("Goldmane Stream calls").isGreaterThanOrEqualTo(1);
    assertThat(goldmane.startTimeGte(0)).as("the first call's start time (from now)").isZero();
  }

  /**
   * {@code helm uninstall} leaves nothing of the release: in its namespace, in calico-system (the
   * Role reading Calico's key pair) and cluster-wide.
   */
  void helmUninstallLeavesNothing() {
    KubernetesClient admin = cluster.client();
    admin.rbac().clusterRoleBindings().withName(SCRAPER_BINDING).delete();
    List<String> left =
        ClusterSteps.uninstallAsTheReadmeSays(
            cluster,
            READY,
            () -> {
              List<String> all = new ArrayList<>(InClusterIT.releaseLeftovers());
              cluster
                  .kubectl(
                      "get",
                      "roles,rolebindings",
                      "--namespace",
                      CALICO,
                      "-l",
                      "app.kubernetes.io/instance=" + InClusterIT.RELEASE,
                      "-o",
                      "name")
                  .lines()
                  .filter(line -> !line.isBlank() && !line.startsWith("No resources"))
                  .forEach(all::add);
              return all;
            });
    // The default collector's certificates come from the chart's CA (README, Uninstall).
    assertThat(left)
        .as("what helm uninstall left")
        .containsExactly("secret/ne-network-enforcer-ca");
  }

  String summary() {
    return String.format(
        "in-cluster (calico): installs %d/%d ready, flows %d, proposals %d, restarts %d, lost %d, "
            + "doubled %d%n"
            + "in-cluster (calico): flows Goldmane resent after restarts %d, dropped by ingest as "
            + "already in the topic %d (the rest: the other end's reports the parser drops)",
        readyInstalls,
        installs,
        flows,
        learned == null ? 0 : learned.size(),
        restarts,
        lost,
        doubled,
        resentTotal,
        resentDropped);
  }

  void close() throws InterruptedException {
    if (goldmane != null) {
      goldmane.close();
    }
  }

  // --- steps -------------------------------------------------------------------------------------

  private static final String SCRAPER_BINDING = "in-cluster-calico-scraper";

  /**
   * The sample's Goldmane capture with this cluster's workloads: the sample's Deployments (the
   * pause image) in {@link #APPS}, their aggregated names ({@code <replicaset>-*}) those of this
   * cluster's ReplicaSets, CoreDNS's that of this cluster's.
   */
  private List<String> captureOfThisCluster(KubernetesClient admin) throws IOException {
    ClusterSteps.createWorkloads(admin, APPS, cluster.pauseImage(), APPS_IN_CAPTURE);
    Map<String, String> aggregated = new TreeMap<>();
    for (String app : APPS_IN_CAPTURE) {
      aggregated.put(app, generateName(admin, APPS, "app", app));
    }
    aggregated.put("coredns", generateName(admin, "kube-system", "k8s-app", "kube-dns"));
    List<String> out = new ArrayList<>();
    for (String line : Files.readAllLines(CliRun.sample("goldmane-flows.jsonl"))) {
      if (line.isBlank()) {
        continue;
      }
      String rewritten =
          line.replace("\"demo\"", "\"" + APPS + "\"").replace("kns.demo", "kns." + APPS);
      for (Map.Entry<String, String> e : aggregated.entrySet()) {
        rewritten =
            rewritten.replaceAll(
                "\"" + e.getKey() + "-[0-9a-f]+-\\*\"", "\"" + e.getValue() + "*\"");
      }
      out.add(rewritten);
    }
    assertThat(String.join("\n", out)).doesNotContain("\"demo\"", "29e797ec96", "a7c45ae475");
    return out;
  }

  /** The generateName ({@code <replicaset>-}) of the running pod with that label. */
  private String generateName(
      KubernetesClient admin, String namespace, String label, String value) {
    cluster.await(
        namespace + "/" + value + " running",
        READY,
        () -> runningPod(admin, namespace, label, value) != null);
    return runningPod(admin, namespace, label, value).getMetadata().getGenerateName();
  }

  private static Pod runningPod(
      KubernetesClient admin, String namespace, String label, String value) {
    return admin.pods().inNamespace(namespace).withLabel(label, value).list().getItems().stream()
        .filter(p -> p.getStatus() != null && "Running".equals(p.getStatus().getPhase()))
        .findFirst()
        .orElse(null);
  }

  /** What learn makes of the capture and the cluster's state (kubectl), as a user would run it. */
  private Map<String, WorkloadNetworkPolicyProposal> learn(List<String> capture)
      throws IOException {
    Path file =
        Files.writeString(dir.resolve("goldmane-billing.jsonl"), String.join("\n", capture) + "\n");
    Path state = dir.resolve("cluster-state-calico.yaml");
    Files.writeString(
        state, cluster.kubectl("get", "ns,deploy,sts,ds,rs,pods", "-A", "-o", "yaml"));
    Path out = dir.resolve("learned-calico");
    CliRun run =
        CliRun.run(
            "learn",
            "--input",
            file.toString(),
            "--cluster-state",
            state.toString(),
            // The chart's processor discovers the cluster's ranges; so does the user comparing.
            "--discover-cluster-cidrs",
            "--kubeconfig",
            cluster.kubeconfig().toString(),
            "--output-dir",
            out.toString());
    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.err())
        .as("the ranges learn discovered")
        .contains("cluster ranges:", "spec.cidrs 10.96.0.0/24");
    Map<String, WorkloadNetworkPolicyProposal> proposals = ClusterSteps.learnedIn(out);
    assertThat(proposals)
        .containsKeys(
            APPS + "/deployment-http-client-egress", APPS + "/deployment-http-server-ingress");
    return proposals;
  }

  /**
   * Goldmane as Calico's operator lays it out: Secret {@code calico-system/goldmane-key-pair}
   * (tls.crt, tls.key in PKCS#1, no ca.crt), ConfigMap {@code goldmane-ca-bundle} (key {@code
   * tigera-ca-bundle.crt}) and Service {@code goldmane:7443}, whose EndpointSlice points at the
   * stand-in on the node's address.
   */
  private void serveGoldmane(KubernetesClient admin, List<String> capture) throws IOException {
    CertManagerShapedTls tls = CertManagerShapedTls.create(dir.resolve("tigera-ca"));
    CertManagerShapedTls.Pair keyPair =
        tls.serverAndClient("goldmane", GOLDMANE_DNS_NAMES, "127.0.0.1");
    assertThat(keyPair.keyPem()).startsWith("-----BEGIN RSA PRIVATE KEY-----");
    goldmane =
        GoldmaneStandIn.serve(
            capture,
            cluster.nodeAddress(),
            keyPair.certificate(),
            CertManagerShapedTls.pkcs8Key(keyPair),
            tls.ca());
    admin
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(CALICO).endMetadata().build())
        .createOr(NonDeletingOperation::update);
    admin
        .secrets()
        .inNamespace(CALICO)
        .resource(
            new SecretBuilder()
                .withNewMetadata()
                .withName("goldmane-key-pair")
                .endMetadata()
                .withType("kubernetes.io/tls")
                .addToData("tls.crt", base64(keyPair.certificate()))
                .addToData("tls.key", base64(keyPair.key()))
                .build())
        .createOr(NonDeletingOperation::update);
    admin
        .configMaps()
        .inNamespace(CALICO)
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName("goldmane-ca-bundle")
                .endMetadata()
                .addToData("tigera-ca-bundle.crt", Files.readString(tls.ca()))
                .build())
        .createOr(NonDeletingOperation::update);
    admin
        .services()
        .inNamespace(CALICO)
        .resource(
            new ServiceBuilder()
                .withNewMetadata()
                .withName("goldmane")
                .endMetadata()
                .withNewSpec()
                .addNewPort()
                .withName("grpc")
                .withPort(7443)
                .withProtocol("TCP")
                .endPort()
                .endSpec()
                .build())
        .createOr(NonDeletingOperation::update);
    admin
        .discovery()
        .v1()
        .endpointSlices()
        .inNamespace(CALICO)
        .resource(
            new EndpointSliceBuilder()
                .withNewMetadata()
                .withName("goldmane-stand-in")
                .addToLabels("kubernetes.io/service-name", "goldmane")
                .endMetadata()
                .withAddressType("IPv4")
                .addNewEndpoint()
                .withAddresses(cluster.nodeAddress())
                .endEndpoint()
                .addNewPort()
                .withName("grpc")
                .withPort(goldmane.port())
                .withProtocol("TCP")
                .endPort()
                .build())
        .createOr(NonDeletingOperation::update);
  }

  /** Whether the pod follows Goldmane (standalone, or ingest in distributed mode). */
  private static boolean followsGoldmane(Pod pod) {
    String component = pod.getMetadata().getLabels().get("app.kubernetes.io/component");
    return "standalone".equals(component) || "ingest".equals(component);
  }

  /**
   * The restarted ingest asked Goldmane from its resume point (a start time, not from now) and
   * dropped every flow Goldmane resent that the flows topic held: it published none.
   */
  private void assertResumedWithoutRepublishing(KubernetesClient admin, String podName, int call) {
    long since = goldmane.startTimeGte(call);
    int resent = goldmane.flowsSent(call);
    Map<String, Double> m = ingestMetrics(admin, podName);
    double accepted = m.getOrDefault("accepted", 0.0);
    double alreadyPublished = m.getOrDefault("already-published", 0.0);
    double published = m.getOrDefault("published", 0.0);
    System.out.printf(
        "in-cluster (calico): %s resumed from %s: Goldmane resent %d flows, ingest accepted %.0f, "
            + "dropped %.0f as already in the topic, published %.0f%n",
        podName, Instant.ofEpochSecond(since), resent, accepted, alreadyPublished, published);
    assertThat(since)
        .as("the restarted ingest's start_time_gte (resumed, not from now)")
        .isPositive();
    assertThat(resent).as("flows Goldmane resent from the resume point").isPositive();
    assertThat(accepted).as("resent flows the restarted ingest accepted").isPositive();
    assertThat(alreadyPublished)
        .as("resent flows dropped as already published")
        .isEqualTo(accepted);
    assertThat(published).as("flows published again after the restart").isZero();
    resentTotal += resent;
    resentDropped += (long) alreadyPublished;
  }

  /**
   * The ingest counters of a pod from its management port ({@code /metrics}, behind the chart's
   * Kubernetes access check: a token of a ServiceAccount bound to the release's metrics-reader
   * ClusterRole).
   */
  private Map<String, Double> ingestMetrics(KubernetesClient admin, String podName) {
    String body =
        ManagementScrape.metrics(
            cluster, admin, InClusterIT.NAMESPACE, podName, APPS, SCRAPER_BINDING);
    Map<String, Double> out = new TreeMap<>();
    for (String line : body.lines().toList()) {
      if (line.startsWith("#") || line.isBlank()) {
        continue;
      }
      double value = Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      if (line.startsWith("network_enforcer_ingest_flows_accepted_total{")
          && line.contains("provider=\"calico\"")) {
        out.merge("accepted", value, Double::sum);
      } else if (line.startsWith("network_enforcer_ingest_flows_published_total{")
          && line.contains("provider=\"calico\"")) {
        out.merge("published", value, Double::sum);
      } else if (line.startsWith("network_enforcer_ingest_flows_dropped_total{")
          && line.contains("reason=\"already-published\"")) {
        out.merge("already-published", value, Double::sum);
      }
    }
    return out;
  }

  /**
   * Waits until the capture's namespaces hold exactly the proposals learn made, with exactly its
   * evidence counts; sets lost and doubled.
   */
  private void awaitExactProposals(KubernetesClient admin) {
    ClusterSteps.awaitExactProposals(
        cluster,
        "the Goldmane capture's proposals in the cluster",
        PIPELINE,
        learned,
        () -> proposalsIn(admin),
        (l, d) -> {
          lost = l;
          doubled = d;
        },
        () -> "");
  }

  /** The proposals in the namespaces learn wrote proposals for, by namespace/name. */
  private Map<String, WorkloadNetworkPolicyProposal> proposalsIn(KubernetesClient admin) {
    Map<String, WorkloadNetworkPolicyProposal> stored = new TreeMap<>();
    for (String namespace :
        learned.values().stream().map(p -> p.getMetadata().getNamespace()).distinct().toList()) {
      admin
          .resources(WorkloadNetworkPolicyProposal.class)
          .inNamespace(namespace)
          .list()
          .getItems()
          .forEach(
              p -> stored.put(p.getMetadata().getNamespace() + "/" + p.getMetadata().getName(), p));
    }
    return stored;
  }

  private void runHelm(List<String> args, List<String> extra) {
    ClusterSteps.helm(cluster, args, extra);
  }

  private static String base64(Path file) throws IOException {
    return Base64.getEncoder().encodeToString(Files.readAllBytes(file));
  }
}
