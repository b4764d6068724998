package io.kubewarden.networkenforcer.cli.incluster;

import static io.kubewarden.networkenforcer.cli.incluster.ClusterSteps.releasePods;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.kubewarden.networkenforcer.cli.CliRun;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicy;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.testing.ClusterImages;
import io.kubewarden.networkenforcer.testing.IstioCrds;
import io.kubewarden.networkenforcer.testing.KubeCluster;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The chart as a user installs it, {@code helm install} with nothing set: provider istio with TLS
 * from cert-manager (its controller built from the release, the CSI driver a stand-in, see
 * hack/tools/cluster/README.md), fluent-bit (a stand-in speaking its OTLP output) reading ztunnel's
 * access log from the node's /var/log, the default OpenTelemetry collector (built from the
 * collector's modules, under the image reference of the default values). ztunnel is a stand-in pod
 * printing the recorded ztunnel lines of the sample with this cluster's pod names and addresses, so
 * the kubelet writes them where fluent-bit reads them. Used by {@link InClusterIT}, which owns the
 * cluster.
 */
final class DefaultValuesRelease {

  /**
   * The first install's release name and namespace: its CRDs outlive {@code helm uninstall} (kept
   * on purpose), and helm adopts them only into a release of the same name and namespace (another
   * fails with "invalid ownership metadata").
   */
  static final String RELEASE = InClusterIT.RELEASE;

  static final String NAMESPACE = InClusterIT.NAMESPACE;

  /**
   * Not the sample's "demo": the first install's proposals and policies stay there (CRDs outlive a
   * release).
   */
  static final String APPS = "shop";

  static final String ISTIO = "istio-system";
  static final String PROTECTED = "deployment-http-server-ingress";
  private static final Duration READY = Duration.ofMinutes(6);
  private static final Duration PIPELINE = Duration.ofMinutes(4);
  private static final ResourceDefinitionContext AUTHORIZATION_POLICY =
      new ResourceDefinitionContext.Builder()
          .withGroup("security.istio.io")
          .withVersion("v1")
          .withKind("AuthorizationPolicy")
          .withPlural("authorizationpolicies")
          .withNamespaced(true)
          .build();
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private static final DateTimeFormatter ZTUNNEL_TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(ZoneOffset.UTC);

  private final KubeCluster cluster;
  private final Path dir;
  private final String builtImage;
  int installs;
  int readyInstalls;
  int flows;
  int proposals;
  int promoted;
  long violations;
  int restarts;
  long lost = -1;
  long doubled = -1;
  double collectorDenies;
  Duration installToReady;

  /** What learn made of the ztunnel capture (step 10). */
  private Map<String, WorkloadNetworkPolicyProposal> learned;

  DefaultValuesRelease(KubeCluster cluster, Path dir, String builtImage) {
    this.cluster = cluster;
    this.dir = dir;
    this.builtImage = builtImage;
  }

  /**
   * What the default values need beyond the cluster: cert-manager, Istio's CRD, the images under
   * their default names.
   */
  void prepare() throws IOException {
    cluster.installCertManager();
    IstioCrds.installAuthorizationPolicy(cluster.client(), Duration.ofMinutes(1));
    cluster.importClusterImage(ClusterImages.OTEL_COLLECTOR);
    cluster.importClusterImage(ClusterImages.FLUENT_BIT);
    cluster.tagImage(containerdName(builtImage), containerdName(defaultImage()));
  }

  /** {@code helm install} with no value set; every pod Ready under the chart's probes. */
  void installAndAwaitReady() {
    KubernetesClient admin = cluster.client();
    installs++;
    Instant start = Instant.now();
    helm(
        "install",
        RELEASE,
        InClusterIT.chart().toString(),
        "--namespace",
        NAMESPACE,
        "--create-namespace");
    cluster.await(
        "every pod of the default release Ready",
        READY,
        () -> {
          List<Pod> pods = releasePods(admin);
          return pods.size() >= 3 && pods.stream().allMatch(InClusterIT::ready);
        });
    installToReady = Duration.between(start, Instant.now());
    readyInstalls++;
    List<String> names =
        releasePods(admin).stream().map(p -> p.getMetadata().getName()).sorted().toList();
    System.out.println("in-cluster (default values): Ready " + names);
    assertThat(names)
        .anyMatch(n -> n.contains("fluent-bit"))
        .anyMatch(n -> n.contains("otel-collector"));
  }

