package io.kubewarden.networkenforcer.cli.incluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.kubewarden.networkenforcer.common.crd.RuleEvidence;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.testing.KubeCluster;
import io.kubewarden.networkenforcer.testing.KubeTools;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Steps both in-cluster stories ({@link InClusterIT} and {@link DefaultValuesRelease}) take the
 * same way: helm, the workloads learn's proposals are for, the proposals learn wrote, promotion.
 */
final class ClusterSteps {
  private static final String PROMOTE_LABEL = "networkenforcer.kubewarden.io/promote";

  private ClusterSteps() {}

  /**
   * Runs helm against the cluster and fails, with the cluster's diagnostics, unless it exits 0;
   * {@code extra} follows {@code args} on the command line but not in the log.
   */
  static void helm(KubeCluster cluster, List<String> args, List<String> extra) {
    List<String> command =
        new ArrayList<>(
            List.of(
                KubeTools.require(KubeTools.HELM).toString(),
                "--kubeconfig",
                cluster.kubeconfig().toString()));
    command.addAll(args);
    command.addAll(extra);
    try {
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      int exit = process.waitFor();
      System.out.println("helm " + String.join(" ", args) + ":\n" + output);
      assertThat(exit)
          .as("helm %s: %s%n%s", String.join(" ", args), output, cluster.diagnostics())
          .isZero();
    } catch (IOException e) {
      throw new AssertionError("cannot run helm", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /**
   * The namespace and, per app, a service account {@code <app>-sa} and a one-replica Deployment
   * labelled {@code app=<app>} running {@code image} (already on the node: pull policy Never).
   */
  static void createWorkloads(
      KubernetesClient admin, String namespace, String image, List<String> apps) {
    admin
        .namespaces()
        .resource(
            new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build())
        .createOr(NonDeletingOperation::update);
    for (String app : apps) {
      admin
          .serviceAccounts()
          .inNamespace(namespace)
          .resource(
              new ServiceAccountBuilder()
                  .withNewMetadata()
                  .withName(app + "-sa")
                  .endMetadata()
                  .build())
          .createOr(NonDeletingOperation::update);
      admin
          .apps()
          .deployments()
          .inNamespace(namespace)
          .resource(
              new DeploymentBuilder()
                  .withNewMetadata()
                  .withName(app)
                  .endMetadata()
                  .withNewSpec()
                  .withReplicas(1)
                  .withNewSelector()
                  .addToMatchLabels("app", app)
                  .endSelector()
                  .withNewTemplate()
                  .withNewMetadata()
                  .addToLabels("app", app)
                  .endMetadata()
                  .withNewSpec()
                  .withServiceAccountName(app + "-sa")
                  .addNewContainer()
                  .withName("main")
                  .withImage(image)
                  .withImagePullPolicy("Never")
                  .endContainer()
                  .endSpec()
                  .endTemplate()
                  .endSpec()
                  .build())
          .createOr(NonDeletingOperation::update);
    }
  }

  /** The proposals learn wrote below {@code out}, by namespace/name. */
  static Map<String, WorkloadNetworkPolicyProposal> learnedIn(Path out) throws IOException {
    KubernetesSerialization serialization = new KubernetesSerialization();
    Map<String, WorkloadNetworkPolicyProposal> proposals = new TreeMap<>();
    try (Stream<Path> files = Files.walk(out)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".yaml")).toList()) {
        WorkloadNetworkPolicyProposal p =
            serialization.unmarshal(Files.readString(file), WorkloadNetworkPolicyProposal.class);
        proposals.put(p.getMetadata().getNamespace() + "/" + p.getMetadata().getName(), p);
      }
    }
    return proposals;
  }

  /**
   * Deletes the proposals earlier installs left in {@code namespaces} (CoreDNS's in kube-system):
   * kept, they would add their counts to the next install's. Nothing to do before the first install
   * (the chart brings the CRD).
   */
  static void forgetEarlierProposals(
      KubeCluster cluster, Collection<String> namespaces, Duration deadline) {
    KubernetesClient admin = cluster.client();
    if (admin
            .apiextensions()
            .v1()
            .customResourceDefinitions()
            .withName("workloadnetworkpolicyproposals.networkenforcer.kubewarden.io")
            .get()
        == null) {
      return;
    }
    for (String namespace : namespaces) {
      admin.resources(WorkloadNetworkPolicyProposal.class).inNamespace(namespace).delete();
    }
    cluster.await(
        "no proposal left in " + namespaces,
        deadline,
        () ->
            namespaces.stream()
                .allMatch(
                    namespace ->
                        admin
                            .resources(WorkloadNetworkPolicyProposal.class)
                            .inNamespace(namespace)
                            .list()
                            .getItems()
                            .isEmpty()));
  }

