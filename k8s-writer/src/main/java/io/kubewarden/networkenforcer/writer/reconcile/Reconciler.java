package io.kubewarden.networkenforcer.writer.reconcile;

/**
 * Brings the cluster in line with the desired state for one key. It reads everything it needs
 * (caches, desired state) by key, so it can run any number of times, in any order, after any crash:
 * only the last run counts.
 */
public interface Reconciler<K> {

  /**
   * @return whether to look again later; a thrown exception retries the key with back-off, a {@link
   *     PermanentError} is reported through {@link #permanentFailure} and not retried
   */
  Result reconcile(K key);

  /**
   * {@link #reconcile(Object)} knowing the key's failures in a row, for a reconciler that gives up
   * after a bounded number; the controller calls this one.
   */
  default Result reconcile(K key, RetryInfo retry) {
    return reconcile(key);
  }

  /** Reports an error that retrying cannot fix on the object (a condition, an Event). */
  default void permanentFailure(K key, PermanentError error) {}
}