  /**
   * The sample's ztunnel lines, with this cluster's pods, printed by a ztunnel stand-in pod: the
   * proposals in the cluster must be exactly those {@code learn} makes of the same lines and a
   * cluster state read with kubectl, as the README tells a user to.
   */
  void ztunnelFlowsBecomeTheProposalsLearnMakes() throws IOException {
    KubernetesClient admin = cluster.client();
    ClusterSteps.createWorkloads(
        admin, APPS, cluster.pauseImage(), List.of("http-client", "http-server", "scanner"));
    Map<String, Pod> pods = new HashMap<>();
    for (String app : List.of("http-client", "http-server", "scanner")) {
      cluster.await(app + " running", READY, () -> podOf(admin, app) != null);
      pods.put(app, podOf(admin, app));
    }
    List<String> lines = rewrite(pods);
    flows = (int) lines.stream().filter(l -> l.contains("\"connection complete\"")).count();
    Path capture =
        Files.writeString(dir.resolve("ztunnel-shop.jsonl"), String.join("\n", lines) + "\n");
    Path state = dir.resolve("cluster-state.yaml");
    Files.writeString(
        state, cluster.kubectl("get", "ns,deploy,sts,ds,rs,pods", "-A", "-o", "yaml"));
    learned = learn(capture, state);
    proposals = learned.size();
    printingZtunnel(admin, "ztunnel-flows", lines);
    awaitExact(admin, learned);
  }

  /** Promoted to protect, the istio backend renders an AuthorizationPolicy (no NetworkPolicy). */
  void promotionBecomesAnAuthorizationPolicy() {
    KubernetesClient admin = cluster.client();
    ClusterSteps.promote(admin, APPS, PROTECTED, "protect");
    cluster.await(
        "AuthorizationPolicy " + APPS + "/" + PROTECTED,
        PIPELINE,
        () -> authorizationPolicy(admin) != null);
    GenericKubernetesResource policy = authorizationPolicy(admin);
    assertThat(
            policy.getMetadata().getAnnotations() == null
                ? Map.of()
                : policy.getMetadata().getAnnotations())
        .as("protect: enforced, no dry-run")
        .doesNotContainKey("istio.io/dry-run");
    assertThat(admin.network().networkPolicies().inNamespace(APPS).withName(PROTECTED).get())
        .as("istio backend: no NetworkPolicy")
        .isNull();
    promoted++;
  }

  /**
   * ztunnel denies the scanner: violation status, and an event counted by the chart's collector.
   */
  void aDeniedConnectionBecomesAViolationAndACollectorEvent() throws Exception {
    KubernetesClient admin = cluster.client();
    Pod server = podOf(admin, "http-server");
    Pod scanner = podOf(admin, "scanner");
    ObjectNode deny = JSON.createObjectNode();
    deny.put("level", "info")
        .put("time", ZTUNNEL_TIME.format(Instant.now()))
        .put("scope", "ztunnel::state")
        .put("message", "deny policy match")
        .put("policy", APPS + "/" + PROTECTED);
    deny.putObject("proxy").put("wl", APPS + "/" + server.getMetadata().getName());
    deny.putObject("inbound")
        .put("id", "86c37af8d376fcc847c48d4730137d42")
        .put("peer", scanner.getStatus().getPodIP() + ":49084");
    printingZtunnel(admin, "ztunnel-denies", List.of(JSON.writeValueAsString(deny)));
    cluster.await(
        "a violation in the status of " + APPS + "/" + PROTECTED,
        PIPELINE,
        () -> {
          WorkloadNetworkPolicy policy =
              admin
                  .resources(WorkloadNetworkPolicy.class)
                  .inNamespace(APPS)
                  .withName(PROTECTED)
                  .get();
          return policy != null
              && policy.getStatus() != null
              && policy.getStatus().getActiveViolationCount() > 0;
        });
    violations =
        admin.resources(WorkloadNetworkPolicy.class).inNamespace(APPS).list().getItems().stream()
            .filter(w -> w.getStatus() != null)
            .mapToLong(w -> w.getStatus().getActiveViolationCount())
            .sum();
    assertThat(violations).isEqualTo(1);
    Pod collector =
        releasePods(admin).stream()
            .filter(p -> p.getMetadata().getName().contains("otel-collector"))
            .findFirst()
            .orElseThrow();
    URI metrics = URI.create("http://" + collector.getStatus().getPodIP() + ":9464/metrics");
    List<String> last = new ArrayList<>();
    cluster.await(
        "network_enforcer_policy_denies at the collector",
        PIPELINE,
        () -> {
          last.clear();
          last.add(scrape(metrics));
          collectorDenies =
              last.get(0)
                  .lines()
                  .filter(l -> l.startsWith("network_enforcer_policy_denies"))
                  .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                  .sum();
          return collectorDenies > 0;
        });
    String counter =
        last.get(0)
            .lines()
            .filter(l -> l.startsWith("network_enforcer_policy_denies"))
            .findFirst()
            .orElseThrow();
    System.out.println("in-cluster (default values): collector " + counter);
    assertThat(counter).contains("enforcement_provider=\"istio\"");
    assertThat(collectorDenies).isEqualTo(1.0);
    restarts =
        releasePods(admin).stream()
            .flatMap(p -> p.getStatus().getContainerStatuses().stream())
            .mapToInt(s -> s.getRestartCount())
            .sum();
  }

