package io.kubewarden.networkenforcer.writer.apply;

import io.fabric8.kubernetes.client.KubernetesClientException;

/**
 * What an API server's refusal means for the next attempt of the same request. The one place that
 * reads status codes, so that every caller retries the same failures and parks the same ones.
 */
public enum ApiRefusals {
  /** The object changed under us (409): read it again and redo the change. */
  CONFLICT,
  /** No answer, throttling, an unavailable or timed-out server: the same request passes later. */
  TRANSIENT,
  /**
   * An internal server error (500): often passing (etcd), sometimes not (a broken admission
   * webhook, an object the server cannot store); retried a bounded number of times.
   */
  SERVER_ERROR,
  /** Invalid, forbidden, too large, gone: the same request is refused again, however often sent. */
  PERMANENT,
  /** Not an answer of the API server at all (a bug of ours): left to the caller's own handling. */
  OTHER;

  public static ApiRefusals of(Throwable e) {
    Throwable cause = e;
    while (cause != null && !(cause instanceof KubernetesClientException)) {
      cause = cause.getCause();
    }
    if (!(cause instanceof KubernetesClientException k)) {
      return OTHER;
    }
    int code = k.getCode();
    if (code <= 0 || code == 429 || code == 502 || code == 503 || code == 504) {
      return TRANSIENT;
    }
    if (code == 409) {
      return CONFLICT;
    }
    if (code >= 500) {
      return SERVER_ERROR;
    }
    return PERMANENT;
  }
}
