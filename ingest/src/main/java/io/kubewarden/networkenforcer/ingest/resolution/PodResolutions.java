package io.kubewarden.networkenforcer.ingest.resolution;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * What each pod resolved to, reused while the cluster view is unchanged: every flow of a pod needs
 * the same endpoint (owner chain, selector, labels, named ports), and building it is most of the
 * cost of a flow. A result is used only for the same pod object under the same view version (read
 * before resolving), so it is never older than the view it is used with. Bounded: past {@link
 * #CAPACITY} pods it starts over.
 */
final class PodResolutions {
  static final int CAPACITY = 100_000;

  /** The pod object itself is the key: an updated pod is a new object. */
  private record PodKey(Pod pod) {
    @Override
    public boolean equals(Object o) {
      return o instanceof PodKey other && other.pod == pod;
    }

    @Override
    public int hashCode() {
      return System.identityHashCode(pod);
    }
  }

  /** A result and the view version it was resolved under. */
  private record Resolved(long viewVersion, Resolution resolution) {}

  private final Map<PodKey, Resolved> resolutions = new ConcurrentHashMap<>();
  private volatile long version = Long.MIN_VALUE;

  /**
   * @param viewVersion the view's version read before resolving (negative: do not reuse)
   */
  Resolution resolve(Pod pod, long viewVersion, Function<Pod, Resolution> resolver) {
    if (viewVersion < 0) {
      return resolver.apply(pod);
    }
    if (viewVersion != version) {
      // Results of older versions can never be used again: free them.
      version = viewVersion;
      resolutions.clear();
    }
    PodKey key = new PodKey(pod);
    Resolved cached = resolutions.get(key);
    if (cached != null && cached.viewVersion() == viewVersion) {
      return cached.resolution();
    }
    Resolution resolved = resolver.apply(pod);
    if (resolutions.size() >= CAPACITY) {
      resolutions.clear();
    }
    resolutions.put(key, new Resolved(viewVersion, resolved));
    return resolved;
  }
}