  /**
   * Each pod of the release killed once with SIGKILL, the collector last: the kubelet restarts it
   * and it is Ready again, and nothing is lost or doubled: the proposals not promoted keep exactly
   * learn's counts (fluent-bit resumes from its offsets, the standalone pod from its broker), the
   * violation is counted once, and the collector's deny counter stays 1 until the collector itself
   * restarts (its counters live in memory: 0 then, as nothing is sent again).
   */
  void eachPodKilledOnceLosesAndDoublesNothing() {
    KubernetesClient admin = cluster.client();
    List<Pod> pods = new ArrayList<>(releasePods(admin));
    pods.sort(
        java.util.Comparator.comparing(
            (Pod p) -> p.getMetadata().getName().contains("otel-collector")));
    assertThat(pods).hasSizeGreaterThanOrEqualTo(3);
    // What the steps before left: the proposals not promoted (promotion turns a proposal into its
    // policy) and the denied flows counted in the policy's status. Every restart must come back to
    // exactly these counts: a flow read twice would add to them, one lost could not be missed
    // because nothing removes from them.
    Map<String, WorkloadNetworkPolicyProposal> beforeKills = storedIn(admin);
    Map<String, WorkloadNetworkPolicyProposal> notPromoted = new TreeMap<>(learned);
    notPromoted.remove(APPS + "/" + PROTECTED);
    assertThat(beforeKills.keySet())
        .as("proposals before the kills")
        .isEqualTo(notPromoted.keySet());
    long deniedBefore = deniedFlows(admin);
    assertThat(deniedBefore).as("denied flows counted before the kills").isPositive();
    for (Pod pod : pods) {
      String name = pod.getMetadata().getName();
      var main = pod.getStatus().getContainerStatuses().get(0);
      int before = main.getRestartCount();
      Instant killed = Instant.now();
      cluster.killContainer(main.getContainerID());
      cluster.await(
          name + " restarted by the kubelet and Ready",
          READY,
          () -> {
            Pod now = admin.pods().inNamespace(NAMESPACE).withName(name).get();
            return now != null
                && now.getStatus().getContainerStatuses().get(0).getRestartCount() > before
                && InClusterIT.ready(now);
          });
      System.out.printf(
          "in-cluster (default values): %s SIGKILLed, restarted and Ready in %d ms%n",
          name, Duration.between(killed, Instant.now()).toMillis());
      if (!beforeKills.isEmpty()) {
        awaitExact(admin, beforeKills);
      }
      List<Long> seen = new ArrayList<>();
      try {
        cluster.await(
            "the denied flows counted " + deniedBefore + " times after " + name + " restarted",
            PIPELINE,
            () -> {
              seen.clear();
              seen.add(deniedFlows(admin));
              return seen.get(0) == deniedBefore;
            });
      } finally {
        if (!seen.isEmpty()) {
          lost = Math.max(0, deniedBefore - seen.get(0));
          doubled = Math.max(0, seen.get(0) - deniedBefore);
        }
      }
      assertThat(activeViolations(admin)).as("violations after %s restarted", name).isEqualTo(1);
      boolean collector = name.contains("otel-collector");
      double denies = collectorDenies(admin);
      System.out.printf(
          "in-cluster (default values): after %s restarted: violations %d, collector denies %.0f%n",
          name, activeViolations(admin), denies);
      assertThat(denies)
          .as("network_enforcer_policy_denies at the collector after %s restarted", name)
          .isEqualTo(collector ? 0.0 : 1.0);
    }
    restarts =
        releasePods(admin).stream()
            .flatMap(p -> p.getStatus().getContainerStatuses().stream())
            .mapToInt(s -> s.getRestartCount())
            .sum();
    assertThat(restarts)
        .as("restarts of the release's containers")
        .isGreaterThanOrEqualTo(pods.size());
  }

