package io.kubewarden.networkenforcer.processor.learning;

import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.CLIENT;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.CLIENT_EGRESS;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.COREDNS;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.SERVER;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.SERVER_EGRESS;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.SERVER_INGRESS;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.forwarded;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.common.policy.Mode;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.processor.fixtures.Policies;
import io.kubewarden.networkenforcer.processor.fixtures.ProcessorTestDriver;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The learning gate: a policy stops learning; deleting it or resetting starts afresh. */
class LearningGateTest {

  private static FlowRecord clientToServer(int port, int secondsLater) {
    return forwarded(
        Provider.calico,
        ProcessorTestDriver.START.plusSeconds(secondsLater),
        CLIENT,
        SERVER,
        Protocol.TCP,
        port,
        1,
        Reporter.SOURCE);
  }

  @Test
  void aPolicyStopsLearningForItsTargetOnly() {
    try (var driver = ProcessorTestDriver.kubernetes()) {
      driver.pipe(clientToServer(8080, 0));
      ProposalSnapshot learned = driver.latestProposals().get(SERVER_INGRESS);
      driver.policy(Policies.promoted(learned, Mode.protect));
      driver.newProposals();

      driver.pipe(clientToServer(9090, 1)).flushEvidence();

      // The client's egress still learns; the server's ingress has a policy and does not.
      assertThat(driver.newProposals()).extracting(kv -> kv.key).containsOnly(CLIENT_EGRESS);
      assertThat(driver.metrics().count("violations")).isZero();
    }
  }

  @Test
  void aPolicyDeletedThenRelearnedStartsFromAnEmptyAllowList() {
    try (var driver = ProcessorTestDriver.kubernetes()) {
      driver.pipe(clientToServer(8080, 0));
      driver.policy(Policies.promoted(driver.latestProposals().get(SERVER_INGRESS), Mode.monitor));
      driver.deletePolicy(SERVER_INGRESS);
      driver.newProposals();

      driver.pipe(clientToServer(9090, 5));

      ProposalSnapshot relearned =
          driver.newProposals().stream()
              .filter(kv -> kv.key.equals(SERVER_INGRESS))
              .findFirst()
              .orElseThrow()
              .value;
      assertThat(relearned.spec().getKubernetes().getIngress()).hasSize(1);
      assertThat(relearned.spec().getKubernetes().getIngress().get(0).getPorts())
          .extracting(p -> p.getPort().getIntVal())
          .containsExactly(9090);
      assertThat(relearned.evidence().get(0).getPorts().get(0).getFirstSeen())
          .isEqualTo(ProcessorTestDriver.START.plusSeconds(5).toString());
    }
  }

  @Test
  void bothDirectionsOfOneWorkloadPromotedStopLearningForBoth() {
    try (var driver = ProcessorTestDriver.kubernetes()) {
      driver.pipe(
          clientToServer(8080, 0),
          forwarded(
              Provider.calico,
              ProcessorTestDriver.START,
              SERVER,
              COREDNS,
              Protocol.UDP,
              53,
              1,
              Reporter.SOURCE));
      var learned = driver.latestProposals();
      driver.policy(Policies.promoted(learned.get(SERVER_INGRESS), Mode.protect));
      driver.policy(Policies.promoted(learned.get(SERVER_EGRESS), Mode.protect));
      driver.newProposals();

      driver
          .pipe(
              clientToServer(9999, 10),
              forwarded(
                  Provider.calico,
                  ProcessorTestDriver.START.plusSeconds(10),
                  SERVER,
                  COREDNS,
                  Protocol.TCP,
                  53,
                  1,
                  Reporter.SOURCE))
          .flushEvidence();

      assertThat(driver.newProposals())
          .extracting(kv -> kv.key)
          .doesNotContain(SERVER_INGRESS, SERVER_EGRESS)
          .contains(CLIENT_EGRESS);
    }
  }

  @Test
  void policyUpsertClearsLearnedStateSoNoEvidenceIsFlushedForIt() {
    try (var driver = ProcessorTestDriver.kubernetes()) {
      // Piped apart, so the combiner does not fold them: the second one leaves evidence to flush.
      driver.pipe(clientToServer(8080, 0)).pipe(clientToServer(8080, 1));
      driver.policy(Policies.promoted(driver.latestProposals().get(SERVER_INGRESS), Mode.protect));
      driver.newProposals();

      driver.flushEvidence();

      assertThat(driver.newProposals()).extracting(kv -> kv.key).containsOnly(CLIENT_EGRESS);
    }
  }

  @Test
  void resetLearningTombstonesTheProposalAndTheNextFlowStartsAfresh() {
    try (var driver = ProcessorTestDriver.kubernetes()) {
      driver.pipe(clientToServer(8080, 0), clientToServer(8081, 1));
      driver.newProposals();

      driver.resetLearning(SERVER_INGRESS);
      var afterReset = driver.newProposals();
      assertThat(afterReset).hasSize(1);
      assertThat(afterReset.get(0).key).isEqualTo(SERVER_INGRESS);
      assertThat(afterReset.get(0).value).as("tombstone").isNull();
      assertThat(driver.latestProposals()).doesNotContainKey(SERVER_INGRESS);

      driver.pipe(clientToServer(8082, 2));
      ProposalSnapshot fresh = driver.latestProposals().get(SERVER_INGRESS);
      assertThat(fresh.spec().getKubernetes().getIngress().get(0).getPorts())
          .extracting(p -> p.getPort().getIntVal())
          .containsExactly(8082);
      assertThat(fresh.updatedAt()).isEqualTo(Instant.parse("2026-08-03T15:40:02Z"));
      assertThat(driver.metrics().count("proposals.reset")).isEqualTo(1);
    }
  }
}