  /** What the last look counted against the expected evidence. */
  interface Counted {
    void counted(long lost, long doubled);
  }

  /**
   * Waits until {@code stored} holds exactly the {@code expected} proposals (same names, same
   * allow-lists) with exactly their evidence counts; tells {@code counted} the lost and doubled
   * observations of every look. On failure, the last look and {@code diagnostics} are in the error.
   */
  static void awaitExactProposals(
      KubeCluster cluster,
      String what,
      Duration deadline,
      Map<String, WorkloadNetworkPolicyProposal> expected,
      Supplier<Map<String, WorkloadNetworkPolicyProposal>> stored,
      Counted counted,
      Supplier<String> diagnostics) {
    long expectedCount = evidenceCount(expected.values());
    assertThat(expectedCount).as("observations in learn's proposals").isPositive();
    // Only the last answer is kept; what it shows is written out if the wait fails.
    AtomicReference<Map<String, WorkloadNetworkPolicyProposal>> last =
        new AtomicReference<>(Map.of());
    try {
      cluster.await(
          what,
          deadline,
          () -> {
            Map<String, WorkloadNetworkPolicyProposal> now = stored.get();
            last.set(now);
            if (!now.keySet().equals(expected.keySet())) {
              return false;
            }
            boolean same =
                expected.entrySet().stream()
                    .allMatch(
                        e -> now.get(e.getKey()).getSpec().sameAllowListAs(e.getValue().getSpec()));
            long count = evidenceCount(now.values());
            counted.counted(Math.max(0, expectedCount - count), Math.max(0, count - expectedCount));
            return same && count == expectedCount;
          });
    } catch (IllegalStateException e) {
      // The difference leads: CI shows only the head of a long message.
      KubernetesSerialization json = cluster.client().getKubernetesSerialization();
      Map<String, WorkloadNetworkPolicyProposal> seen = last.get();
      throw new AssertionError(
          what
              + ": "
              + differenceOf(expected, seen)
              + "\n"
              + e.getMessage()
              + "\nlast seen: "
              + seen.keySet()
              + " "
              + seen.values().stream()
                  .map(p -> json.asJson(p.getStatus()))
                  .collect(Collectors.joining("\n"))
              + "\nlearned: "
              + expected.keySet()
              + "\n"
              + diagnostics.get(),
          e);
    }
  }

  /**
   * What the stored proposals lack or have too much of, per proposal: keys missing or extra, a
   * different allow-list, and each evidence count that differs (peer, rule, expected, stored).
   */
  static String differenceOf(
      Map<String, WorkloadNetworkPolicyProposal> expected,
      Map<String, WorkloadNetworkPolicyProposal> stored) {
    List<String> lines = new ArrayList<>();
    expected.keySet().stream()
        .filter(k -> !stored.containsKey(k))
        .forEach(k -> lines.add("missing " + k));
    stored.keySet().stream()
        .filter(k -> !expected.containsKey(k))
        .forEach(k -> lines.add("extra " + k));
    expected.forEach(
        (key, want) -> {
          WorkloadNetworkPolicyProposal got = stored.get(key);
          if (got == null) {
            return;
          }
          if (!got.getSpec().sameAllowListAs(want.getSpec())) {
            lines.add(key + ": allow-list differs");
          }
          Map<String, Long> wanted = countsByPeer(want);
          Map<String, Long> have = countsByPeer(got);
          Set<String> peers = new TreeSet<>(wanted.keySet());
          peers.addAll(have.keySet());
          peers.stream()
              .filter(peer -> !wanted.getOrDefault(peer, 0L).equals(have.getOrDefault(peer, 0L)))
              .forEach(
                  peer ->
                      lines.add(
                          key
                              + " "
                              + peer
                              + ": expected "
                              + wanted.getOrDefault(peer, 0L)
                              + ", stored "
                              + have.getOrDefault(peer, 0L)));
        });
    return lines.isEmpty() ? "no difference in proposals or counts" : String.join("; ", lines);
  }

  private static Map<String, Long> countsByPeer(WorkloadNetworkPolicyProposal proposal) {
    if (proposal.getStatus() == null || proposal.getStatus().getEvidence() == null) {
      return Map.of();
    }
    return proposal.getStatus().getEvidence().stream()
        .collect(
            Collectors.groupingBy(
                e -> "rule " + e.getRule() + " " + e.getPeer(),
                TreeMap::new,
                Collectors.summingLong(RuleEvidence::getCount)));
  }

