package io.kubewarden.networkenforcer.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.authentication.SelfSubjectReview;
import io.fabric8.kubernetes.api.model.authentication.UserInfo;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The harness itself: a real, RBAC-enforcing API server reachable through its kubeconfig, cleaned
 * up on close.
 */
class KubeApiServerTest {

  private static KubeApiServer api;

  @BeforeAll
  static void start() {
    api = KubeApiServer.builder().start();
  }

  @AfterAll
  static void stop() {
    if (api != null) {
      api.close();
    }
  }

  @Test
  void kubeconfigReachesTheBuiltApiServerAsAdmin() {
    try (KubernetesClient fromFile =
        new KubernetesClientBuilder()
            .withConfig(Config.fromKubeconfig(api.kubeconfig().toFile()))
            .build()) {
      assertThat(fromFile.getKubernetesVersion().getGitVersion())
          .isEqualTo(KubeTools.version(KubeTools.KUBE_APISERVER));
      assertThat(fromFile.namespaces().list().getItems())
          .extracting(Namespace::getMetadata)
          .extracting(m -> m.getName())
          .contains("default", "kube-system");
    }
    assertThat(api.url()).startsWith("https://127.0.0.1:");
  }

  @Test
  void serverSideApplyRecordsItsFieldManager() {
    ConfigMap applied =
        api.client()
            .configMaps()
            .inNamespace("default")
            .resource(
                new ConfigMapBuilder()
                    .withNewMetadata()
                    .withName("applied")
                    .endMetadata()
                    .addToData("key", "value")
                    .build())
            .fieldManager("harness-test")
            .forceConflicts()
            .serverSideApply();

    assertThat(applied.getMetadata().getManagedFields())
        .anySatisfy(
            field -> {
              assertThat(field.getManager()).isEqualTo("harness-test");
              assertThat(field.getOperation()).isEqualTo("Apply");
            });
  }

  @Test
  void rbacDecidesWhatOtherUsersMayDo() {
    try (KubernetesClient reader = api.clientFor("reader", "readers")) {
      assertThatThrownBy(() -> reader.configMaps().inNamespace("default").list())
          .isInstanceOfSatisfying(
              KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(403));

      // Our own role: the aggregated built-in ones (view, edit) are filled by a controller not
      // running here.
      api.client()
          .rbac()
          .clusterRoles()
          .resource(
              new ClusterRoleBuilder()
                  .withNewMetadata()
                  .withName("configmap-reader")
                  .endMetadata()
                  .addNewRule()
                  .withApiGroups("")
                  .withResources("configmaps")
                  .withVerbs("get", "list")
                  .endRule()
                  .build())
          .create();
      api.client()
          .rbac()
          .clusterRoleBindings()
          .resource(
              new ClusterRoleBindingBuilder()
                  .withNewMetadata()
                  .withName("readers-read-configmaps")
                  .endMetadata()
                  .withNewRoleRef()
                  .withApiGroup("rbac.authorization.k8s.io")
                  .withKind("ClusterRole")
                  .withName("configmap-reader")
                  .endRoleRef()
                  .addNewSubject()
                  .withApiGroup("rbac.authorization.k8s.io")
                  .withKind("Group")
                  .withName("readers")
                  .endSubject()
                  .build())
          .create();

      await()
          .atMost(Duration.ofSeconds(30))
          .ignoreExceptions()
          .untilAsserted(
              () ->
                  assertThat(reader.configMaps().inNamespace("default").list().getItems())
                      .isNotNull());
      assertThatThrownBy(
              () ->
                  reader
                      .configMaps()
                      .inNamespace("default")
                      .resource(
                          new ConfigMapBuilder()
                              .withNewMetadata()
                              .withName("denied")
                              .endMetadata()
                              .build())
                      .create())
          .isInstanceOfSatisfying(
              KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(403));
    }
  }

