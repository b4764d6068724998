package io.kubewarden.networkenforcer.processor.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.common.policy.Backend;
import io.kubewarden.networkenforcer.processor.learning.LearnedAllowList;
import java.time.Instant;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class UnconvergedChangesTest {
  private static final Instant T0 = Instant.parse("2026-08-03T00:00:00Z");

  private static LearnedAllowList changedAt(Instant lastChange, boolean converged) {
    return new LearnedAllowList(
        Backend.kubernetes, null, new TreeMap<>(), false, lastChange, converged);
  }

  @Test
  void aSweepMustReadTheStoreOnlyOnceTheEarliestUnconvergedChangeIsQuietLongEnough() {
    UnconvergedChanges changes = new UnconvergedChanges();
    assertThat(changes.mayBeDue(T0)).as("nothing stored").isFalse();

    changes.stored(changedAt(T0.plusSeconds(60), false));
    changes.stored(changedAt(T0.plusSeconds(30), false));
    changes.stored(changedAt(T0.plusSeconds(90), false));
    // Converged allow-lists are not swept, however early their change.
    changes.stored(changedAt(T0.minusSeconds(3600), true));

    assertThat(changes.mayBeDue(T0.plusSeconds(29))).isFalse();
    assertThat(changes.mayBeDue(T0.plusSeconds(30)))
        .as("the sweep's own bound: not after")
        .isTrue();
    assertThat(changes.mayBeDue(T0.plusSeconds(31))).isTrue();
  }

  @Test
  void anAllowListWithoutALastChangeIsAlwaysDueAndClearStartsAnew() {
    UnconvergedChanges changes = new UnconvergedChanges();
    changes.stored(changedAt(T0, false));
    changes.stored(changedAt(null, false));
    assertThat(changes.mayBeDue(T0.minusSeconds(86_400))).isTrue();

    changes.clear();
    assertThat(changes.mayBeDue(T0)).isFalse();
    changes.stored(null);
    changes.stored(changedAt(null, true));
    assertThat(changes.mayBeDue(T0)).isFalse();
  }
}
