package io.kubewarden.networkenforcer.processor.learning;

import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.CLIENT;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.CLIENT_EGRESS;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.COREDNS;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.SERVER;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.forwarded;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.common.proposal.Convergence;
import io.kubewarden.networkenforcer.processor.config.LearningSettings;
import io.kubewarden.networkenforcer.processor.fixtures.ProcessorTestDriver;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * The Converged condition moves with flow time (simulated by the flows' own timestamps; the wall
 * clock only triggers the flush), resets on a new peer or port, and needs enough observations.
 */
class ConvergenceTest {
  private static final Instant DAY0 = Instant.parse("2026-08-03T00:00:00Z");

  /** Default quiet period (7 d), a small minimum so a few flows suffice. */
  private static final LearningSettings SETTINGS = new LearningSettings(null, null, null, 5);

  private static FlowRecord toServer(Instant t) {
    return forwarded(Provider.cilium, t, CLIENT, SERVER, Protocol.TCP, 18080, 1, Reporter.SOURCE);
  }

  private static Convergence convergence(ProcessorTestDriver driver) {
    return driver.latestProposals().get(CLIENT_EGRESS).convergence();
  }

  @Test
  void becomesTrueAfterTheQuietPeriodInFlowTimeAndResetsOnANewPeer() {
    try (var driver = ProcessorTestDriver.kubernetes(SETTINGS)) {
      // Day 0: the peer is new. Once a day for six days: still inside the quiet period.
      for (int day = 0; day < 7; day++) {
        driver.pipe(toServer(DAY0.plus(Duration.ofDays(day)))).flushEvidence();
      }
      Convergence c = convergence(driver);
      assertThat(c.converged()).isFalse();
      assertThat(c.reason()).isEqualTo("NewPeerOrPort");
      assertThat(c.since()).isEqualTo(DAY0);
      assertThat(c.message()).contains("converges at 2026-08-10T00:00:00Z");

      // Day 7: the quiet period has passed, with 8 observations (minimum 5).
      driver.pipe(toServer(DAY0.plus(Duration.ofDays(7)))).flushEvidence();
      c = convergence(driver);
      assertThat(c.converged()).isTrue();
      assertThat(c.reason()).isEqualTo("QuietPeriodPassed");
      assertThat(c.since()).isEqualTo(DAY0.plus(Duration.ofDays(7)));
      assertThat(c.message()).contains("over 8 observations").contains("a new peer or port");
      assertThat(c.toCondition().getStatus()).isEqualTo("True");
      assertThat(c.toCondition().getLastTransitionTime()).isEqualTo("2026-08-10T00:00:00Z");

      // Day 8: a new peer (coredns) resets it, from that flow's time.
      Instant day8 = DAY0.plus(Duration.ofDays(8));
      driver.pipe(
          forwarded(Provider.cilium, day8, CLIENT, COREDNS, Protocol.UDP, 53, 1, Reporter.SOURCE));
      c = convergence(driver);
      assertThat(c.converged()).isFalse();
      assertThat(c.reason()).isEqualTo("NewPeerOrPort");
      assertThat(c.since()).isEqualTo(day8);
    }
  }

  @Test
  void aFlowDatedInTheFutureDoesNotEndTheQuietPeriod() {
    try (var driver = ProcessorTestDriver.kubernetes(SETTINGS)) {
      for (int i = 0; i < 5; i++) {
        driver.pipe(toServer(DAY0.plusSeconds(i)));
      }
      // A node with its clock a year ahead: published on day 1, dated a year later.
      Instant published = DAY0.plus(Duration.ofDays(1));
      driver
          .pipePublishedAt(
              forwarded(
                  Provider.cilium,
                  DAY0.plus(Duration.ofDays(365)),
                  SERVER,
                  COREDNS,
                  Protocol.UDP,
                  53,
                  1,
                  Reporter.SOURCE),
              published)
          .flushEvidence();

      Convergence c = convergence(driver);
      assertThat(c.converged())
          .as("a year of flow time would have passed the quiet period")
          .isFalse();
      assertThat(c.message()).contains("converges at 2026-08-10T00:00:00Z");
      // One per target the flow reached: the server's egress and coredns's ingress.
      assertThat(
              driver
                  .meterRegistry()
                  .counter("network_enforcer.processor.observations.future.clamped")
                  .count())
          .isEqualTo(2);
      // Real time moves on: the quiet period ends in flow time, as before.
      driver.pipe(toServer(DAY0.plus(Duration.ofDays(7)))).flushEvidence();
      assertThat(convergence(driver).converged()).isTrue();
    }
  }

  @Test
  void aWorkloadThatFallsSilentConvergesAsOtherFlowsMoveTimeOn() {
    try (var driver = ProcessorTestDriver.kubernetes(SETTINGS)) {
      for (int i = 0; i < 5; i++) {
        driver.pipe(toServer(DAY0.plusSeconds(i)));
      }
      driver.flushEvidence();
      assertThat(convergence(driver).converged()).isFalse();
      driver.newProposals();

      // Only the server's own egress flows now (another target); eight days of them.
      for (int day = 1; day <= 8; day++) {
        driver
            .pipe(
                forwarded(
                    Provider.cilium,
                    DAY0.plus(Duration.ofDays(day)),
                    SERVER,
                    COREDNS,
                    Protocol.UDP,
                    53,
                    1,
                    Reporter.SOURCE))
            .flushEvidence();
      }
      Convergence c = convergence(driver);
      assertThat(c.converged()).isTrue();
      // The peer and port appeared at DAY0 (later flows repeated them): quiet since then.
      assertThat(c.since()).isEqualTo(DAY0.plus(Duration.ofDays(7)));
    }
  }

  @Test
  void staysFalseWithTooFewObservationsAndSaysSo() {
    try (var driver =
        ProcessorTestDriver.kubernetes(
            new LearningSettings(null, null, Duration.ofHours(1), 100))) {
      driver.pipe(toServer(DAY0), toServer(DAY0.plus(Duration.ofHours(2)))).flushEvidence();

      Convergence c = convergence(driver);
      assertThat(c.converged()).isFalse();
      assertThat(c.reason()).isEqualTo("TooFewObservations");
      assertThat(c.message()).contains("only 2 of the 100 observations");
    }
  }
}
