package io.kubewarden.networkenforcer.writer.apply;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.Collection;

/**
 * Every write the writer makes to the API server goes through here: one small seam so that the real
 * server-side apply can be swapped for a double on a mock server that has none.
 */
public interface ClusterWriter extends AutoCloseable {

  /**
   * Server-side apply of the object's fields with our field manager; a field another manager took
   * is taken back.
   */
  <T extends HasMetadata> T apply(T desired);

  /** Creates the object; a 409 {@code KubernetesClientException} when it exists already. */
  <T extends HasMetadata> T create(T object);

  /** Server-side apply of the object's status subresource. */
  <T extends HasMetadata> T applyStatus(T desired);

  /**
   * Replaces the status subresource, locked on {@code metadata.resourceVersion}: a concurrent
   * change raises a 409 {@code KubernetesClientException}, and the caller retries with a fresh
   * read.
   */
  <T extends HasMetadata> T updateStatus(T withStatus);

  /** Deletes the object; false when it was already gone. */
  boolean delete(HasMetadata object);

  /**
   * Removes this finalizer, others' kept, locked on {@code metadata.resourceVersion}: a concurrent
   * change raises a 409 {@code KubernetesClientException} and the caller retries with a fresh copy.
   * Nothing to do when the object is gone or does not hold it.
   */
  void removeFinalizer(HasMetadata object, String finalizer);

  /** Removes these annotations, whoever set them (a JSON patch, not an apply). */
  void removeAnnotations(HasMetadata object, Collection<String> keys);

  /** Releases what the writer holds (its HTTP client); no write is made after this. */
  @Override
  default void close() {}
}
