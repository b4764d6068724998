package io.kubewarden.networkenforcer.cli.compose;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.kubewarden.networkenforcer.common.json.Json;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * Creates the objects of a cluster-state capture ({@code kubectl get ns,deploy,rs,pods -o json},
 * trimmed to what resolution reads) in an API server, as they were in the captured cluster: the
 * fields the capture left out and the API server requires are filled in (pod templates, service
 * accounts), owner references point at the new UIDs, and pods get their captured status (IPs).
 */
public final class SampleCluster {
  private static final Set<String> WORKLOAD_KINDS =
      Set.of("Deployment", "ReplicaSet", "StatefulSet", "DaemonSet");

  private SampleCluster() {}

  public static void create(KubernetesClient admin, Path captureFile) throws IOException {
    Map<String, String> newUids = new HashMap<>();
    for (JsonNode node : Json.mapper().readTree(captureFile.toFile()).path("items")) {
      ObjectNode item = node.deepCopy();
      ObjectNode metadata = (ObjectNode) item.path("metadata");
      String capturedUid = metadata.path("uid").asText(null);
      metadata.remove("uid");
      metadata
          .path("ownerReferences")
          .forEach(
              ref ->
                  ((ObjectNode) ref)
                      .put(
                          "uid",
                          newUids.getOrDefault(
                              ref.path("uid").asText(), ref.path("uid").asText())));
      String kind = item.path("kind").asText();
      if (WORKLOAD_KINDS.contains(kind)) {
        fillPodTemplate(item, metadata.path("name").asText());
      }
      HasMetadata object = admin.getKubernetesSerialization().unmarshal(item.toString());
      if (object instanceof Pod pod) {
        createServiceAccount(admin, pod);
      }
      HasMetadata created = admin.resource(object).createOr(NonDeletingOperation::update);
      if (object instanceof Pod pod) {
        Pod stored = (Pod) created;
        stored.setStatus(pod.getStatus());
        admin.pods().resource(stored).updateStatus();
      }
      if (capturedUid != null) {
        newUids.put(capturedUid, created.getMetadata().getUid());
      }
    }
  }

  /** The template labels are the selector's; one container, as the capture does not keep them. */
  private static void fillPodTemplate(ObjectNode workload, String name) {
    ObjectNode spec = workload.withObjectProperty("spec");
    ObjectNode template = spec.withObjectProperty("template");
    if (!template.path("metadata").has("labels")) {
      template
          .withObjectProperty("metadata")
          .set("labels", spec.path("selector").path("matchLabels").deepCopy());
    }
    if (!template.path("spec").has("containers")) {
      template
          .withObjectProperty("spec")
          .putArray("containers")
          .addObject()
          .put("name", "main")
          .put("image", "registry.example/" + name + ":1");
    }
  }

  private static void createServiceAccount(KubernetesClient admin, Pod pod) {
    String name = pod.getSpec().getServiceAccountName();
    if (name != null) {
      admin
          .serviceAccounts()
          .inNamespace(pod.getMetadata().getNamespace())
          .resource(
              new ServiceAccountBuilder().withNewMetadata().withName(name).endMetadata().build())
          .createOr(NonDeletingOperation::update);
    }
  }
}
