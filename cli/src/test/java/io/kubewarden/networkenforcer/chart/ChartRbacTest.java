package io.kubewarden.networkenforcer.chart;

import static io.kubewarden.networkenforcer.chart.HelmChart.FULLNAME;
import static io.kubewarden.networkenforcer.chart.HelmChart.NAMESPACE;
import static io.kubewarden.networkenforcer.chart.Manifests.elements;
import static io.kubewarden.networkenforcer.chart.Manifests.texts;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Least privilege: what each ServiceAccount may do, computed from the rendered Roles and bindings.
 */
class ChartRbacTest {
  private static final Set<String> WRITE_VERBS =
      Set.of("create", "update", "patch", "delete", "deletecollection", "*");
  private static final Set<String> READ_ONLY = Set.of("get", "list", "watch");

  /** One rule granted to a service account, with where it applies ("" = cluster-wide). */
  record Grant(
      String namespace,
      String apiGroup,
      String resource,
      List<String> resourceNames,
      List<String> verbs) {
    boolean writes() {
      return !reviews() && verbs.stream().anyMatch(WRITE_VERBS::contains);
    }

    /** A TokenReview or SubjectAccessReview: a question to the API server, nothing is stored. */
    boolean reviews() {
      return REVIEWS.contains(apiGroup + "/" + resource) && verbs.equals(List.of("create"));
    }
  }

  /**
   * What each component needs to check the tokens of its management port's requests
   * (kube-rbac-proxy's).
   */
  private static final Set<String> REVIEWS =
      Set.of("authentication.k8s.io/tokenreviews", "authorization.k8s.io/subjectaccessreviews");

  static Stream<Combination> combinations() {
    return Combination.all().stream()
        .filter(Combination::valid)
        .filter(
            c -> c.collector().equals("none")); // RBAC does not depend on the collector strategy
  }

