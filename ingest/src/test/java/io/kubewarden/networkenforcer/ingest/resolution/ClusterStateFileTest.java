package io.kubewarden.networkenforcer.ingest.resolution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.kubewarden.networkenforcer.common.config.ConfigException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClusterStateFileTest {
  @TempDir Path dir;

  private static final String BULKY_POD =
      """
      {"apiVersion": "v1", "kind": "Pod",
       "metadata": {"name": "web-7d9f-abcde", "generateName": "web-7d9f-", "namespace": "shop",
         "labels": {"app": "web", "pod-template-hash": "7d9f"},
         "annotations": {"networkenforcer.kubewarden.io/inferred": "true", "prometheus.io/scrape": "true"},
         "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-7d9f", "uid": "u2",
           "controller": true}],
         "managedFields": [{"manager": "kubelet", "operation": "Update", "fieldsType": "FieldsV1",
           "fieldsV1": {"f:status": {"f:podIP": {}}}}]},
       "spec": {"serviceAccountName": "web-sa", "hostNetwork": false, "nodeName": "worker-1",
         "containers": [{"name": "main", "image": "web:1", "env": [{"name": "A", "value": "b"}],
           "ports": [{"name": "http", "containerPort": 8080, "protocol": "TCP"}],
           "livenessProbe": {"httpGet": {"path": "/healthz", "port": 8080}}}],
         "volumes": [{"name": "config", "configMap": {"name": "web-config"}}]},
       "status": {"phase": "Running", "podIP": "10.1.0.7", "podIPs": [{"ip": "10.1.0.7"}],
         "conditions": [{"type": "Ready", "status": "True"}],
         "containerStatuses": [{"name": "main", "ready": true, "restartCount": 0, "image": "web:1",
           "imageID": "x"}]}}
      """;

  @Test
  void readsTheIndexedKindsOfAJsonListTrimmedAsTheInformersCacheKeepsThem() throws IOException {
    Path file =
        write(
            "state.json",
            """
        {"apiVersion": "v1", "kind": "List", "items": [
          {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop", "labels": {"team": "red"}}},
          {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "shop",
            "managedFields": [{"manager": "kubectl"}]},
           "spec": {"selector": {"matchLabels": {"app": "web"}},
             "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "main"}]}}}},
          {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "web-7d9f", "namespace": "shop",
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "uid": "u1",
              "controller": true}]},
           "spec": {"selector": {"matchLabels": {"app": "web"}}}},
          %s,
          {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web", "namespace": "shop"}},
          {"apiVersion": "extensions/v1beta1", "kind": "Deployment", "metadata": {"name": "legacy",
            "namespace": "shop"}}
        ]}
        """
                .formatted(BULKY_POD));

    ClusterIndex index = ClusterStateFile.load(file);

    Pod pod = index.podByName("shop", "web-7d9f-abcde").orElseThrow();
    assertThat(pod.getMetadata().getLabels()).containsEntry("app", "web");
    assertThat(pod.getMetadata().getGenerateName()).isEqualTo("web-7d9f-");
    assertThat(pod.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(owner -> assertThat(owner.getName()).isEqualTo("web-7d9f"));
    assertThat(pod.getSpec().getServiceAccountName()).isEqualTo("web-sa");
    assertThat(pod.getSpec().getContainers())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.getPorts())
                  .singleElement()
                  .satisfies(p -> assertThat(p.getName()).isEqualTo("http"));
              assertThat(c.getEnv()).isNullOrEmpty();
              assertThat(c.getLivenessProbe()).isNull();
            });
    assertThat(pod.getSpec().getVolumes()).isNullOrEmpty();
    assertThat(pod.getStatus().getPodIP()).isEqualTo("10.1.0.7");
    assertThat(pod.getStatus().getPhase()).isEqualTo("Running");
    assertThat(pod.getStatus().getConditions()).isNullOrEmpty();
    assertThat(pod.getStatus().getContainerStatuses()).isNullOrEmpty();
    // Of the bytes that dominate a real cluster's file, nothing is kept.
    assertThat(pod.getMetadata().getManagedFields()).isNullOrEmpty();
    assertThat(pod.getMetadata().getAnnotations())
        .isEqualTo(Map.of(WorkloadInference.INFERRED_OBJECT_ANNOTATION, "true"));
    assertThat(index.podByIp("10.1.0.7")).contains(pod);

    Deployment web = index.deployment("shop", "web").orElseThrow();
    assertThat(web.getSpec().getSelector().getMatchLabels()).containsEntry("app", "web");
    assertThat(web.getSpec().getTemplate()).isNull();
    assertThat(web.getMetadata().getManagedFields()).isNullOrEmpty();
    assertThat(index.replicaSet("shop", "web-7d9f")).isPresent();
    assertThat(index.namespaceLabels("shop")).containsEntry("team", "red");
    // Kinds and versions resolution does not read are skipped, as they were when read whole.
    assertThat(index.deployment("shop", "legacy")).isEmpty();
    assertThat(index.podCount()).isEqualTo(1);
  }

  @Test
  void holdsWhatReadingTheWholeFileAndTrimmingHeld() throws Exception {
    for (Path file :
        List.of(
            Path.of("../samples/basic/cluster-state.json"),
            Path.of(ClusterStateFileTest.class.getResource("/edge-cluster-state.yaml").toURI()))) {
      List<HasMetadata> whole = new ArrayList<>();
      try (InputStream in = Files.newInputStream(file)) {
        flatten(new KubernetesSerialization().unmarshal(in), whole);
      }
      ClusterIndex streamed = ClusterStateFile.load(file);
      int pods = 0;
      for (HasMetadata expected : whole) {
        TrimmingItemStore.trim(expected);
        String ns = expected.getMetadata().getNamespace();
        String name = expected.getMetadata().getName();
        Optional<HasMetadata> actual = indexed(streamed, expected).map(HasMetadata.class::cast);
        assertThat(actual)
            .as("%s %s/%s in %s", expected.getKind(), ns, name, file)
            .contains(expected);
        pods += expected instanceof Pod ? 1 : 0;
      }
      assertThat(streamed.podCount()).as("pods of %s", file).isEqualTo(pods).isPositive();
    }
  }

  @Test
  void readsYamlDocumentsListsSequencesAndSingleObjects() throws IOException {
    Path file =
        write(
            "state.yaml",
            """
        # kubectl get ns -o yaml, then a pod on its own, then an empty document and a sequence
        apiVersion: v1
        kind: List
        items:
        - apiVersion: v1
          kind: Namespace
          metadata: {name: shop, labels: {team: red}}
        ---
        %s
        ---
        ---
        - apiVersion: apps/v1
          kind: StatefulSet
          metadata: {name: db, namespace: shop}
          spec: {selector: {matchLabels: {app: db}}}
        """
                .formatted(BULKY_POD));

    ClusterIndex index = ClusterStateFile.load(file);

    assertThat(index.namespaceLabels("shop")).containsEntry("team", "red");
    assertThat(
            index
                .podByName("shop", "web-7d9f-abcde")
                .orElseThrow()
                .getMetadata()
                .getManagedFields())
        .isNullOrEmpty();
    assertThat(index.statefulSet("shop", "db")).isPresent();
  }

  @Test
  void aJsonArrayIsASequenceOfObjects() throws IOException {
    Path file =
        write(
            "state.json",
            "  \n["
                + BULKY_POD
                + ", {\"apiVersion\": \"apps/v1\", \"kind\": \"DaemonSet\","
                + " \"metadata\": {\"name\": \"agent\", \"namespace\": \"shop\"}}]");

    ClusterIndex index = ClusterStateFile.load(file);

    assertThat(index.podCount()).isEqualTo(1);
    assertThat(index.daemonSet("shop", "agent")).isPresent();
  }

  @Test
  void aFileThatIsNoListOfObjectsSaysWhatIsWrongAndHowToWriteIt() throws IOException {
    assertThatThrownBy(
            () ->
                ClusterStateFile.load(
                    write("cut.json", "{\"kind\": \"List\", \"items\": [" + BULKY_POD)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("cut.json is not a Kubernetes List in JSON or YAML")
        .hasMessageContaining("kubectl get ns,deploy,sts,ds,rs,pods -A -o json")
        .hasMessageContaining("Unexpected end-of-input")
        .hasMessageNotContaining("REDACTED");
    assertThatThrownBy(
            () ->
                ClusterStateFile.load(
                    write(
                        "nokind.json",
                        "{\"kind\": \"List\", \"items\": [{\"metadata\": {\"name\": \"web-1\"}}]}")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("an object has no kind (metadata.name web-1)");
    assertThatThrownBy(() -> ClusterStateFile.load(write("empty.yaml", "# nothing\n")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("empty.yaml is empty");
    assertThatThrownBy(() -> ClusterStateFile.load(write("scalar.yaml", "just words\n")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("a document is just words, not an object or a list");
    assertThatThrownBy(() -> ClusterStateFile.load(dir.resolve("missing.json")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("cannot read cluster-state file");
  }

  /**
   * Found by PolicyInputsFuzzingTest (cli): a pod whose status.podIPs[0] is the number -62135596800
   * was refused with fabric8's class names and Jackson's reference chain on several lines. The
   * message now names the object and the field, on one line.
   */
  @Test
  void aFieldThatDoesNotReadIsNamedWithItsObject() throws IOException {
    assertThatThrownBy(
            () ->
                ClusterStateFile.load(
                    write(
                        "podips.json",
                        "{\"apiVersion\": \"v1\", \"kind\": "
                            + "\"List\", \"items\": [{\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"metadata\": {\"name\": \"web-1\", "
                            + "\"namespace\": \"shop\"}, \"status\": {\"podIPs\": [-62135596800]}}]}")))
        .isInstanceOf(ConfigException.class)
        .hasMessageEndingWith(
            "podips.json is not a Kubernetes List in JSON or YAML (write it with: kubectl get "
                + "ns,deploy,sts,ds,rs,pods -A -o json): the Pod (metadata.name web-1) is not valid at status.podIPs[0]: "
                + "want an object")
        .hasMessageNotContaining("\n")
        .hasMessageNotContaining("io.fabric8");
    // Found by ClusterStateFileFuzzTest: a document that is a scalar over two lines put both in the
    // message.
    assertThatThrownBy(
            () ->
                ClusterStateFile.load(
                    write("scalar2.yaml", "kind: Pod\n---\napi.244.0.20\"\n   \nkind\n")))
        .isInstanceOf(ConfigException.class)
        .hasMessageEndingWith("a document is api.244.0.20\" kind, not an object or a list");
  }

  /** The object of the same kind and name in the index; namespaces are compared by their labels. */
  private static Optional<? extends HasMetadata> indexed(ClusterIndex index, HasMetadata like) {
    String ns = like.getMetadata().getNamespace();
    String name = like.getMetadata().getName();
    if (like instanceof Pod) {
      return index.podByName(ns, name);
    } else if (like instanceof ReplicaSet) {
      return index.replicaSet(ns, name);
    } else if (like instanceof Deployment) {
      return index.deployment(ns, name);
    } else if (like instanceof StatefulSet) {
      return index.statefulSet(ns, name);
    } else if (like instanceof DaemonSet) {
      return index.daemonSet(ns, name);
    } else if (like instanceof Job) {
      return index.job(ns, name);
    } else if (like instanceof CronJob) {
      return index.cronJob(ns, name);
    }
    Map<String, String> labels = like.getMetadata().getLabels();
    assertThat(index.namespaceLabels(name)).isEqualTo(labels == null ? Map.of() : labels);
    return Optional.of(like);
  }

  private Path write(String name, String content) throws IOException {
    return Files.writeString(dir.resolve(name), content);
  }

  private static void flatten(Object parsed, List<HasMetadata> into) {
    if (parsed instanceof KubernetesResourceList<?> list) {
      list.getItems().forEach(item -> flatten(item, into));
    } else if (parsed instanceof Collection<?> docs) {
      docs.forEach(doc -> flatten(doc, into));
    } else if (parsed instanceof HasMetadata object) {
      into.add(object);
    }
  }
}