  /** Every observation the proposals' evidence counts. */
  static long evidenceCount(Collection<WorkloadNetworkPolicyProposal> proposals) {
    return proposals.stream()
        .filter(p -> p.getStatus() != null && p.getStatus().getEvidence() != null)
        .flatMap(p -> p.getStatus().getEvidence().stream())
        .mapToLong(RuleEvidence::getCount)
        .sum();
  }

  /** Labels the proposal for promotion to {@code mode}, as a person would. */
  static void promote(KubernetesClient admin, String namespace, String name, String mode) {
    admin
        .resources(WorkloadNetworkPolicyProposal.class)
        .inNamespace(namespace)
        .withName(name)
        .edit(
            p -> {
              if (p.getMetadata().getLabels() == null) {
                p.getMetadata().setLabels(new HashMap<>());
              }
              p.getMetadata().getLabels().put(PROMOTE_LABEL, mode);
              return p;
            });
  }

  /** The release's labels, as the chart README's Uninstall selects what cert-manager keeps. */
  static final String RELEASE_SELECTOR =
      "app.kubernetes.io/name=network-enforcer,app.kubernetes.io/instance=" + InClusterIT.RELEASE;

  /**
   * {@code helm uninstall} of the release, then the chart README's Uninstall section: only the
   * release's labelled Secrets (those cert-manager keeps) may be left, and the README's {@code
   * kubectl delete secret -l} leaves nothing. {@code leftovers} lists what of the release exists
   * (less what was there before it); returns what the uninstall alone left.
   */
  static List<String> uninstallAsTheReadmeSays(
      KubeCluster cluster, Duration deadline, Supplier<List<String>> leftovers) {
    helm(
        cluster,
        List.of(
            "uninstall",
            InClusterIT.RELEASE,
            "--namespace",
            InClusterIT.NAMESPACE,
            "--wait",
            "--timeout",
            "3m"),
        List.of());
    KubernetesClient admin = cluster.client();
    cluster.await("the release's pods gone", deadline, () -> releasePods(admin).isEmpty());
    List<String> left = new ArrayList<>();
    List<String> keptByCertManager = new ArrayList<>();
    try {
      // Claims and the like go through the garbage collector a moment later.
      cluster.await(
          "nothing of the release left but the Secrets cert-manager keeps",
          deadline,
          () -> {
            left.clear();
            left.addAll(leftovers.get());
            keptByCertManager.clear();
            keptByCertManager.addAll(labelledSecrets(cluster));
            return keptByCertManager.containsAll(left);
          });
    } finally {
      System.out.println("in-cluster: helm uninstall left " + left);
    }
    List<String> uninstallLeft = List.copyOf(left);
    cluster.kubectl(
        "delete", "secret", "--namespace", InClusterIT.NAMESPACE, "-l", RELEASE_SELECTOR);
    try {
      cluster.await(
          "nothing of the release left after the README's kubectl delete",
          deadline,
          () -> {
            left.clear();
            left.addAll(leftovers.get());
            return left.isEmpty();
          });
    } finally {
      System.out.println("in-cluster: after the README's kubectl delete, left " + left);
    }
    return uninstallLeft;
  }

  private static List<String> labelledSecrets(KubeCluster cluster) {
    return cluster
        .kubectl(
            "get",
            "secrets",
            "--namespace",
            InClusterIT.NAMESPACE,
            "-l",
            RELEASE_SELECTOR,
            "-o",
            "name")
        .lines()
        .filter(line -> !line.isBlank() && !line.startsWith("No resources"))
        .toList();
  }

  /** The last {@code lines} log lines of each container of the release's pods (for a failure). */
  static String releaseLogs(KubeCluster cluster, int lines) {
    StringBuilder out = new StringBuilder();
    for (Pod pod : releasePods(cluster.client())) {
      String name = pod.getMetadata().getName();
      // The previous container's too: after a kill, that is where the cause usually is.
      for (boolean previous : List.of(true, false)) {
        out.append("--- logs of ")
            .append(name)
            .append(" --previous=")
            .append(previous)
            .append(" ---\n")
            .append(cluster.containerLogs(InClusterIT.NAMESPACE, name, null, previous, lines));
      }
    }
    return out.toString();
  }

  /** The pods of the chart's release. */
  static List<Pod> releasePods(KubernetesClient admin) {
    return admin
        .pods()
        .inNamespace(InClusterIT.NAMESPACE)
        .withLabel("app.kubernetes.io/instance", InClusterIT.RELEASE)
        .list()
        .getItems();
  }
}
