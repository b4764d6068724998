package io.kubewarden.networkenforcer.chart;

import static io.kubewarden.networkenforcer.chart.HelmChart.FULLNAME;
import static io.kubewarden.networkenforcer.chart.HelmChart.NAMESPACE;
import static io.kubewarden.networkenforcer.chart.HelmChart.values;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.kubewarden.networkenforcer.common.testing.KubeApiServer;
import io.kubewarden.networkenforcer.common.testing.ProjectCrds;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The rendered chart on a real kube-apiserver (hack/tools/kube.sh): every object passes the API
 * server's validation (server-side dry-run), the RBAC it grants is evaluated by the API server's
 * authorizer, and its admission policies reject what api.md says they reject.
 */
class ChartOnApiServerTest {
  /** APIs of optional add-ons the bare API server does not serve; their objects are checked elsewhere. */
  private static final Set<String> ADD_ON_GROUPS = Set.of("cert-manager.io", "kafka.strimzi.io");
  private static final String PROMOTE_MESSAGE = "networkenforcer.kubewarden.io/promote must be \"monitor\" or \"protect\"";
  private static final ResourceDefinitionContext WNPP = new ResourceDefinitionContext.Builder()
      .withGroup("networkenforcer.kubewarden.io").withVersion("v1alpha1").withKind("WorkloadNetworkPolicyProposal")
      .withPlural("workloadnetworkpolicyproposals").withNamespaced(true).build();

  private static KubeApiServer api;
  private static KubernetesClient client;

