package io.kubewarden.networkenforcer.cli.incluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.kubewarden.networkenforcer.testing.ClusterImages;
import io.kubewarden.networkenforcer.testing.KubeCluster;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The default-values release's NetworkPolicies (as {@code helm install} renders them, nothing set)
 * enforced by a real enforcer: kube-network-policies on the node ({@link
 * KubeCluster#enforceNetworkPolicies()}), running since the cluster started. Prober pods (the
 * netcheck image: one TCP connection per target, {@code connected} or {@code timeout}) connect to
 * the release's pods by address: one in a namespace of its own with no label, one with fluent-bit's
 * selector labels and one with the standalone pod's, in the release namespace (the peers the
 * policies name). Each refused path has an allowed path to the same port beside it, and every
 * attempt connects while the enforcer is stopped a moment, so a timeout is the policies' doing and
 * not a closed port. The kubelet's probes are proven by the collector killed with SIGKILL and Ready
 * again under enforcement. Prints {@code network policies: refused R of R, allowed A of A}.
 */
final class EnforcedNetworkPolicies {

  static final String OUTSIDE = "np-outside";
  private static final String OWNER = "netcheck-probers";
  private static final Duration RUN = Duration.ofMinutes(2);
  private static final Duration READY = Duration.ofMinutes(4);
  private static final List<String> SELECTOR_LABELS =
      List.of(
          "app.kubernetes.io/name", "app.kubernetes.io/instance", "app.kubernetes.io/component");

  /** One connection: from which prober, to which port of which pod, allowed or not. */
  record Attempt(String prober, String name, String address, boolean allowed) {}

  private final KubeCluster cluster;
  int refused;
  int refusals;
  int allowed;
  int allowances;

  EnforcedNetworkPolicies(KubeCluster cluster) {
    this.cluster = cluster;
  }