  @Test
  void aServiceAccountAuthenticatesWithATokenAsTheIdentityKubernetesGivesIt() {
    String namespace = "network-enforcer-harness";
    String name = "a-service-account-whose-user-name-is-longer-than-sixty-four-characters";
    api.client()
        .namespaces()
        .resource(
            new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build())
        .create();
    api.client()
        .serviceAccounts()
        .inNamespace(namespace)
        .resource(
            new ServiceAccountBuilder().withNewMetadata().withName(name).endMetadata().build())
        .create();
    String user = "system:serviceaccount:" + namespace + ":" + name;
    assertThat(user.length()).isGreaterThan(64);

    try (KubernetesClient account = api.serviceAccountClient(namespace, name)) {
      UserInfo seen =
          account
              .authentication()
              .v1()
              .selfSubjectReviews()
              .create(new SelfSubjectReview())
              .getStatus()
              .getUserInfo();

      assertThat(seen.getUsername()).isEqualTo(user);
      assertThat(seen.getGroups())
          .containsExactlyInAnyOrder(
              "system:serviceaccounts",
              "system:serviceaccounts:" + namespace,
              "system:authenticated");
      assertThat(seen.getUid())
          .isEqualTo(
              api.client()
                  .serviceAccounts()
                  .inNamespace(namespace)
                  .withName(name)
                  .get()
                  .getMetadata()
                  .getUid());
      // No binding yet: RBAC refuses it like any other subject.
      assertThatThrownBy(() -> account.configMaps().inNamespace(namespace).list())
          .isInstanceOfSatisfying(
              KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(403));
    }
    assertThat(api.serviceAccountKubeconfig(namespace, name))
        .content()
        .contains("token: ")
        .doesNotContain("client-certificate-data");
  }

  @Test
  void serviceAccountsGetNoCertificateAndMustExist() {
    assertThatThrownBy(
            () -> api.clientFor("system:serviceaccount:default:writer", "system:serviceaccounts"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("serviceAccountClient(namespace, name)");
    assertThatThrownBy(() -> api.serviceAccountClient("default", "nobody"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("no service account default/nobody");
    assertThatThrownBy(() -> api.clientFor("x".repeat(65)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at most 64 characters");
  }

  @Test
  void istioAuthorizationPolicyKindCanBeServed() {
    IstioCrds.installAuthorizationPolicy(api.client(), Duration.ofSeconds(60));

    GenericKubernetesResource created =
        api.client()
            .resource(
                api.client()
                    .getKubernetesSerialization()
                    .unmarshal(
                        """
        apiVersion: security.istio.io/v1
        kind: AuthorizationPolicy
        metadata: {name: web, namespace: default, annotations: {istio.io/dry-run: "true"}}
        spec:
          action: ALLOW
          selector: {matchLabels: {app: web}}
          rules: [{from: [{source: {principals: [cluster.local/ns/shop/sa/client]}}]}]
        """,
                        GenericKubernetesResource.class))
            .create();

    assertThat(created.getMetadata().getUid()).isNotBlank();
    assertThat(created.get("spec", "action").toString()).isEqualTo("ALLOW");
  }

  @Test
  void aClientBehindACutProxyIsPartitionedWhileOthersCarryOn() {
    try (LoopbackProxy proxy = LoopbackProxy.to(api.url());
        KubernetesClient partitioned =
            api.clientVia(proxy, "partitioned", KubeApiServer.MASTERS_GROUP)) {
      assertThat(partitioned.namespaces().withName("default").get()).isNotNull();

      proxy.cut();

      assertThatThrownBy(() -> partitioned.namespaces().withName("default").get())
          .isInstanceOf(KubernetesClientException.class);
      assertThat(api.client().namespaces().withName("default").get()).isNotNull();
    }
  }

  @Test
  void closeStopsTheProcessesAndDeletesTheWorkDirectory() {
    KubeApiServer second = KubeApiServer.builder().start();
    Path kubeconfig = second.kubeconfig();
    URI url = URI.create(second.url());
    assertThat(url.getPort()).isNotEqualTo(URI.create(api.url()).getPort());
    assertThat(second.client().namespaces().withName("default").get()).isNotNull();

    second.close();

    assertThat(kubeconfig).doesNotExist();
    assertThat(kubeconfig.getParent()).doesNotExist();
    assertThatThrownBy(
            () -> {
              try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(url.getHost(), url.getPort()), 2000);
              }
            })
        .isInstanceOf(java.io.IOException.class);
  }

  @Test
  void missingBinaryNamesTheScriptThatBuildsIt(@TempDir Path emptyBinDir) {
    assertThat(Files.exists(emptyBinDir.resolve(KubeTools.KUBE_APISERVER))).isFalse();

    assertThatThrownBy(() -> KubeTools.require(emptyBinDir, KubeTools.KUBE_APISERVER))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("kube-apiserver not found")
        .hasMessageContaining("hack/tools/kube.sh");
  }

  @Test
  void missingCollectorNamesClusterScript(@TempDir Path emptyBinDir) {
    assertThatThrownBy(() -> KubeTools.require(emptyBinDir, KubeTools.OTELCOL))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("otelcol not found at " + emptyBinDir.resolve("otelcol"))
        .hasMessageContaining("hack/tools/cluster.sh");
  }
}
