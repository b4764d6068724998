package io.kubewarden.networkenforcer.writer.apply;

import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.regex.Pattern;

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

  /**
   * The authorizer's refusal ({@code ... is forbidden: User "u" cannot patch resource ...}), as
   * opposed to an admission policy's. It is not final: a restarted kube-apiserver answers it until
   * its RBAC caches are warm, and an operator may grant the permission.
   */
  private static final Pattern AUTHORIZATION_DENIAL =
      Pattern.compile("is forbidden: User \".*\" cannot ");

  /**
   * Whether the same request may pass later: no answer, a conflict, throttling or a server error.
   */
  public boolean mayPassLater() {
    return this == TRANSIENT || this == CONFLICT || this == SERVER_ERROR;
  }

  /** The API server's own words, without the request line: the same refusal reads the same. */
  public static String said(KubernetesClientException e) {
    return e.getStatus() != null && e.getStatus().getMessage() != null
        ? e.getStatus().getMessage()
        : e.getMessage();
  }

  /** A 403 of the authorizer (RBAC), not of an admission policy: retried, see above. */
  public static boolean authorizationDenial(KubernetesClientException e) {
    return e.getCode() == 403 && AUTHORIZATION_DENIAL.matcher(said(e)).find();
  }

  /**
   * The API server's answers to an object over the size limit, the first two seen from a real one:
   * etcd's "request is too large" (500, over 1.5 MiB), kube-apiserver's own gRPC limit to etcd
   * ("trying to send message larger than max", 500, over 2 MiB) and the request body's limit (413).
   * Retrying sends the same bytes again.
   */
  public static boolean tooLarge(KubernetesClientException e) {
    String said = said(e);
    return e.getCode() == 413
        || said != null
            && (said.contains("request is too large")
                || said.contains("trying to send message larger than max"));
  }

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
