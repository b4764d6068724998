package io.kubewarden.networkenforcer.common.http;

/**
 * Decides whether a request to a guarded HTTP path is served: who sent it (authentication) and
 * whether they may (authorization). Probes are never guarded; {@code /metrics}, the live view,
 * {@code /caughtup} and the flow dumper are.
 */
@FunctionalInterface
public interface AccessCheck {

  /**
   * @param authorization the {@code Authorization} header, null when absent
   * @param path the request path, e.g. {@code /metrics}
   * @param method the HTTP method
   */
  Verdict check(String authorization, String path, String method);

  /** The answer: 200 serves the request; 401 (who are you?), 403 (not you) or 503 refuse it. */
  record Verdict(int status, String reason) {
    public static final Verdict ALLOWED = new Verdict(200, "allowed");

    public boolean allowed() {
      return status == 200;
    }
  }

  /** Serves everyone: only for a port nobody else reaches (a local run); the operator chose it. */
  static AccessCheck open() {
    return (authorization, path, method) -> Verdict.ALLOWED;
  }
}