  /** Every denied flow the policies of the capture's namespace counted (status violationCount). */
  private static long deniedFlows(KubernetesClient admin) {
    return admin.resources(WorkloadNetworkPolicy.class).inNamespace(APPS).list().getItems().stream()
        .filter(w -> w.getStatus() != null)
        .mapToLong(w -> w.getStatus().getViolationCount())
        .sum();
  }

  private static long activeViolations(KubernetesClient admin) {
    return admin.resources(WorkloadNetworkPolicy.class).inNamespace(APPS).list().getItems().stream()
        .filter(w -> w.getStatus() != null)
        .mapToLong(w -> w.getStatus().getActiveViolationCount())
        .sum();
  }

  /**
   * The collector's network_enforcer_policy_denies now (0 when it has no such series), once its
   * Prometheus endpoint answers 200.
   */
  private double collectorDenies(KubernetesClient admin) {
    Pod collector =
        releasePods(admin).stream()
            .filter(p -> p.getMetadata().getName().contains("otel-collector"))
            .findFirst()
            .orElseThrow();
    URI uri = URI.create("http://" + collector.getStatus().getPodIP() + ":9464/metrics");
    List<String> body = new ArrayList<>();
    cluster.await(
        "the collector's Prometheus endpoint answering",
        PIPELINE,
        () -> {
          try {
            HttpResponse<String> response =
                HTTP.send(
                    HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.ofString());
            body.clear();
            body.add(response.body());
            return response.statusCode() == 200;
          } catch (IOException e) {
            return false;
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
          }
        });
    return body.get(0)
        .lines()
        .filter(l -> l.startsWith("network_enforcer_policy_denies"))
        .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
        .sum();
  }

  String summary() {
    return String.format(
        "in-cluster: installs %d/%d ready, flows %d, proposals %d, promoted %d, violations %d, "
            + "restarts %d, lost %d, doubled %d",
        readyInstalls, installs, flows, proposals, promoted, violations, restarts, lost, doubled);
  }

  // --- steps -------------------------------------------------------------------------------------

  /**
   * The sample's lines, now, with this cluster's pod names, addresses and namespace: what ztunnel
   * would log for the same connections here.
   */
  private static List<String> rewrite(Map<String, Pod> pods) throws IOException {
    Map<String, String> names = new TreeMap<>();
    Map<String, String> addresses = new TreeMap<>();
    for (String line : Files.readAllLines(CliRun.sample("ztunnel.jsonl"))) {
      JsonNode record = JSON.readTree(line);
      for (String side : List.of("src", "dst")) {
        String workload = record.path(side + ".workload").asText("");
        for (String app : List.of("http-client", "http-server")) {
          if (workload.startsWith(app + "-")) {
            names.put(workload, pods.get(app).getMetadata().getName());
            String address =
                record.path(side.equals("src") ? "src.addr" : "dst.hbone_addr").asText("");
            addresses.put(
                address.substring(0, address.lastIndexOf(':')),
                pods.get(app).getStatus().getPodIP());
          }
        }
      }
    }
    List<String> out = new ArrayList<>();
    Instant now = Instant.now();
    for (String line : Files.readAllLines(CliRun.sample("ztunnel.jsonl"))) {
      String rewritten =
          line.replace("/ns/demo/", "/ns/" + APPS + "/")
              .replace("\"demo\"", "\"" + APPS + "\"")
              .replace(".demo.svc.", "." + APPS + ".svc.");
      for (Map.Entry<String, String> e : names.entrySet()) {
        rewritten = rewritten.replace(e.getKey(), e.getValue());
      }
      for (Map.Entry<String, String> e : addresses.entrySet()) {
        rewritten = rewritten.replace("\"" + e.getKey() + ":", "\"" + e.getValue() + ":");
      }
      ObjectNode record = (ObjectNode) JSON.readTree(rewritten);
      if (record.has("time")) {
        record.put("time", ZTUNNEL_TIME.format(now));
      }
      out.add(JSON.writeValueAsString(record));
    }
    return out;
  }

