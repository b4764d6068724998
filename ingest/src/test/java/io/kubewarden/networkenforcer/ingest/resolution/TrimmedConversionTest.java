package io.kubewarden.networkenforcer.ingest.resolution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.kubewarden.networkenforcer.common.json.Json;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Converting only the parts kept gives what converting the whole object and trimming it gave, for
 * every shape a part can have: absent, null, empty, full, and not an object at all.
 */
class TrimmedConversionTest {
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
  private static final TrimmedConversion CONVERSION = new TrimmedConversion();
  private static final Map<String, Class<? extends HasMetadata>> TYPES =
      Map.of(
          "Pod",
          Pod.class,
          "Deployment",
          Deployment.class,
          "StatefulSet",
          StatefulSet.class,
          "DaemonSet",
          DaemonSet.class,
          "ReplicaSet",
          ReplicaSet.class,
          "Job",
          Job.class,
          "CronJob",
          CronJob.class,
          "Namespace",
          Namespace.class);

  private static final String[] OBJECTS = {
    // A pod as the API server returns it: most of it is dropped.
    """
      {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web-1", "namespace": "shop", "generateName": "web-",
        "labels": {"app": "web"}, "annotations": {"networkenforcer.kubewarden.io/inferred": "true", "a": "b"},
        "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-7d9f", "uid": "u",
          "controller": true}], "deletionTimestamp": "2026-01-01T00:00:00Z"},
       "spec": {"serviceAccountName": "web", "hostNetwork": true, "nodeName": "n1",
         "containers": [{"name": "main", "image": "web:1", "ports": [{"name": "http", "containerPort": 8080}],
           "env": [{"name": "A", "value": "b"}]}, {"name": "sidecar"}, {"name": "nulls", "ports": null}],
         "volumes": [{"name": "v", "emptyDir": {}}]},
       "status": {"phase": "Running", "podIP": "10.0.0.1", "podIPs": [{"ip": "10.0.0.1"}, {"ip": "fd00::1"}],
         "conditions": [{"type": "Ready", "status": "True"}]}}
      """,
    """
      {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "bare", "namespace": "shop"}}
      """,
    """
      {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "nulls", "namespace": "shop"}, "spec": null,
       "status": null}
      """,
    """
      {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "empty", "namespace": "shop", "labels": {}},
       "spec": {"containers": null, "hostNetwork": "true"}, "status": {"podIPs": null, "podIP": null}}
      """,
    """
      {"apiVersion": "v1", "kind": "Pod", "spec": {"containers": []}, "status": {}}
      """,
    """
      {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "shop",
        "labels": {"app": "web"}},
       "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"},
         "matchExpressions": [{"key": "tier", "operator": "In", "values": ["fe"]}]},
         "strategy": {"type": "RollingUpdate"},
         "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "main"}]}}},
       "status": {"replicas": 3, "conditions": [{"type": "Available", "status": "True"}]}}
      """,
    """
      {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "no-selector", "namespace": "shop"},
       "spec": {"replicas": 1}}
      """,
    """
      {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "no-spec", "namespace": "shop"}}
      """,
    """
      {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db", "namespace": "shop"},
       "spec": {"selector": {"matchLabels": {"app": "db"}}, "serviceName": "db",
         "volumeClaimTemplates": [{"metadata": {"name": "data"}}],
         "template": {"metadata": {"labels": {"app": "db"}}}}, "status": {"replicas": 1}}
      """,
    """
      {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent", "namespace": "kube-system"},
       "spec": {"selector": {"matchLabels": {"app": "agent"}}, "template": {}}, "status": {}}
      """,
    """
      {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "web-7d9f", "namespace": "shop",
        "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "uid": "u1"}]},
       "spec": {"replicas": 2, "selector": null}, "status": {"replicas": 2}}
      """,
    """
      {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "backup-1", "namespace": "ops",
        "ownerReferences": [{"apiVersion": "batch/v1", "kind": "CronJob", "name": "backup", "uid": "c"}]},
       "spec": {"backoffLimit": 2, "template": {"spec": {"containers": [{"name": "b"}]}}},
       "status": {"succeeded": 1}}
      """,
    """
      {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "backup", "namespace": "ops"},
       "spec": {"schedule": "0 * * * *", "jobTemplate": {"spec": {"template": {"metadata":
         {"labels": {"job": "backup"}, "annotations": {"x": "y"}}, "spec": {"containers": [{"name": "b"}]}}}}},
       "status": {"lastScheduleTime": "2026-01-01T00:00:00Z"}}
      """,
    """
      {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "no-labels", "namespace": "ops"},
       "spec": {"jobTemplate": {"spec": {"template": {"metadata": {"name": "x"}}}}}}
      """,
    """
      {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "no-template", "namespace": "ops"},
       "spec": {"schedule": "@daily", "jobTemplate": {"spec": {}}}}
      """,
    """
      {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "no-job-template", "namespace": "ops"},
       "spec": {"schedule": "@daily", "jobTemplate": null}}
      """,
    """
      {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "no-spec", "namespace": "ops"}}
      """,
    """
      {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop", "labels": {"team": "red"}},
       "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}}
      """,
  };

