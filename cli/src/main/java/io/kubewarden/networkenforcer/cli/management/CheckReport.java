package io.kubewarden.networkenforcer.cli.management;

import java.util.List;

/**
 * The answer of a probe: every named check with its outcome, one per line, and 200 only when all
 * pass (503 otherwise, so the kubelet acts). A check that throws counts as failed.
 */
record CheckReport(int status, String body) {

  static CheckReport of(List<ManagementServer.Check> checks) {
    StringBuilder body = new StringBuilder();
    boolean all = true;
    for (ManagementServer.Check c : checks) {
      boolean ok;
      try {
        ok = c.ready().getAsBoolean();
      } catch (RuntimeException e) {
        ok = false;
      }
      all &= ok;
      body.append(c.name()).append(ok ? " ok" : " failing").append('\n');
    }
    return new CheckReport(all ? 200 : 503, body.toString());
  }

  /**
   * Readiness: as {@link #of}, but not ready before the service has registered a check. The
   * management port opens first, so that liveness answers while the rest starts; an empty list then
   * means "still starting", and a pod reported Ready at that moment would get traffic it cannot
   * serve.
   */
  static CheckReport readiness(List<ManagementServer.Check> checks) {
    return checks.isEmpty() ? new CheckReport(503, "starting\n") : of(checks);
  }
}
