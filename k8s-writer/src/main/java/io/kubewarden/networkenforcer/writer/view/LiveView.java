package io.kubewarden.networkenforcer.writer.view;

import io.kubewarden.networkenforcer.common.report.HtmlReport;
import io.kubewarden.networkenforcer.writer.cache.ClusterCache;
import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The writer's read-only live view: the report page of {@code learn --report}, drawn from the
 * leader's informer caches at each request. A page view reads memory only, never the API server;
 * the page carries {@code kubectl} commands to copy and no action of its own.
 */
public final class LiveView {
  /** Where the management server serves it. */
  public static final String PATH = "/view";

  private final Supplier<Optional<ClusterCache>> cache;
  private final String identity;
  private final String leaseNamespace;
  private final String leaseName;
  private final Clock clock;

  /** A rendered page, or why there is none (503 on a standby or while the caches sync). */
  public record Page(int status, String contentType, String body) {}

  /**
   * @param cache the leader's caches; empty on a standby
   * @param identity this replica's name, shown on the page
   * @param leaseNamespace and {@code leaseName}: the Lease a standby names to find the leader by
   */
  public LiveView(
      Supplier<Optional<ClusterCache>> cache,
      String identity,
      String leaseNamespace,
      String leaseName,
      Clock clock) {
    this.cache = cache;
    this.identity = identity;
    this.leaseNamespace = leaseNamespace;
    this.leaseName = leaseName;
    this.clock = clock;
  }

  public Page render() {
    Optional<ClusterCache> current = cache.get();
    if (current.isEmpty()) {
      return new Page(
          503,
          "text/plain; charset=utf-8",
          "writer "
              + identity
              + " is not the leader (or its caches "
              + "are still syncing): only the leader holds the cluster's proposals and policies. Reload in a few "
              + "seconds; with several writer replicas, reach the pod that holds the Lease:\n"
              + "  kubectl -n "
              + leaseNamespace
              + " get lease "
              + leaseName
              + " -o jsonpath='{.spec.holderIdentity}'\n"
              + "  kubectl -n "
              + leaseNamespace
              + " port-forward pod/<that pod> 8080:<management port>\n");
    }
    return new Page(
        200,
        "text/html; charset=utf-8",
        HtmlReport.render(
            LiveViewModel.build(
                current.get(),
                "cluster, from the caches of writer " + identity,
                clock.instant().truncatedTo(ChronoUnit.SECONDS))));
  }
}