  @BeforeAll
  static void installChart() {
    api = KubeApiServer.builder().start();
    client = api.client();
    ProjectCrds.install(client, Duration.ofSeconds(60));
    for (String namespace : List.of(NAMESPACE, "calico-system", "shop")) {
      client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build())
          .create();
    }
    // Distributed Calico with its default cross-namespace Secret: every component and the provider Role.
    for (HasMetadata object : load(values("mode", "distributed", "controller.provider.name", "calico",
        "kafka.bootstrapServers", "kafka:9092"))) {
      if (!ADD_ON_GROUPS.contains(group(object))) {
        client.resource(object).create();
      }
    }
  }

  @AfterAll
  static void stop() {
    if (api != null) {
      api.close();
    }
  }

  private static List<HasMetadata> load(Map<String, String> values) {
    HelmChart.Result result = HelmChart.template(values);
    assertThat(result.ok()).as(result.stderr()).isTrue();
    return client.load(new ByteArrayInputStream(result.stdout().getBytes(StandardCharsets.UTF_8))).items();
  }

  private static String group(HasMetadata object) {
    String apiVersion = object.getApiVersion();
    return apiVersion.contains("/") ? apiVersion.substring(0, apiVersion.indexOf('/')) : "";
  }

  @Test
  void everyRenderedObjectPassesServerSideDryRun() {
    List<Map<String, String>> valueSets = List.of(
        values("controller.provider.name", "istio"),
        values("mode", "distributed", "controller.provider.name", "cilium", "controller.provider.cilium.tls.mode",
            "issuer", "kafka.bootstrapServers", "kafka:9093", "kafka.tls.enabled", "true", "kafka.tls.caSecret.name",
            "ca", "kafka.sasl.enabled", "true", "kafka.sasl.username", "ne", "kafka.sasl.passwordSecret.name", "pw",
            "kafka.strimzi.createTopics", "true", "kafka.strimzi.clusterName", "c", "controller.flowDumper.enabled",
            "true", "telemetry.collectorStrategy", "external", "telemetry.externalCollector.endpoint", "otel:4317"),
        values("mode", "distributed", "controller.provider.name", "istio", "controller.provider.istio.tls.mode",
            "insecure", "kafka.bootstrapServers", "kafka:9092", "processor.persistence.enabled", "false",
            "fullnameOverride", "ne-dry-run", "telemetry.collectorStrategy", "none"));
    Set<String> skipped = new TreeSet<>();
    int checked = 0;
    for (Map<String, String> values : valueSets) {
      for (HasMetadata object : load(values)) {
        if (ADD_ON_GROUPS.contains(group(object))) {
          skipped.add(object.getKind());
          continue;
        }
        // Server-side dry-run: full validation and admission, nothing stored.
        client.resource(object).dryRun().forceConflicts().serverSideApply();
        checked++;
      }
    }
    assertThat(checked).isGreaterThan(40);
    assertThat(skipped).containsExactlyInAnyOrder("Certificate", "Issuer", "KafkaTopic");
  }

  @Test
  void apiServerAuthorizesExactlyWhatEachComponentNeeds() {
    // ingest: reads workloads cluster-wide, and only the provider's Secret and CA bundle in calico-system
    assertThat(allowed("ingest", "list", "", "pods", "", "")).isTrue();
    assertThat(allowed("ingest", "watch", "apps", "replicasets", "shop", "")).isTrue();
    assertThat(allowed("ingest", "get", "", "secrets", "calico-system", "goldmane-key-pair")).isTrue();
    assertThat(allowed("ingest", "get", "", "configmaps", "calico-system", "goldmane-ca-bundle")).isTrue();
    assertThat(allowed("ingest", "get", "", "secrets", "calico-system", "other")).isFalse();
    assertThat(allowed("ingest", "list", "", "secrets", "calico-system", "")).isFalse();
    assertThat(allowed("ingest", "create", "networkenforcer.kubewarden.io", "workloadnetworkpolicyproposals", "shop", ""))
        .isFalse();
    assertThat(allowed("ingest", "patch", "", "pods", "shop", "")).isFalse();
    // writer: the only one that writes, and only what it owns
    assertThat(allowed("writer", "create", "networkenforcer.kubewarden.io", "workloadnetworkpolicyproposals", "shop", ""))
        .isTrue();
    assertThat(allowed("writer", "patch", "networkenforcer.kubewarden.io", "workloadnetworkpolicies/status", "shop", ""))
        .isTrue();
    assertThat(allowed("writer", "create", "networking.k8s.io", "networkpolicies", "shop", "")).isTrue();
    assertThat(allowed("writer", "create", "security.istio.io", "authorizationpolicies", "shop", "")).isFalse();
    assertThat(allowed("writer", "update", "coordination.k8s.io", "leases", NAMESPACE, FULLNAME + "-writer")).isTrue();
    assertThat(allowed("writer", "update", "coordination.k8s.io", "leases", NAMESPACE, "someone-else")).isFalse();
    assertThat(allowed("writer", "get", "", "secrets", "shop", "")).isFalse();
    assertThat(allowed("writer", "delete", "apps", "deployments", "shop", "")).isFalse();
    // processor: Kafka only
    assertThat(allowed("processor", "list", "", "pods", "", "")).isFalse();
    assertThat(allowed("processor", "get", "networkenforcer.kubewarden.io", "workloadnetworkpolicies", "shop", ""))
        .isFalse();
  }

  @Test
  void admissionPoliciesOfTheChartRejectWhatTheContractRejects() {
    MixedOperation<GenericKubernetesResource, GenericKubernetesResourceList, Resource<GenericKubernetesResource>>
        proposals = client.genericKubernetesResources(WNPP);
    // Policies take effect once the API server has loaded them: poll until a bad label is refused.
    await("promote-label policy active").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
        .until(() -> {
          String name = "probe-" + UUID.randomUUID().toString().substring(0, 8);
          try {
            proposals.inNamespace("shop").resource(proposal(name, "maybe")).create();
          } catch (KubernetesClientException denied) {
            return denied.getMessage().contains(PROMOTE_MESSAGE);
          }
          proposals.inNamespace("shop").withName(name).delete();
          return false;
        });
    assertThatThrownBy(() -> proposals.inNamespace("shop").resource(proposal("bad", "enforce")).create())
        .isInstanceOf(KubernetesClientException.class).hasMessageContaining(PROMOTE_MESSAGE);
    proposals.inNamespace("shop").resource(proposal("labelled", "protect")).create();
    proposals.inNamespace("shop").resource(proposal("unlabelled", null)).create();

    await("owner-references policy active").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
        .until(() -> {
          try {
            proposals.inNamespace("shop").withName("unlabelled").edit(p -> withOwner(p, "probe"));
          } catch (KubernetesClientException denied) {
            return denied.getMessage().contains("metadata.ownerReferences");
          }
          proposals.inNamespace("shop").withName("unlabelled").edit(p -> withOwner(p, null));
          return false;
        });
    // Changing anything else is fine.
    proposals.inNamespace("shop").withName("labelled").edit(p -> {
      p.getMetadata().getLabels().put("networkenforcer.kubewarden.io/promote", "monitor");
      return p;
    });
    assertThat(proposals.inNamespace("shop").withName("labelled").get().getMetadata().getLabels())
        .containsEntry("networkenforcer.kubewarden.io/promote", "monitor");
  }

  private static boolean allowed(String component, String verb, String group, String resource, String namespace,
      String name) {
    String[] parts = resource.split("/", 2);
    SubjectAccessReview review = new SubjectAccessReviewBuilder().withNewSpec()
        .withUser("system:serviceaccount:" + NAMESPACE + ":" + FULLNAME + "-" + component)
        .withGroups("system:serviceaccounts", "system:serviceaccounts:" + NAMESPACE, "system:authenticated")
        .withNewResourceAttributes().withVerb(verb).withGroup(group).withResource(parts[0])
        .withSubresource(parts.length > 1 ? parts[1] : null)
        .withNamespace(namespace.isEmpty() ? null : namespace).withName(name.isEmpty() ? null : name)
        .endResourceAttributes().endSpec().build();
    return client.authorization().v1().subjectAccessReview().create(review).getStatus().getAllowed();
  }

  private static GenericKubernetesResource proposal(String name, String promote) {
    String labels = promote == null ? "{}" : "{networkenforcer.kubewarden.io/promote: " + promote + "}";
    return client.getKubernetesSerialization().unmarshal("""
        apiVersion: networkenforcer.kubewarden.io/v1alpha1
        kind: WorkloadNetworkPolicyProposal
        metadata: {name: %s, namespace: shop, labels: %s}
        spec:
          backend: kubernetes
          direction: Ingress
          targetRef: {kind: Deployment, name: web}
          kubernetes:
            podSelector: {matchLabels: {app: web}}
            policyTypes: [Ingress]
        """.formatted(name, labels), GenericKubernetesResource.class);
  }

  private static GenericKubernetesResource withOwner(GenericKubernetesResource proposal, String ownerName) {
    proposal.getMetadata().setOwnerReferences(ownerName == null ? List.of() : List.of(new OwnerReferenceBuilder()
        .withApiVersion("apps/v1").withKind("Deployment").withName(ownerName)
        .withUid(UUID.nameUUIDFromBytes(ownerName.getBytes(StandardCharsets.UTF_8)).toString()).build()));
    return proposal;
  }
}
