package io.kubewarden.networkenforcer.pipeline.crash;

/** What the API server proxy answers instead of (or before) the API server. */
public enum ApiFault {
  /** 409 Conflict: someone else changed the object (a lease, a status). */
  CONFLICT(409, "Conflict"),
  /** 429 with {@code Retry-After: 1}: API priority and fairness throttling. */
  TOO_MANY_REQUESTS(429, "TooManyRequests"),
  /** 500: an internal error (etcd hiccup, webhook panic). */
  INTERNAL_ERROR(500, "InternalError"),
  /** 504: the request timed out in the API server. */
  GATEWAY_TIMEOUT(504, "Timeout"),
  /** The real answer, 4 s late. */
  SLOW(0, null);

  final int code;
  final String reason;

  ApiFault(int code, String reason) {
    this.code = code;
    this.reason = reason;
  }
}
