package io.kubewarden.networkenforcer.chart;

import static io.kubewarden.networkenforcer.chart.HelmChart.FULLNAME;
import static io.kubewarden.networkenforcer.chart.HelmChart.NAMESPACE;
import static io.kubewarden.networkenforcer.chart.HelmChart.values;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.kubewarden.networkenforcer.testing.KubeApiServer;
import io.kubewarden.networkenforcer.testing.ProjectCrds;
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
  /**
   * APIs of optional add-ons the bare API server does not serve; their objects are checked
   * elsewhere.
   */
  private static final Set<String> ADD_ON_GROUPS =
      Set.of("cert-manager.io", "kafka.strimzi.io", "monitoring.coreos.com");

  private static final String PROMOTE_MESSAGE =
      "networkenforcer.kubewarden.io/promote must be \"monitor\" or \"protect\"";
  private static final ResourceDefinitionContext WNPP =
      new ResourceDefinitionContext.Builder()
          .withGroup("networkenforcer.kubewarden.io")
          .withVersion("v1alpha1")
          .withKind("WorkloadNetworkPolicyProposal")
          .withPlural("workloadnetworkpolicyproposals")
          .withNamespaced(true)
          .build();
  private static final ResourceDefinitionContext WNP =
      new ResourceDefinitionContext.Builder()
          .withGroup("networkenforcer.kubewarden.io")
          .withVersion("v1alpha1")
          .withKind("WorkloadNetworkPolicy")
          .withPlural("workloadnetworkpolicies")
          .withNamespaced(true)
          .build();

  private static KubeApiServer api;
  private static KubernetesClient client;

  @BeforeAll
  static void installChart() {
    // OwnerReferencesPermissionEnforcement as on hardened clusters (OpenShift): blockOwnerDeletion
    // needs update on the owner's finalizers.
    api =
        KubeApiServer.builder()
            .apiServerArg("--enable-admission-plugins=OwnerReferencesPermissionEnforcement")
            .start();
    client = api.client();
    ProjectCrds.install(client, Duration.ofSeconds(60));
    for (String namespace : List.of(NAMESPACE, "calico-system", "shop")) {
      client
          .namespaces()
          .resource(
              new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build())
          .create();
    }
    // Distributed Calico with its default cross-namespace Secret: every component and the provider
    // Role.
    for (HasMetadata object :
        load(
            values(
                "mode",
                "distributed",
                "controller.provider.name",
                "calico",
                "kafka.bootstrapServers",
                "kafka:9092"))) {
      // The CRDs (templates since they must upgrade) are already there, from the same files.
      if (!ADD_ON_GROUPS.contains(group(object))
          && !object.getKind().equals("CustomResourceDefinition")) {
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
    return client
        .load(new ByteArrayInputStream(result.stdout().getBytes(StandardCharsets.UTF_8)))
        .items();
  }

  private static String group(HasMetadata object) {
    String apiVersion = object.getApiVersion();
    return apiVersion.contains("/") ? apiVersion.substring(0, apiVersion.indexOf('/')) : "";
  }

  @Test
  void everyRenderedObjectPassesServerSideDryRun() {
    List<Map<String, String>> valueSets =
        List.of(
            values(
                "controller.provider.name",
                "istio",
                "metrics.serviceMonitor.enabled",
                "true",
                "metrics.prometheusRule.enabled",
                "true",
                "metrics.grafanaDashboard.enabled",
                "true"),
            values(
                "mode",
                "distributed",
                "controller.provider.name",
                "cilium",
                "controller.provider.cilium.tls.mode",
                "issuer",
                "kafka.bootstrapServers",
                "kafka:9093",
                "kafka.authentication",
                "scram-sha-512",
                "kafka.strimzi.createUsers",
                "true",
                "kafka.strimzi.createTopics",
                "true",
                "kafka.strimzi.clusterName",
                "c",
                "controller.flowDumper.enabled",
                "true",
                "telemetry.collectorStrategy",
                "external",
                "telemetry.externalCollector.endpoint",
                "otel:4317"),
            values(
                "mode",
                "distributed",
                "controller.provider.name",
                "istio",
                "controller.provider.istio.tls.mode",
                "insecure",
                "kafka.bootstrapServers",
                "kafka:9092",
                "processor.persistence.enabled",
                "false",
                "fullnameOverride",
                "ne-dry-run",
                "telemetry.collectorStrategy",
                "none",
                "metrics.serviceMonitor.enabled",
                "true",
                "metrics.grafanaDashboard.enabled",
                "true"));
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
    assertThat(skipped)
        .containsExactlyInAnyOrder(
            "Certificate", "Issuer", "KafkaTopic", "KafkaUser", "ServiceMonitor", "PrometheusRule");
  }

  @Test
  void aReferenceValuesFileInstallsAsItIs() {
    // Every key of the reference chart (api.md "Helm values"), for each provider and both modes.
    List<Map<String, String>> overrides =
        List.of(
            values(),
            values("controller.provider.name", "istio"),
            values(
                "controller.provider.name",
                "istio",
                "controller.provider.istio.tls.mode",
                "existingSecret"),
            values("controller.provider.name", "calico"),
            values("controller.provider.cilium.tls.mode", "insecure"),
            values(
                "mode",
                "distributed",
                "kafka.bootstrapServers",
                "kafka:9092",
                "controller.replicas",
                "3"));
    int checked = 0;
    for (Map<String, String> values : overrides) {
      HelmChart.Result result = HelmChart.template(HelmChart.referenceValues(), values);
      assertThat(result.ok()).as("reference values + %s: %s", values, result.stderr()).isTrue();
      for (HasMetadata object :
          client
              .load(new ByteArrayInputStream(result.stdout().getBytes(StandardCharsets.UTF_8)))
              .items()) {
        if (!ADD_ON_GROUPS.contains(group(object))) {
          client.resource(object).dryRun().forceConflicts().serverSideApply();
          checked++;
        }
      }
    }
    assertThat(checked).isGreaterThan(60);
  }

  @Test
  void apiServerAuthorizesExactlyWhatEachComponentNeeds() {
    // ingest: reads workloads cluster-wide, and only the provider's Secret and CA bundle in
    // calico-system
    assertThat(allowed("ingest", "list", "", "pods", "", "")).isTrue();
    assertThat(allowed("ingest", "watch", "apps", "replicasets", "shop", "")).isTrue();
    assertThat(allowed("ingest", "get", "", "secrets", "calico-system", "goldmane-key-pair"))
        .isTrue();
    assertThat(allowed("ingest", "get", "", "configmaps", "calico-system", "goldmane-ca-bundle"))
        .isTrue();
    assertThat(allowed("ingest", "get", "", "secrets", "calico-system", "other")).isFalse();
    assertThat(allowed("ingest", "list", "", "secrets", "calico-system", "")).isFalse();
    assertThat(
            allowed(
                "ingest",
                "create",
                "networkenforcer.kubewarden.io",
                "workloadnetworkpolicyproposals",
                "shop",
                ""))
        .isFalse();
    assertThat(allowed("ingest", "patch", "", "pods", "shop", "")).isFalse();
    // writer: the only one that writes, and only what it owns
    assertThat(
            allowed(
                "writer",
                "create",
                "networkenforcer.kubewarden.io",
                "workloadnetworkpolicyproposals",
                "shop",
                ""))
        .isTrue();
    assertThat(
            allowed(
                "writer",
                "update",
                "networkenforcer.kubewarden.io",
                "workloadnetworkpolicies/status",
                "shop",
                ""))
        .isTrue();
    // No code path updates or deletes a policy (a person deletes one).
    assertThat(
            allowed(
                "writer",
                "update",
                "networkenforcer.kubewarden.io",
                "workloadnetworkpolicies",
                "shop",
                ""))
        .isFalse();
    assertThat(
            allowed(
                "writer",
                "delete",
                "networkenforcer.kubewarden.io",
                "workloadnetworkpolicies",
                "shop",
                ""))
        .isFalse();
    assertThat(allowed("writer", "create", "networking.k8s.io", "networkpolicies", "shop", ""))
        .isTrue();
    assertThat(
            allowed("writer", "create", "security.istio.io", "authorizationpolicies", "shop", ""))
        .isFalse();
    assertThat(
            allowed(
                "writer",
                "patch",
                "coordination.k8s.io",
                "leases",
                NAMESPACE,
                FULLNAME + "-writer"))
        .isTrue();
    assertThat(
            allowed("writer", "patch", "coordination.k8s.io", "leases", NAMESPACE, "someone-else"))
        .isFalse();
    assertThat(allowed("writer", "get", "", "secrets", "shop", "")).isFalse();
    assertThat(allowed("writer", "delete", "apps", "deployments", "shop", "")).isFalse();
    // processor: no Kubernetes object; it only reviews the tokens of its management requests
    assertThat(allowed("processor", "create", "authentication.k8s.io", "tokenreviews", "", ""))
        .isTrue();
    assertThat(
            allowed("processor", "create", "authorization.k8s.io", "subjectaccessreviews", "", ""))
        .isTrue();
    assertThat(allowed("processor", "list", "", "pods", "", "")).isFalse();
    assertThat(
            allowed(
                "processor",
                "get",
                "networkenforcer.kubewarden.io",
                "workloadnetworkpolicies",
                "shop",
                ""))
        .isFalse();
  }

  @Test
  void admissionPoliciesOfTheChartRejectWhatTheContractRejects() {
    MixedOperation<
            GenericKubernetesResource,
            GenericKubernetesResourceList,
            Resource<GenericKubernetesResource>>
        proposals = client.genericKubernetesResources(WNPP);
    // Policies take effect once the API server has loaded them: poll until a bad label is refused.
    await("promote-label policy active")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(250))
        .until(
            () -> {
              String name = "probe-" + UUID.randomUUID().toString().substring(0, 8);
              try {
                proposals.inNamespace("shop").resource(proposal(name, "maybe")).create();
              } catch (KubernetesClientException denied) {
                return denied.getMessage().contains(PROMOTE_MESSAGE);
              }
              proposals.inNamespace("shop").withName(name).delete();
              return false;
            });
    assertThatThrownBy(
            () -> proposals.inNamespace("shop").resource(proposal("bad", "enforce")).create())
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining(PROMOTE_MESSAGE);
    proposals.inNamespace("shop").resource(proposal("labelled", "protect")).create();
    proposals.inNamespace("shop").resource(proposal("unlabelled", null)).create();

    await("owner-references policy active")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(250))
        .until(
            () -> {
              try {
                proposals
                    .inNamespace("shop")
                    .withName("unlabelled")
                    .edit(p -> withOwner(p, "probe"));
              } catch (KubernetesClientException denied) {
                return denied.getMessage().contains("metadata.ownerReferences");
              }
              proposals.inNamespace("shop").withName("unlabelled").edit(p -> withOwner(p, null));
              return false;
            });
    // Changing anything else is fine.
    proposals
        .inNamespace("shop")
        .withName("labelled")
        .edit(
            p -> {
              p.getMetadata().getLabels().put("networkenforcer.kubewarden.io/promote", "monitor");
              return p;
            });
    assertThat(proposals.inNamespace("shop").withName("labelled").get().getMetadata().getLabels())
        .containsEntry("networkenforcer.kubewarden.io/promote", "monitor");
  }

  @Test
  void theWriterMaySetBlockOwnerDeletionWhereTheAdmissionPluginChecksIt() {
    Deployment web =
        client
            .apps()
            .deployments()
            .inNamespace("shop")
            .resource(
                new DeploymentBuilder()
                    .withNewMetadata()
                    .withName("owner-web")
                    .endMetadata()
                    .withNewSpec()
                    .withNewSelector()
                    .addToMatchLabels("app", "owner-web")
                    .endSelector()
                    .withNewTemplate()
                    .withNewMetadata()
                    .addToLabels("app", "owner-web")
                    .endMetadata()
                    .withNewSpec()
                    .addNewContainer()
                    .withName("web")
                    .withImage("nginx")
                    .endContainer()
                    .endSpec()
                    .endTemplate()
                    .endSpec()
                    .build())
            .create();
    GenericKubernetesResource owned = proposal("deployment-owner-web-ingress", null);
    owned
        .getMetadata()
        .setOwnerReferences(
            List.of(
                new OwnerReferenceBuilder()
                    .withApiVersion("apps/v1")
                    .withKind("Deployment")
                    .withName("owner-web")
                    .withUid(web.getMetadata().getUid())
                    .withController(true)
                    .withBlockOwnerDeletion(true)
                    .build()));

    // The plugin is on: someone who may create proposals but not touch the owner's finalizers is
    // refused.
    client
        .rbac()
        .roles()
        .inNamespace("shop")
        .resource(
            new RoleBuilder()
                .withNewMetadata()
                .withName("proposal-maker")
                .endMetadata()
                .addNewRule()
                .withApiGroups("networkenforcer.kubewarden.io")
                .withResources("workloadnetworkpolicyproposals")
                .withVerbs("create", "delete", "get")
                .endRule()
                .build())
        .create();
    client
        .rbac()
        .roleBindings()
        .inNamespace("shop")
        .resource(
            new RoleBindingBuilder()
                .withNewMetadata()
                .withName("proposal-maker")
                .endMetadata()
                .withNewRoleRef()
                .withApiGroup("rbac.authorization.k8s.io")
                .withKind("Role")
                .withName("proposal-maker")
                .endRoleRef()
                .addNewSubject()
                .withKind("User")
                .withName("proposal-maker")
                .endSubject()
                .build())
        .create();
    try (KubernetesClient other = api.clientFor("proposal-maker")) {
      assertThatThrownBy(
              () ->
                  other
                      .genericKubernetesResources(WNPP)
                      .inNamespace("shop")
                      .resource(owned)
                      .create())
          .isInstanceOf(KubernetesClientException.class)
          .hasMessageContaining("blockOwnerDeletion");
    }

    // The chart's writer: a proposal owned by its workload, and a NetworkPolicy owned by its WNP.
    try (KubernetesClient asWriter = api.serviceAccountClient(NAMESPACE, FULLNAME + "-writer")) {
      asWriter.genericKubernetesResources(WNPP).inNamespace("shop").resource(owned).create();
      GenericKubernetesResource wnp =
          client
              .genericKubernetesResources(WNP)
              .inNamespace("shop")
              .resource(policy("deployment-owner-web-ingress"))
              .create();
      asWriter
          .network()
          .v1()
          .networkPolicies()
          .inNamespace("shop")
          .resource(
              new NetworkPolicyBuilder()
                  .withNewMetadata()
                  .withName("deployment-owner-web-ingress")
                  .addNewOwnerReference()
                  .withApiVersion(WNP.getGroup() + "/" + WNP.getVersion())
                  .withKind(WNP.getKind())
                  .withName(wnp.getMetadata().getName())
                  .withUid(wnp.getMetadata().getUid())
                  .withController(true)
                  .withBlockOwnerDeletion(true)
                  .endOwnerReference()
                  .endMetadata()
                  .withNewSpec()
                  .withNewPodSelector()
                  .addToMatchLabels("app", "owner-web")
                  .endPodSelector()
                  .withPolicyTypes("Ingress")
                  .endSpec()
                  .build())
          .create();
    }
    assertThat(
            client
                .genericKubernetesResources(WNPP)
                .inNamespace("shop")
                .withName("deployment-owner-web-ingress")
                .get()
                .getMetadata()
                .getOwnerReferences())
        .singleElement()
        .satisfies(ref -> assertThat(ref.getBlockOwnerDeletion()).isTrue());
    assertThat(
            client
                .network()
                .v1()
                .networkPolicies()
                .inNamespace("shop")
                .withName("deployment-owner-web-ingress")
                .get()
                .getMetadata()
                .getOwnerReferences())
        .singleElement()
        .satisfies(ref -> assertThat(ref.getBlockOwnerDeletion()).isTrue());
    // Exactly the finalizers subresource: the writer still cannot change the owners themselves.
    assertThat(allowed("writer", "update", "apps", "deployments/finalizers", "shop", "owner-web"))
        .isTrue();
    assertThat(allowed("writer", "update", "apps", "deployments", "shop", "owner-web")).isFalse();
    assertThat(allowed("writer", "patch", "apps", "deployments/finalizers", "shop", "owner-web"))
        .isFalse();
    assertThat(
            allowed(
                "writer",
                "update",
                "networkenforcer.kubewarden.io",
                "workloadnetworkpolicies/finalizers",
                "shop",
                "x"))
        .isTrue();
    assertThat(allowed("ingest", "update", "apps", "deployments/finalizers", "shop", "owner-web"))
        .isFalse();
  }

  private static GenericKubernetesResource policy(String name) {
    return client
        .getKubernetesSerialization()
        .unmarshal(
            """
        apiVersion: networkenforcer.kubewarden.io/v1alpha1
        kind: WorkloadNetworkPolicy
        metadata: {name: %s, namespace: shop}
        spec:
          backend: kubernetes
          direction: Ingress
          mode: protect
          targetRef: {kind: Deployment, name: owner-web}
          kubernetes:
            podSelector: {matchLabels: {app: owner-web}}
            policyTypes: [Ingress]
        """
                .formatted(name),
            GenericKubernetesResource.class);
  }

  private static boolean allowed(
      String component, String verb, String group, String resource, String namespace, String name) {
    String[] parts = resource.split("/", 2);
    SubjectAccessReview review =
        new SubjectAccessReviewBuilder()
            .withNewSpec()
            .withUser("system:serviceaccount:" + NAMESPACE + ":" + FULLNAME + "-" + component)
            .withGroups(
                "system:serviceaccounts",
                "system:serviceaccounts:" + NAMESPACE,
                "system:authenticated")
            .withNewResourceAttributes()
            .withVerb(verb)
            .withGroup(group)
            .withResource(parts[0])
            .withSubresource(parts.length > 1 ? parts[1] : null)
            .withNamespace(namespace.isEmpty() ? null : namespace)
            .withName(name.isEmpty() ? null : name)
            .endResourceAttributes()
            .endSpec()
            .build();
    return client
        .authorization()
        .v1()
        .subjectAccessReview()
        .create(review)
        .getStatus()
        .getAllowed();
  }

  private static GenericKubernetesResource proposal(String name, String promote) {
    String labels =
        promote == null ? "{}" : "{networkenforcer.kubewarden.io/promote: " + promote + "}";
    return client
        .getKubernetesSerialization()
        .unmarshal(
            """
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
        """
                .formatted(name, labels),
            GenericKubernetesResource.class);
  }

  private static GenericKubernetesResource withOwner(
      GenericKubernetesResource proposal, String ownerName) {
    proposal
        .getMetadata()
        .setOwnerReferences(
            ownerName == null
                ? List.of()
                : List.of(
                    new OwnerReferenceBuilder()
                        .withApiVersion("apps/v1")
                        .withKind("Deployment")
                        .withName(ownerName)
                        .withUid(
                            UUID.nameUUIDFromBytes(ownerName.getBytes(StandardCharsets.UTF_8))
                                .toString())
                        .build()));
    return proposal;
  }
}
