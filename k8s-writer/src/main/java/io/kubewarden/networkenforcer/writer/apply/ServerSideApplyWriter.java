package io.kubewarden.networkenforcer.writer.apply;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.net.HttpURLConnection;
import java.util.Collection;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The real writer: server-side apply with one field manager. An apply does not force: when another
 * manager took one of the fields the writer applies (every field it sends is one it owns: the whole
 * desired state of a rendered object, a proposal's learned spec with the reviewer's edits merged
 * in), the conflict is logged and the field taken back with a forced apply.
 *
 * <p>Every request is sent once. The client's own retries (on I/O errors, 429 and 5xx, with
 * back-off for up to minutes) would resend a write after the leader guard let it through: a leader
 * cut off from the API server would land its last, older desired state once the network heals, over
 * what the new leader applied since. A failed write goes back to its work queue instead, and the
 * guard is asked again before the next attempt.
 */
public final class ServerSideApplyWriter implements ClusterWriter {
  private static final Logger LOG = LoggerFactory.getLogger(ServerSideApplyWriter.class);
  private final KubernetesClient client;
  private final String fieldManager;

  /** Writes with a client of its own, configured as {@code shared} but without request retries. */
  public ServerSideApplyWriter(KubernetesClient shared, String fieldManager) {
    this.client = SingleAttempt.client(shared, c -> c);
    this.fieldManager = fieldManager;
  }

  @Override
  public void close() {
    client.close();
  }

  @Override
  public <T extends HasMetadata> T apply(T desired) {
    clearServerFields(desired);
    try {
      return ResourceOperations.of(client, desired).fieldManager(fieldManager).serverSideApply();
    } catch (KubernetesClientException e) {
      if (e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
        throw e;
      }
      LOG.info(
          "taking back fields of {} {}/{} from another manager: {}",
          desired.getKind(),
          desired.getMetadata().getNamespace(),
          desired.getMetadata().getName(),
          e.getStatus() == null ? e.getMessage() : e.getStatus().getMessage());
      return ResourceOperations.of(client, desired)
          .fieldManager(fieldManager)
          .forceConflicts()
          .serverSideApply();
    }
  }

  @Override
  public <T extends HasMetadata> T create(T object) {
    return ResourceOperations.of(client, object).create();
  }

  @Override
  public <T extends HasMetadata> T applyStatus(T desired) {
    clearServerFields(desired);
    PatchContext ssa =
        new PatchContext.Builder()
            .withPatchType(PatchType.SERVER_SIDE_APPLY)
            .withFieldManager(fieldManager)
            .withForce(false)
            .build();
    return ResourceOperations.of(client, desired).subresource("status").patch(ssa, desired);
  }

  @Override
  public <T extends HasMetadata> T updateStatus(T withStatus) {
    return ResourceOperations.of(client, withStatus).updateStatus();
  }

  @Override
  public boolean delete(HasMetadata object) {
    return !ResourceOperations.of(client, object).delete().isEmpty();
  }

  @Override
  public void removeFinalizer(HasMetadata object, String finalizer) {
    List<String> finalizers = object.getMetadata().getFinalizers();
    if (finalizers == null || !finalizers.contains(finalizer)) {
      return;
    }
    try {
      ResourceOperations.of(client, object)
          .patch(PatchContext.of(PatchType.JSON_MERGE), finalizerRemovalPatch(object, finalizer));
    } catch (KubernetesClientException e) {
      if (e.getCode() != HttpURLConnection.HTTP_NOT_FOUND) {
        throw e;
      }
    }
  }

  /**
   * A merge patch of the object's finalizers without {@code finalizer}, carrying the copy's
   * resourceVersion: the API server refuses it with 409 when the list may have changed since.
   */
  public static String finalizerRemovalPatch(HasMetadata object, String finalizer) {
    ObjectNode patch = JsonNodeFactory.instance.objectNode();
    ObjectNode meta = patch.putObject("metadata");
    meta.put("resourceVersion", object.getMetadata().getResourceVersion());
    ArrayNode kept = meta.putArray("finalizers");
    object.getMetadata().getFinalizers().stream()
        .filter(f -> !f.equals(finalizer))
        .forEach(kept::add);
    return patch.toString();
  }

  @Override
  public void removeAnnotations(HasMetadata object, Collection<String> keys) {
    ResourceOperations.of(client, object)
        .patch(PatchContext.of(PatchType.JSON), removalPatch(keys));
  }

  /**
   * A JSON patch of one {@code remove} per key ({@code /} escaped as {@code ~1}). It fails as a
   * whole when a key is gone already, which the next status sync sorts out.
   */
  public static String removalPatch(Collection<String> keys) {
    ArrayNode ops = JsonNodeFactory.instance.arrayNode();
    for (String key : keys) {
      ObjectNode op = ops.addObject();
      op.put("op", "remove");
      op.put("path", "/metadata/annotations/" + key.replace("~", "~0").replace("/", "~1"));
    }
    return ops.toString();
  }

  private static void clearServerFields(HasMetadata o) {
    // An apply must not carry a stale resourceVersion or managedFields from a cached copy.
    o.getMetadata().setResourceVersion(null);
    o.getMetadata().setManagedFields(null);
    o.getMetadata().setUid(null);
    o.getMetadata().setCreationTimestamp(null);
    o.getMetadata().setGeneration(null);
  }
}