  @Test
  void givesWhatConvertingTheWholeObjectAndTrimmingGave() throws Exception {
    for (String json : OBJECTS) {
      JsonNode node = Json.mapper().readTree(json);
      Class<? extends HasMetadata> type = TYPES.get(node.path("kind").asText());
      HasMetadata whole = TrimmingItemStore.trim(SERIALIZATION.convertValue(node, type));

      assertThat(CONVERSION.convert(node, type)).as(json).isEqualTo(whole);
    }
  }

  @Test
  void keepsOfAWorkloadItsSelectorAloneAndOfAPodWhatResolutionReads() throws Exception {
    Deployment web =
        (Deployment) CONVERSION.convert(Json.mapper().readTree(OBJECTS[5]), Deployment.class);
    assertThat(web.getSpec().getSelector().getMatchLabels()).containsEntry("app", "web");
    assertThat(web.getSpec().getSelector().getMatchExpressions())
        .singleElement()
        .satisfies(e -> assertThat(e.getValues()).containsExactly("fe"));
    assertThat(web.getSpec().getReplicas()).isNull();
    assertThat(web.getSpec().getTemplate()).isNull();
    assertThat(web.getStatus()).isNull();

    Pod pod = (Pod) CONVERSION.convert(Json.mapper().readTree(OBJECTS[0]), Pod.class);
    assertThat(pod.getMetadata().getDeletionTimestamp()).isEqualTo("2026-01-01T00:00:00Z");
    assertThat(pod.getSpec().getHostNetwork()).isTrue();
    assertThat(pod.getSpec().getNodeName()).isNull();
    assertThat(pod.getSpec().getContainers())
        .extracting(c -> c.getName())
        .containsExactly("main", "sidecar", "nulls");
    assertThat(pod.getSpec().getContainers().get(0).getPorts())
        .singleElement()
        .satisfies(p -> assertThat(p.getContainerPort()).isEqualTo(8080));
    assertThat(pod.getStatus().getPodIPs())
        .extracting(ip -> ip.getIp())
        .containsExactly("10.0.0.1", "fd00::1");
    assertThat(pod.getStatus().getConditions()).isNullOrEmpty();

    CronJob backup =
        (CronJob) CONVERSION.convert(Json.mapper().readTree(OBJECTS[12]), CronJob.class);
    assertThat(backup.getSpec().getJobTemplate().getSpec().getTemplate().getMetadata().getLabels())
        .isEqualTo(Map.of("job", "backup"));
  }

  @Test
  void aPartThatIsNoObjectIsConvertedWholeAndRefusedWithTheSameMessage() throws Exception {
    for (String json :
        new String[] {
          """
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": "oops"}
        """,
          """
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": {"name": "x"}}}
        """,
          """
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": [null]}}
        """,
          """
        {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": ["x"]}
        """,
          """
        {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "c"}, "spec": {"jobTemplate": 3}}
        """
        }) {
      JsonNode node = Json.mapper().readTree(json);
      Class<? extends HasMetadata> type = TYPES.get(node.path("kind").asText());
      Throwable whole = null;
      try {
        TrimmingItemStore.trim(SERIALIZATION.convertValue(node, type));
      } catch (RuntimeException e) {
        whole = e;
      }
      assertThat(whole).as(json).isNotNull();
      String message = whole.getMessage();

      assertThatThrownBy(() -> CONVERSION.convert(node, type)).as(json).hasMessage(message);
    }
  }
}
