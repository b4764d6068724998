package io.kubewarden.networkenforcer.writer.status;

import io.kubewarden.networkenforcer.common.crd.ViolationRecord;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyStatus;
import io.kubewarden.networkenforcer.common.policy.Mode;
import io.kubewarden.networkenforcer.common.violation.ViolationObservation;
import io.kubewarden.networkenforcer.writer.Fixtures;
import io.kubewarden.networkenforcer.writer.observations.SourcedObservation;
import java.time.Instant;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.IntStream;

/**
 * Prints how long one status merge takes for a full policy (100 records) and a burst of
 * observations, with clearing by the real evaluator. Run: {@code java -cp <test classpath>
 * io.kubewarden.networkenforcer.writer.status.StatusMergeBenchmark}.
 */
public final class StatusMergeBenchmark {
  private StatusMergeBenchmark() {}

  public static void main(String[] args) {
    Instant t = Instant.parse("2026-03-01T10:00:00Z");
    StatusMerger merger = new StatusMerger();
    Predicate<ViolationRecord> allowed =
        args.length > 0
            ? r -> false
            : SpecAllowance.of(Fixtures.wnp("api", "web", Mode.monitor).getSpec());
    WorkloadNetworkPolicyStatus full =
        merger
            .merge(
                new StatusMerger.Input(
                    null,
                    1L,
                    SourcedObservation.unsourced(
                        IntStream.range(0, 150)
                            .mapToObj(
                                i -> Fixtures.violation("api", "w" + i, 9000 + i, t.plusSeconds(i)))
                            .toList()),
                    allowed,
                    null,
                    null,
                    t))
            .status();
    for (int burst : new int[] {10, 100, 1000}) {
      // Half repeats of live records, half new peers: the realistic mix of a busy interval.
      List<ViolationObservation> obs =
          IntStream.range(0, burst)
              .mapToObj(
                  i ->
                      i % 2 == 0
                          ? Fixtures.violation(
                              "api", "w" + (100 + i % 50), 9100 + i % 50, t.plusSeconds(1000 + i))
                          : Fixtures.violation("api", "new" + i, 7000, t.plusSeconds(1000 + i)))
              .toList();
      int rounds = 2000;
      for (int i = 0; i < rounds / 4; i++) {
        merger.merge(
            new StatusMerger.Input(
                full, 1L, SourcedObservation.unsourced(obs), allowed, null, null, t));
      }
      long start = System.nanoTime();
      for (int i = 0; i < rounds; i++) {
        merger.merge(
            new StatusMerger.Input(
                full, 1L, SourcedObservation.unsourced(obs), allowed, null, null, t));
      }
      double micros = (System.nanoTime() - start) / 1000.0 / rounds;
      System.out.printf(
          "merge of %4d observations into a 100-record status: %8.1f us per merge, %,10.0f observations/s%n",
          burst, micros, burst / micros * 1_000_000);
    }
  }
}
