package io.kubewarden.networkenforcer.writer.reconcile;

import io.fabric8.kubernetes.api.model.HasMetadata;

/** The key of a namespaced object in a work queue: {@code namespace/name}. */
public record ObjectKey(String namespace, String name) {

  public static ObjectKey of(HasMetadata o) {
    return new ObjectKey(o.getMetadata().getNamespace(), o.getMetadata().getName());
  }

  /** Parses {@code namespace/name}. */
  public static ObjectKey parse(String key) {
    int slash = key.indexOf('/');
    if (slash <= 0 || slash == key.length() - 1) {
      throw new IllegalArgumentException("not namespace/name: " + key);
    }
    return new ObjectKey(key.substring(0, slash), key.substring(slash + 1));
  }

  @Override
  public String toString() {
    return namespace + "/" + name;
  }
}
