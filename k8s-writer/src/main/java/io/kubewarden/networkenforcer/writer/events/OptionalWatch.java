package io.kubewarden.networkenforcer.writer.events;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A watch the writer can run without: the chart grants only the native kind of its backend, so the
 * other one may be forbidden (or not served); then the watch stops, and what it would have queued
 * is found by the resync. Any other failure is retried by the informer.
 */
public final class OptionalWatch {
  private static final Logger LOG = LoggerFactory.getLogger(OptionalWatch.class);

  private OptionalWatch() {}

  /** Installs the exception handler: stop on 403/404, go on otherwise. */
  public static <T extends HasMetadata> SharedIndexInformer<T> of(
      String what, SharedIndexInformer<T> informer) {
    informer.exceptionHandler(
        (started, t) -> {
          Throwable cause = t;
          while (cause.getCause() != null && !(cause instanceof KubernetesClientException)) {
            cause = cause.getCause();
          }
          boolean forbidden = notPermitted(cause);
          LOG.warn(
              "watch of {} {}: {}",
              what,
              forbidden ? "not permitted, left to the resync" : "failed, retrying",
              cause.getMessage());
          return !forbidden;
        });
    return informer;
  }

  static boolean notPermitted(Throwable t) {
    return t instanceof KubernetesClientException e && (e.getCode() == 403 || e.getCode() == 404);
  }
}