  static List<Grant> grants(Manifests m, String serviceAccount) {
    List<Grant> grants = new ArrayList<>();
    for (String bindingKind : List.of("ClusterRoleBinding", "RoleBinding")) {
      for (JsonNode binding : m.ofKind(bindingKind)) {
        boolean bound =
            elements(binding.path("subjects")).stream()
                .anyMatch(
                    s ->
                        s.path("kind").asText().equals("ServiceAccount")
                            && s.path("name").asText().equals(serviceAccount)
                            && s.path("namespace").asText().equals(NAMESPACE));
        if (!bound) {
          continue;
        }
        String namespace = binding.path("metadata").path("namespace").asText("");
        JsonNode role =
            m.get(
                binding.path("roleRef").path("kind").asText(),
                binding.path("roleRef").path("name").asText());
        for (JsonNode rule : elements(role.path("rules"))) {
          for (String group : texts(rule.path("apiGroups"))) {
            for (String resource : texts(rule.path("resources"))) {
              grants.add(
                  new Grant(
                      namespace,
                      group,
                      resource,
                      texts(rule.path("resourceNames")),
                      texts(rule.path("verbs"))));
            }
          }
        }
      }
    }
    return grants;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("combinations")
  void onlyTheWriterWrites(Combination c) {
    Manifests m = HelmChart.render(c.values());
    String writer = FULLNAME + (c.distributed() ? "-writer" : "-standalone");
    String reader = FULLNAME + (c.distributed() ? "-ingest" : "-standalone");
    String nativeObject =
        c.provider().equals("istio")
            ? "security.istio.io/authorizationpolicies"
            : "networking.k8s.io/networkpolicies";

    for (JsonNode sa : m.ofKind("ServiceAccount")) {
      String name = sa.path("metadata").path("name").asText();
      List<Grant> grants = grants(m, name);
      if (name.equals(ChartUninstallHookTest.ACCOUNT)) {
        continue; // runs after helm uninstall only: ChartUninstallHookTest
      }
      if (!name.equals(writer)) {
        assertThat(grants).as("write access of %s", name).noneMatch(Grant::writes);
      }
      // Every component reviews its management requests' tokens (managementAuth kubernetes, the
      // default);
      // nothing else (fluent-bit, the collector) does.
      boolean component =
          (c.distributed() ? List.of("-ingest", "-processor", "-writer") : List.of("-standalone"))
              .stream().anyMatch(suffix -> name.equals(FULLNAME + suffix));
      assertThat(grants.stream().filter(Grant::reviews))
          .as("reviews of %s", name)
          .extracting(g -> g.namespace() + ":" + g.apiGroup() + "/" + g.resource())
          .containsExactlyInAnyOrderElementsOf(
              component
                  ? List.of(
                      ":authentication.k8s.io/tokenreviews",
                      ":authorization.k8s.io/subjectaccessreviews")
                  : List.of());
    }

    List<Grant> writes = grants(m, writer).stream().filter(Grant::writes).toList();
    assertThat(writes)
        .extracting(g -> g.apiGroup() + "/" + g.resource())
        .containsExactlyInAnyOrder(
            "networkenforcer.kubewarden.io/workloadnetworkpolicyproposals",
            "networkenforcer.kubewarden.io/workloadnetworkpolicies",
            "networkenforcer.kubewarden.io/workloadnetworkpolicyproposals/status",
            "networkenforcer.kubewarden.io/workloadnetworkpolicies/status",
            nativeObject,
            "coordination.k8s.io/leases",
            "coordination.k8s.io/leases",
            // blockOwnerDeletion on the owner references the writer sets
            // (OwnerReferencesPermissionEnforcement)
            "networkenforcer.kubewarden.io/workloadnetworkpolicies/finalizers",
            "apps/deployments/finalizers",
            "apps/statefulsets/finalizers",
            "apps/daemonsets/finalizers",
            "batch/cronjobs/finalizers",
            // Events on refused or clashing proposals and policies (kubectl describe)
            "/events");
    writes.stream()
        .filter(g -> g.resource().endsWith("/finalizers"))
        .forEach(g -> assertThat(g.verbs()).containsExactly("update"));
    writes.stream()
        .filter(g -> g.resource().equals("events"))
        .forEach(g -> assertThat(g.verbs()).containsExactly("create"));
    // Leases: only in the release namespace, and updates only on the writer's own Lease.
    writes.stream()
        .filter(g -> g.resource().equals("leases"))
        .forEach(
            g -> {
              assertThat(g.namespace()).isEqualTo(NAMESPACE);
              if (!g.verbs().equals(List.of("create"))) {
                assertThat(g.resourceNames()).containsExactly(FULLNAME + "-writer");
              }
            });
    assertThat(grants(m, writer))
        .noneMatch(g -> g.resource().equals("secrets") && g.namespace().isEmpty());

    // The flow source reads workloads cluster-wide and nothing else (plus the provider Secret,
    // below).
    List<Grant> ingest =
        grants(m, reader).stream()
            .filter(
                g ->
                    g.namespace().isEmpty()
                        && !g.apiGroup().equals("networkenforcer.kubewarden.io")
                        && !g.resource().equals(nativeObject.split("/")[1]))
            .toList();
    assertThat(ingest)
        .extracting(g -> g.apiGroup() + "/" + g.resource())
        .contains(
            "/pods",
            "/namespaces",
            "apps/replicasets",
            "apps/deployments",
            "apps/statefulsets",
            "apps/daemonsets",
            "batch/jobs",
            "batch/cronjobs");
    if (c.distributed()) {
      assertThat(grants(m, reader)).allMatch(g -> g.reviews() || READ_ONLY.containsAll(g.verbs()));
      assertThat(grants(m, reader))
          .noneMatch(g -> g.resource().equals("secrets") && g.resourceNames().isEmpty());
      // The processor's token reviews management requests and lists the cluster's ranges.
      assertThat(grants(m, FULLNAME + "-processor"))
          .allMatch(g -> g.reviews() || g.verbs().equals(List.of("list")))
          .hasSize(7);
    }

    List<Grant> secrets =
        grants(m, reader).stream()
            .filter(g -> g.resource().equals("secrets") || g.resource().equals("configmaps"))
            .toList();
    if (c.tlsMode().equals("existingSecret") && !c.provider().equals("istio")) {
      String namespace = c.provider().equals("cilium") ? "kube-system" : "calico-system";
      Map<String, String> expected =
          c.provider().equals("cilium")
              ? Map.of("secrets", "hubble-relay-client-certs")
              : Map.of("secrets", "goldmane-key-pair", "configmaps", "goldmane-ca-bundle");
      assertThat(secrets)
          .hasSize(expected.size())
          .allSatisfy(
              g -> {
                assertThat(g.namespace()).isEqualTo(namespace);
                assertThat(g.verbs()).containsExactly("get");
                assertThat(g.resourceNames()).containsExactly(expected.get(g.resource()));
              });
    } else {
      assertThat(secrets).isEmpty();
    }
  }

  /**
   * Every permission each service account of a default distributed release holds, listed against
   * the code that uses it: a verb the code does not send fails here, as does one it needs and lacks
   * (the real API server tests run the code with exactly these grants; {@code
   * ApiServerPipelineTest} compares the writer's requests in the API server's audit log with its
   * grants). One line per grant: namespace (empty: cluster-wide) : group/resource [names] verbs.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"calico", "istio", "cilium/cilium"})
  void everyPermissionIsOneTheCodeUses(String providerAndBackend) {
    // cilium/cilium: provider cilium with policyBackend cilium (CiliumNetworkPolicies).
    String provider = providerAndBackend.split("/")[0];
    boolean ciliumBackend = providerAndBackend.endsWith("/cilium");
    Map<String, String> values =
        new HashMap<>(
            Map.of(
                "mode",
                "distributed",
                "controller.provider.name",
                provider,
                "kafka.bootstrapServers",
                "kafka:9092"));
    if (ciliumBackend) {
      values.put("controller.provider.cilium.policyBackend", "cilium");
    }
    Manifests m = HelmChart.render(values);
    List<String> reviews =
        List.of(
            // common.http.KubernetesAccessCheck: the management port's TokenReview and
            // SubjectAccessReview
            ":authentication.k8s.io/tokenreviews [] [create]",
            ":authorization.k8s.io/subjectaccessreviews [] [create]");
    List<String> ingest = new ArrayList<>(reviews);
    ingest.addAll(
        List.of(
            // resolution.InformerClusterView: informers of pods, namespaces and the workloads
            // owning pods
            ":/pods [] [list, watch]", ":/namespaces [] [list, watch]",
            ":apps/replicasets [] [list, watch]", ":apps/deployments [] [list, watch]",
            ":apps/statefulsets [] [list, watch]", ":apps/daemonsets [] [list, watch]",
            ":batch/jobs [] [list, watch]", ":batch/cronjobs [] [list, watch]"));
    if (provider.equals("calico")) {
      // transport.TlsMaterialLoader: Goldmane's client key pair and CA bundle, read by name
      ingest.addAll(
          List.of(
              "calico-system:/secrets [goldmane-key-pair] [get]",
              "calico-system:/configmaps [goldmane-ca-bundle] [get]"));
    }
    if (provider.equals("cilium")) {
      // transport.TlsMaterialLoader: Cilium's Hubble Relay client certificate, read by name
      ingest.add("kube-system:/secrets [hubble-relay-client-certs] [get]");
    }
    String nativeObject =
        provider.equals("istio")
            ? "security.istio.io/authorizationpolicies"
            : ciliumBackend
                ? "cilium.io/ciliumnetworkpolicies"
                : "networking.k8s.io/networkpolicies";
    List<String> writer = new ArrayList<>(reviews);
    writer.addAll(
        List.of(
            // proposals.ProposalReconciler: server-side apply (patch, create when new), delete with
            // the workload
            ":networkenforcer.kubewarden.io/workloadnetworkpolicyproposals [] [list, watch, create, patch, delete]",
            // promotion.Promoter creates; status.StatusSync removes acknowledge annotations (JSON
            // patch)
            ":networkenforcer.kubewarden.io/workloadnetworkpolicies [] [get, list, watch, create, patch]",
            // ProposalReconciler applies the proposal status; StatusSync replaces the policy status
            ":networkenforcer.kubewarden.io/workloadnetworkpolicyproposals/status [] [patch]",
            ":networkenforcer.kubewarden.io/workloadnetworkpolicies/status [] [update]",
            // rendering.NativeRenderer: get, apply, delete in monitor mode; LeaderSession's
            // informers
            ":" + nativeObject + " [] [get, list, watch, create, patch, delete]",
            // LeaderSession's workload informers (owner references need the uid)
            ":apps/deployments [] [list, watch]",
            ":apps/statefulsets [] [list, watch]",
            ":apps/daemonsets [] [list, watch]",
            ":batch/cronjobs [] [list, watch]",
            // blockOwnerDeletion on owner references (OwnerReferencesPermissionEnforcement)
            ":networkenforcer.kubewarden.io/workloadnetworkpolicies/finalizers [] [update]",
            ":apps/deployments/finalizers [] [update]",
            ":apps/statefulsets/finalizers [] [update]",
            ":apps/daemonsets/finalizers [] [update]",
            ":batch/cronjobs/finalizers [] [update]",
            // reconcile.ObjectEvents
            ":/events [] [create]",
            // leadership.LeaderElection (fabric8 LeaseLock: get, create, patch to renew and
            // release)
            NAMESPACE + ":coordination.k8s.io/leases [] [create]",
            NAMESPACE + ":coordination.k8s.io/leases [" + FULLNAME + "-writer] [get, patch]"));
    List<String> processor = new ArrayList<>(reviews);
    processor.addAll(
        List.of(
            // ranges.ClusterRangeDiscovery lists each RangeSource once at start
            ":networking.k8s.io/servicecidrs [] [list]",
            ":/nodes [] [list]",
            ":cilium.io/ciliumnodes [] [list]",
            ":crd.projectcalico.org/ippools [] [list]",
            ":projectcalico.org/ippools [] [list]"));
    Map<String, List<String>> expected =
        Map.of(
            FULLNAME + "-ingest",
            ingest,
            // The processor reads only the objects reporting the cluster's ranges.
            FULLNAME + "-processor",
            processor,
            FULLNAME + "-writer",
            writer,
            // writer.proposals.FinalizerRelease, the post-delete hook: list, patch, get on a 409
            ChartUninstallHookTest.ACCOUNT,
            List.of(
                ":networkenforcer.kubewarden.io/workloadnetworkpolicyproposals [] [get, list, patch]"));
    expected.forEach(
        (serviceAccount, permissions) ->
            assertThat(
                    grants(m, serviceAccount).stream()
                        .map(
                            g ->
                                g.namespace()
                                    + ":"
                                    + g.apiGroup()
                                    + "/"
                                    + g.resource()
                                    + " "
                                    + g.resourceNames()
                                    + " "
                                    + g.verbs()))
                .as("permissions of %s", serviceAccount)
                .containsExactlyInAnyOrderElementsOf(permissions));
    // Nothing else of the chart holds any permission (fluent-bit, the collector: no token).
    for (JsonNode sa : m.ofKind("ServiceAccount")) {
      String name = sa.path("metadata").path("name").asText();
      if (!expected.containsKey(name)) {
        assertThat(grants(m, name)).as("permissions of %s", name).isEmpty();
      }
    }
  }
}