  /** A ztunnel stand-in: a pod named as ztunnel's (the chart's logPath) printing the lines once. */
  private void printingZtunnel(KubernetesClient admin, String name, List<String> lines) {
    admin
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(ISTIO).endMetadata().build())
        .createOr(NonDeletingOperation::update);
    admin
        .configMaps()
        .inNamespace(ISTIO)
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .addToData("ztunnel.jsonl", String.join("\n", lines) + "\n")
                .build())
        .createOr(NonDeletingOperation::update);
    admin
        .pods()
        .inNamespace(ISTIO)
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewSpec()
                .withRestartPolicy("Never")
                .addNewContainer()
                .withName("istio-proxy")
                .withImage(builtImage)
                .withImagePullPolicy("Never")
                .withCommand("/bin/sh", "-c", "cat /capture/ztunnel.jsonl; exec sleep 86400")
                .addNewVolumeMount()
                .withName("capture")
                .withMountPath("/capture")
                .endVolumeMount()
                .endContainer()
                .addNewVolume()
                .withName("capture")
                .withNewConfigMap()
                .withName(name)
                .endConfigMap()
                .endVolume()
                .endSpec()
                .build())
        .create();
    cluster.await(
        name + " running",
        READY,
        () -> {
          Pod pod = admin.pods().inNamespace(ISTIO).withName(name).get();
          return pod != null
              && pod.getStatus() != null
              && "Running".equals(pod.getStatus().getPhase());
        });
  }

  private void awaitExact(
      KubernetesClient admin, Map<String, WorkloadNetworkPolicyProposal> learned) {
    ClusterSteps.awaitExactProposals(
        cluster,
        "the ztunnel capture's proposals in " + APPS,
        PIPELINE,
        learned,
        () -> storedIn(admin),
        (l, d) -> {
          lost = l;
          doubled = d;
        },
        () -> "");
  }

  /** The proposals in the capture's namespace, by namespace/name. */
  private static Map<String, WorkloadNetworkPolicyProposal> storedIn(KubernetesClient admin) {
    Map<String, WorkloadNetworkPolicyProposal> stored = new TreeMap<>();
    admin
        .resources(WorkloadNetworkPolicyProposal.class)
        .inNamespace(APPS)
        .list()
        .getItems()
        .forEach(
            p -> stored.put(p.getMetadata().getNamespace() + "/" + p.getMetadata().getName(), p));
    return stored;
  }

  private Map<String, WorkloadNetworkPolicyProposal> learn(Path capture, Path state)
      throws IOException {
    Path out = dir.resolve("learned-istio");
    CliRun run =
        CliRun.run(
            "learn",
            "--input",
            capture.toString(),
            "--cluster-state",
            state.toString(),
            "--output-dir",
            out.toString());
    assertThat(run.exitCode()).as(run.err()).isZero();
    Map<String, WorkloadNetworkPolicyProposal> learned = ClusterSteps.learnedIn(out);
    assertThat(learned).containsKey(APPS + "/" + PROTECTED);
    return learned;
  }

  private static Pod podOf(KubernetesClient admin, String app) {
    return admin.pods().inNamespace(APPS).withLabel("app", app).list().getItems().stream()
        .filter(
            p ->
                p.getStatus() != null
                    && "Running".equals(p.getStatus().getPhase())
                    && p.getStatus().getPodIP() != null)
        .findFirst()
        .orElse(null);
  }

  private static GenericKubernetesResource authorizationPolicy(KubernetesClient admin) {
    return admin
        .genericKubernetesResources(AUTHORIZATION_POLICY)
        .inNamespace(APPS)
        .withName(PROTECTED)
        .get();
  }

  private static String scrape(URI uri) {
    try {
      return HTTP.send(
              HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).build(),
              HttpResponse.BodyHandlers.ofString())
          .body();
    } catch (IOException e) {
      return "";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "";
    }
  }

  /** The product image under the chart's default reference (image.repository, tag = appVersion). */
  static String defaultImage() throws IOException {
    Path chart = InClusterIT.chart();
    Map<?, ?> values =
        new KubernetesSerialization()
            .unmarshal(Files.readString(chart.resolve("values.yaml")), Map.class);
    Map<?, ?> chartYaml =
        new KubernetesSerialization()
            .unmarshal(Files.readString(chart.resolve("Chart.yaml")), Map.class);
    return ((Map<?, ?>) values.get("image")).get("repository") + ":" + chartYaml.get("appVersion");
  }

  /** containerd's name of an image: Docker's short names are docker.io's. */
  static String containerdName(String reference) {
    String first = reference.substring(0, Math.max(reference.indexOf('/'), 0));
    boolean domain = first.contains(".") || first.contains(":") || first.equals("localhost");
    String named =
        domain
            ? reference
            : "docker.io/" + (reference.contains("/") ? reference : "library/" + reference);
    return named;
  }

  private void helm(String... args) {
    ClusterSteps.helm(cluster, List.of(args), List.of());
  }
}
