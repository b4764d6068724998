package io.kubewarden.networkenforcer.writer.apply;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.kubewarden.networkenforcer.common.policy.Labels;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The writer on the fabric8 mock server, which has no server-side apply: an apply is a create, or
 * an update of the live object with our fields laid over it (labels merged, the dry-run annotation
 * we own (dry-run, inferred-workloads) set or removed, spec and owner references replaced). Every
 * call is recorded.
 */
public final class MockClusterWriter implements ClusterWriter {
  /** One recorded write: operation, kind and {@code ns/name}. */
  public record Call(String operation, String kind, String key) {}

  private final KubernetesClient client;
  private final KubernetesSerialization json;
  private final List<Call> calls = new CopyOnWriteArrayList<>();
  private volatile RuntimeException failWith;

  public MockClusterWriter(KubernetesClient client) {
    this.client = client;
    this.json = client.getKubernetesSerialization();
  }

  public List<Call> calls() {
    return calls;
  }

  public long count(String operation, String kind) {
    return calls.stream()
        .filter(c -> c.operation().equals(operation) && c.kind().equals(kind))
        .count();
  }

  /**
   * Every following write throws this (null: writes work again); simulates an unreachable API
   * server.
   */
  public void failWith(RuntimeException e) {
    failWith = e;
  }

  private void record(String op, HasMetadata o) {
    if (failWith != null) {
      throw failWith;
    }
    calls.add(
        new Call(
            op, o.getKind(), o.getMetadata().getNamespace() + "/" + o.getMetadata().getName()));
  }

  @Override
  @SuppressWarnings("unchecked")
  public <T extends HasMetadata> T apply(T desired) {
    record("apply", desired);
    Resource<T> r = ResourceOperations.of(client, desired);
    T live = r.get();
    if (live == null) {
      return r.create();
    }
    Map<String, Object> liveTree = json.convertValue(live, Map.class);
    Map<String, Object> want = json.convertValue(desired, Map.class);
    Map<String, Object> meta = (Map<String, Object>) liveTree.get("metadata");
    Map<String, Object> wantMeta = (Map<String, Object>) want.get("metadata");
    meta.put(
        "labels",
        merged(
            (Map<String, Object>) meta.get("labels"),
            (Map<String, Object>) wantMeta.get("labels")));
    Map<String, Object> annotations =
        merged(
            (Map<String, Object>) meta.get("annotations"),
            (Map<String, Object>) wantMeta.get("annotations"));
    // Annotations we own go when the applied object no longer sets them, as server-side apply does.
    for (String owned : new String[] {Labels.ISTIO_DRY_RUN, Labels.INFERRED_WORKLOADS}) {
      if (wantMeta.get("annotations") == null
          || !((Map<?, ?>) wantMeta.get("annotations")).containsKey(owned)) {
        annotations.remove(owned);
      }
    }
    meta.put("annotations", annotations);
    // Finalizers are a set in server-side apply: ours are added, others' kept.
    Set<Object> finalizers = new LinkedHashSet<>();
    for (Object f : new Object[] {meta.get("finalizers"), wantMeta.get("finalizers")}) {
      if (f != null) {
        finalizers.addAll((List<Object>) f);
      }
    }
    if (!finalizers.isEmpty()) {
      meta.put("finalizers", new ArrayList<>(finalizers));
    }
    if (wantMeta.get("ownerReferences") != null) {
      meta.put("ownerReferences", wantMeta.get("ownerReferences"));
    }
    if (want.containsKey("spec")) {
      liveTree.put("spec", want.get("spec"));
    }
    T updated = (T) json.convertValue(liveTree, desired.getClass());
    return ResourceOperations.of(client, updated).update();
  }

  private static Map<String, Object> merged(Map<String, Object> live, Map<String, Object> want) {
    Map<String, Object> m = new HashMap<>(live == null ? Map.of() : live);
    if (want != null) {
      m.putAll(want);
    }
    return m;
  }

  @Override
  public <T extends HasMetadata> T create(T object) {
    record("create", object);
    return ResourceOperations.of(client, object).create();
  }

  @Override
  @SuppressWarnings("unchecked")
  public <T extends HasMetadata> T applyStatus(T desired) {
    record("apply-status", desired);
    T live = ResourceOperations.of(client, desired).get();
    if (live == null) {
      throw new IllegalStateException(
          "status of a missing object " + desired.getMetadata().getName());
    }
    Map<String, Object> liveTree = json.convertValue(live, Map.class);
    Map<String, Object> want = json.convertValue(desired, Map.class);
    liveTree.put("status", want.get("status"));
    T updated = (T) json.convertValue(liveTree, live.getClass());
    return ResourceOperations.of(client, updated).updateStatus();
  }

  @Override
  public <T extends HasMetadata> T updateStatus(T withStatus) {
    record("update-status", withStatus);
    return ResourceOperations.of(client, withStatus).updateStatus();
  }

  @Override
  public boolean delete(HasMetadata object) {
    record("delete", object);
    return !ResourceOperations.of(client, object).delete().isEmpty();
  }

  @Override
  public void removeFinalizer(HasMetadata object, String finalizer) {
    record("remove-finalizer", object);
    if (!object.getMetadata().getFinalizers().contains(finalizer)) {
      return;
    }
    HasMetadata live = ResourceOperations.of(client, object).get();
    if (live == null) {
      return;
    }
    live.getMetadata().getFinalizers().remove(finalizer);
    ResourceOperations.of(client, live).update();
  }

  @Override
  public void removeAnnotations(HasMetadata object, Collection<String> keys) {
    record("remove-annotations", object);
    ResourceOperations.of(client, object)
        .patch(PatchContext.of(PatchType.JSON), ServerSideApplyWriter.removalPatch(keys));
  }
}