  void allowExactlyTheThreatModelsPaths() {
    KubernetesClient admin = cluster.client();
    String image = cluster.importClusterImage(ClusterImages.NETCHECK);
    admin
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(OUTSIDE).endMetadata().build())
        .createOr(NonDeletingOperation::update);
    Pod standalone = component(admin, "standalone");
    Pod collector = component(admin, "otel-collector");
    Pod fluentBit = component(admin, "fluent-bit");
    Map<String, Map<String, String>> probers = new LinkedHashMap<>();
    probers.put("outside", Map.of());
    probers.put("fluent-bit", selectorLabels(fluentBit));
    probers.put("standalone", selectorLabels(standalone));
    List<Attempt> attempts =
        List.of(
            // in: the OTLP receiver from fluent-bit only, the collector's OTLP from the writer only
            new Attempt("outside", "standalone-otlp", port(standalone, "otlp"), false),
            new Attempt("fluent-bit", "standalone-otlp", port(standalone, "otlp"), true),
            new Attempt("outside", "collector-otlp", port(collector, "otlp"), false),
            new Attempt("standalone", "collector-otlp", port(collector, "otlp"), true),
            // in: probes and (managementFrom empty) the management port from anywhere
            new Attempt("outside", "standalone-probes", port(standalone, "probes"), true),
            new Attempt("outside", "standalone-management", port(standalone, "management"), true),
            new Attempt("outside", "collector-health", port(collector, "health"), true),
            new Attempt("outside", "fluent-bit-http", port(fluentBit, "http"), true),
            // out: fluent-bit only to the OTLP receiver, the standalone pod not to these
            new Attempt("fluent-bit", "collector-otlp", port(collector, "otlp"), false),
            new Attempt(
                "fluent-bit", "standalone-management", port(standalone, "management"), false),
            new Attempt("standalone", "collector-health", port(collector, "health"), false),
            new Attempt("standalone", "fluent-bit-http", port(fluentBit, "http"), false));
    try {
      // The baseline: the enforcer (running since the cluster started) stopped a moment.
      cluster.stopEnforcingNetworkPolicies();
      Map<String, String> open;
      try {
        open = probe(admin, image, "open", probers, attempts);
      } finally {
        cluster.enforceNetworkPolicies();
      }
      assertThat(open.values())
          .as("every attempt without an enforcer (bridge CNI): %s", open)
          .containsOnly("connected");
      Map<String, String> enforced = probe(admin, image, "enforced", probers, attempts);
      Map<String, String> expected = new LinkedHashMap<>();
      for (Attempt attempt : attempts) {
        String key = attempt.prober() + " -> " + attempt.name();
        expected.put(key, attempt.allowed() ? "connected" : "timeout");
        if (attempt.allowed()) {
          allowances++;
          allowed += "connected".equals(enforced.get(key)) ? 1 : 0;
        } else {
          refusals++;
          refused += "timeout".equals(enforced.get(key)) ? 1 : 0;
        }
      }
      allowances++;
      allowed += kubeletProbesReachARestartedCollector(admin) ? 1 : 0;
      System.out.printf(
          "network policies: refused %d of %d, allowed %d of %d (kube-network-policies; %s)%n",
          refused, refusals, allowed, allowances, enforced);
      assertThat(enforced).as("each attempt under the enforcer").isEqualTo(expected);
      assertThat(allowed).as("allowed paths that connected").isEqualTo(allowances);
    } finally {
      deleteProbers(admin);
    }
  }

  /** One prober pod per peer; each attempt's result ({@code connected}, {@code timeout}, ...). */
  private Map<String, String> probe(
      KubernetesClient admin,
      String image,
      String phase,
      Map<String, Map<String, String>> probers,
      List<Attempt> attempts) {
    Map<String, String> results = new LinkedHashMap<>();
    List<Pod> pods = new ArrayList<>();
    // The controller of the probers in the release namespace: a pod with fluent-bit's selector
    // labels and no controller would be adopted, and deleted, by fluent-bit's DaemonSet.
    ConfigMap owner =
        admin
            .configMaps()
            .inNamespace(InClusterIT.NAMESPACE)
            .resource(
                new ConfigMapBuilder().withNewMetadata().withName(OWNER).endMetadata().build())
            .createOr(NonDeletingOperation::update);
    probers.forEach(
        (prober, labels) -> {
          List<String> args = new ArrayList<>(List.of("-timeout=3s", "-delay=5s"));
          attempts.stream()
              .filter(a -> a.prober().equals(prober))
              .forEach(a -> args.add(a.name() + "=" + a.address()));
          Pod pod =
              new PodBuilder()
                  .withNewMetadata()
                  .withName("netcheck-" + prober + "-" + phase)
                  .withNamespace(prober.equals("outside") ? OUTSIDE : InClusterIT.NAMESPACE)
                  .withLabels(labels)
                  .addToLabels("network-enforcer.test/prober", prober)
                  .withOwnerReferences(
                      prober.equals("outside")
                          ? List.of()
                          : List.of(
                              new OwnerReferenceBuilder()
                                  .withApiVersion("v1")
                                  .withKind("ConfigMap")
                                  .withName(OWNER)
                                  .withUid(owner.getMetadata().getUid())
                                  .withController(true)
                                  .build()))
                  .endMetadata()
                  .withNewSpec()
                  .withRestartPolicy("Never")
                  .addNewContainer()
                  .withName("netcheck")
                  .withImage(image)
                  .withImagePullPolicy("Never")
                  .withArgs(args)
                  .endContainer()
                  .endSpec()
                  .build();
          pods.add(admin.pods().resource(pod).create());
        });
    for (Pod pod : pods) {
      String namespace = pod.getMetadata().getNamespace();
      String name = pod.getMetadata().getName();
      cluster.await(
          name + " Succeeded",
          RUN,
          () -> {
            Pod now = admin.pods().inNamespace(namespace).withName(name).get();
            return now != null && "Succeeded".equals(now.getStatus().getPhase());
          });
      String prober = pod.getMetadata().getLabels().get("network-enforcer.test/prober");
      String log = admin.pods().inNamespace(namespace).withName(name).getLog();
      System.out.printf("network policies (%s): %s%n", name, log.strip().replace('\n', ';'));
      log.lines()
          .map(line -> line.split(" ", 3))
          .filter(words -> words.length == 3)
          .forEach(words -> results.put(prober + " -> " + words[0], words[2]));
    }
    return results;
  }

  /**
   * The collector killed with SIGKILL under the enforcer: Ready again only if the kubelet's probes
   * (health port) still reach it.
   */
  private boolean kubeletProbesReachARestartedCollector(KubernetesClient admin) {
    Pod collector = component(admin, "otel-collector");
    var main = collector.getStatus().getContainerStatuses().get(0);
    int before = main.getRestartCount();
    String name = collector.getMetadata().getName();
    Instant killed = Instant.now();
    cluster.killContainer(main.getContainerID());
    cluster.await(
        name + " restarted and Ready under the enforcer",
        READY,
        () -> {
          Pod now = admin.pods().inNamespace(InClusterIT.NAMESPACE).withName(name).get();
          return now != null
              && now.getStatus().getContainerStatuses().get(0).getRestartCount() > before
              && InClusterIT.ready(now);
        });
    System.out.printf(
        "network policies: %s SIGKILLed, Ready again under the enforcer in %d ms%n",
        name, Duration.between(killed, Instant.now()).toMillis());
    return true;
  }

  private void deleteProbers(KubernetesClient admin) {
    admin
        .pods()
        .inNamespace(InClusterIT.NAMESPACE)
        .withLabel("network-enforcer.test/prober")
        .delete();
    admin.configMaps().inNamespace(InClusterIT.NAMESPACE).withName(OWNER).delete();
    admin.namespaces().withName(OUTSIDE).delete();
    cluster.await(
        "the prober pods gone",
        RUN,
        () ->
            admin
                .pods()
                .inAnyNamespace()
                .withLabel("network-enforcer.test/prober")
                .list()
                .getItems()
                .isEmpty());
  }

  private static Pod component(KubernetesClient admin, String component) {
    List<Pod> pods =
        admin
            .pods()
            .inNamespace(InClusterIT.NAMESPACE)
            .withLabel("app.kubernetes.io/instance", InClusterIT.RELEASE)
            .withLabel("app.kubernetes.io/component", component)
            .withoutLabel("network-enforcer.test/prober")
            .list()
            .getItems();
    assertThat(pods).as("the release's %s pods", component).hasSize(1);
    return pods.get(0);
  }

  private static Map<String, String> selectorLabels(Pod pod) {
    Map<String, String> labels = new LinkedHashMap<>();
    SELECTOR_LABELS.forEach(key -> labels.put(key, pod.getMetadata().getLabels().get(key)));
    return labels;
  }

  /** {@code <pod address>:<its container port of that name>}. */
  private static String port(Pod pod, String portName) {
    int port =
        pod.getSpec().getContainers().stream()
            .flatMap(c -> c.getPorts().stream())
            .filter(p -> portName.equals(p.getName()))
            .mapToInt(ContainerPort::getContainerPort)
            .findFirst()
            .orElseThrow(
                () ->
                    new AssertionError(
                        pod.getMetadata().getName() + " has no container port " + portName));
    return pod.getStatus().getPodIP() + ":" + port;
  }
}
