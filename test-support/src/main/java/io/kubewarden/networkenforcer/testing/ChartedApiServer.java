package io.kubewarden.networkenforcer.testing;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * A real kube-apiserver prepared like a cluster with the chart installed: our CRDs, Istio's
 * AuthorizationPolicy kind, the chart's admission policies, and the chart's RBAC for two
 * distributed releases side by side: {@link #KUBERNETES} (provider calico, so the kubernetes
 * backend) and {@link #ISTIO}. A writer under test authenticates as its release's service account,
 * so it has exactly the permissions the chart grants.
 */
public final class ChartedApiServer implements AutoCloseable {

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
    return start(workloadNamespace, new String[0]);
  }

  /** The same with extra kube-apiserver flags, e.g. an audit log ({@code --audit-log-path=...}). */
  public static ChartedApiServer start(String workloadNamespace, String... apiServerArgs) {
    KubeApiServer.Builder builder = KubeApiServer.builder();
    for (String flag : apiServerArgs) {
      builder.apiServerArg(flag);
    }
    KubeApiServer api = builder.start();
    try {
      KubernetesClient admin = api.client();
      ProjectCrds.install(admin, SETUP);
      IstioCrds.installAuthorizationPolicy(admin, SETUP);
      for (String namespace : List.of(RELEASE_NAMESPACE, "calico-system", workloadNamespace)) {
        admin
            .namespaces()
            .resource(
                new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build())
            .create();
      }
      installRbac(admin, KUBERNETES, "calico");
      installRbac(admin, ISTIO, "istio");
      ChartTemplates.admissionPolicies(admin).forEach(o -> admin.resource(o).create());
      return new ChartedApiServer(api);
    } catch (RuntimeException e) {
      api.close();
      throw e;
    }
  }

  private static void installRbac(KubernetesClient admin, String release, String provider) {
    String yaml =
        ChartTemplates.renderRelease(
            release,
            "--set",
            "mode=distributed",
            "--set",
            "controller.provider.name=" + provider,
            "--set",
            "kafka.bootstrapServers=kafka:9092",
            "--show-only",
            "templates/rbac.yaml",
            "--show-only",
            "templates/serviceaccounts.yaml");
    for (HasMetadata object : ChartTemplates.objects(admin, yaml)) {
      admin.resource(object).create();
    }
  }

  public KubeApiServer api() {
    return api;
  }

  /** The admin client (a person: promotes, acknowledges, deletes). */
  public KubernetesClient admin() {
    return api.client();
  }

  /**
   * A new client (caller closes) authenticated as the writer service account of that release, with
   * a token the API server issued for it, as the writer's pod would be.
   */
  public KubernetesClient writerClient(String release) {
    return api.serviceAccountClient(RELEASE_NAMESPACE, writerServiceAccount(release));
  }

  /** The same through a proxy the test can cut (a partitioned replica). */
  public KubernetesClient writerClientVia(
      LoopbackProxy proxy, String release, UnaryOperator<Config> tuning) {
    Config config =
        Config.fromKubeconfig(
            api.serviceAccountKubeconfigVia(proxy, RELEASE_NAMESPACE, writerServiceAccount(release))
                .toFile());
    return new KubernetesClientBuilder().withConfig(tuning.apply(config)).build();
  }

  /** The service account the chart gives that release's writer. */
  private static String writerServiceAccount(String release) {
    return release + "-network-enforcer-writer";
  }

  /**
   * A token the API server issues (TokenRequest, one hour) for that service account, as a pod or a
   * scraper presents it.
   */
  public String token(String namespace, String serviceAccount) {
    return admin()
        .serviceAccounts()
        .inNamespace(namespace)
        .withName(serviceAccount)
        .tokenRequest(
            new TokenRequestBuilder().withNewSpec().withExpirationSeconds(3600L).endSpec().build())
        .getStatus()
        .getToken();
  }

  /**
   * Creates the service account (its namespace must exist) and binds it to the ClusterRole, as an
   * operator does for a reader of the management port; returns the account's token.
   */
  public String boundServiceAccount(String namespace, String serviceAccount, String clusterRole) {
    KubernetesClient admin = admin();
    admin
        .serviceAccounts()
        .inNamespace(namespace)
        .resource(
            new ServiceAccountBuilder()
                .withNewMetadata()
                .withName(serviceAccount)
                .endMetadata()
                .build())
        .create();
    if (clusterRole != null) {
      admin
          .rbac()
          .clusterRoleBindings()
          .resource(
              new ClusterRoleBindingBuilder()
                  .withNewMetadata()
                  .withName(namespace + "-" + serviceAccount + "-" + clusterRole)
                  .endMetadata()
                  .withNewRoleRef()
                  .withApiGroup("rbac.authorization.k8s.io")
                  .withKind("ClusterRole")
                  .withName(clusterRole)
                  .endRoleRef()
                  .addNewSubject()
                  .withKind("ServiceAccount")
                  .withName(serviceAccount)
                  .withNamespace(namespace)
                  .endSubject()
                  .build())
          .create();
    }
    return token(namespace, serviceAccount);
  }

  /** The namespace, created empty. */
  public void createNamespace(String namespace) {
    admin()
        .namespaces()
        .resource(
            new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build())
        .create();
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
