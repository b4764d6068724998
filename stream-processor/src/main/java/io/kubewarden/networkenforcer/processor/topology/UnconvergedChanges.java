package io.kubewarden.networkenforcer.processor.topology;

import io.kubewarden.networkenforcer.processor.learning.LearnedAllowList;
import java.time.Instant;

/**
 * How early the last change of an allow-list not yet converged can be: a lower bound, so that a
 * convergence sweep that cannot find an allow-list whose quiet period has ended does not read the
 * whole store. Until the first quiet period has passed none can, yet a sweep came every hundredth
 * of it in flow time: a replay of a week of history read a store of 100,000 allow-lists a hundred
 * times for nothing, and {@code learn} read every allow-list of the capture once at its end.
 *
 * <p>Exact after a read of the whole store; it only moves earlier as allow-lists are stored, so a
 * due allow-list is never skipped. The processor is its store's only writer, so every write passes
 * through {@link #stored}.
 */
final class UnconvergedChanges {
  private Instant earliest;

  /**
   * An allow-list not converged and without a last change (written before convergence existed):
   * always due.
   */
  private boolean withoutChange;

  void clear() {
    earliest = null;
    withoutChange = false;
  }

  void stored(LearnedAllowList state) {
    if (state == null || state.converged()) {
      return;
    }
    Instant change = state.lastChange();
    if (change == null) {
      withoutChange = true;
    } else if (earliest == null || change.isBefore(earliest)) {
      earliest = change;
    }
  }

  /**
   * Whether an allow-list may have changed last at or before {@code quietSince}: the sweep must
   * read the store.
   */
  boolean mayBeDue(Instant quietSince) {
    return withoutChange || earliest != null && !earliest.isAfter(quietSince);
  }
}
