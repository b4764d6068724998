package io.kubewarden.networkenforcer.processor.learning;

import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.forwarded;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.selector;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.common.policy.Labels;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.common.workload.WorkloadKind;
import io.kubewarden.networkenforcer.processor.fixtures.ProcessorTestDriver;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A Job without a CronJob that opted in with stable labels of its own (the ingest resolves it to a
 * name and a selector, no workload kind) is a peer: the database learns one rule for every run, the
 * Job gets no proposal of its own.
 */
class StandaloneJobPeerLearningTest {
  private static final Map<String, String> STABLE =
      Map.of("app.kubernetes.io/name", "db-migrate", Labels.JOB_PEER, "db-migrate");
  private static final FlowEndpoint DB =
      FlowEndpoint.builder()
          .namespace("shop")
          .workload(WorkloadKind.StatefulSet, "db")
          .workloadSelector(selector(Map.of("app", "db")))
          .podLabels(Map.of("app", "db"))
          .podName("db-0")
          .ip("10.1.0.10")
          .serviceAccount("db-sa")
          .build();

  /**
   * One run's pod as the ingest resolves it: no kind, the opt-in's name, the stable labels as
   * selector.
   */
  private static FlowEndpoint run(String job, String pod, String ip) {
    Map<String, String> labels = new HashMap<>(STABLE);
    labels.put("job-name", job);
    labels.put("controller-uid", job + "-uid");
    labels.put("batch.kubernetes.io/job-name", job);
    labels.put("batch.kubernetes.io/controller-uid", job + "-uid");
    return FlowEndpoint.builder()
        .namespace("shop")
        .workload(null, "db-migrate")
        .workloadSelector(selector(STABLE))
        .podLabels(labels)
        .podName(pod)
        .ip(ip)
        .serviceAccount("default")
        .build();
  }

  @Test
  void twoRunsOfAnOptedInJobAreOnePeerAndTheJobHasNoProposal() {
    try (var driver = ProcessorTestDriver.kubernetes()) {
      driver
          .pipe(
              forwarded(
                  Provider.cilium,
                  Instant.parse("2026-08-03T10:00:05Z"),
                  run("db-migrate", "db-migrate-x7k2p", "10.1.0.31"),
                  DB,
                  Protocol.TCP,
                  5432,
                  1,
                  Reporter.DESTINATION),
              forwarded(
                  Provider.cilium,
                  Instant.parse("2026-08-10T10:00:07Z"),
                  run("db-migrate", "db-migrate-q2w4z", "10.1.0.32"),
                  DB,
                  Protocol.TCP,
                  5432,
                  1,
                  Reporter.DESTINATION))
          .flushEvidence();

      Map<String, ProposalSnapshot> proposals = driver.latestProposals();
      assertThat(proposals).containsOnlyKeys("shop/StatefulSet/db/Ingress");
      ProposalSnapshot dbIngress = proposals.get("shop/StatefulSet/db/Ingress");
      var rules = dbIngress.spec().getKubernetes().getIngress();
      assertThat(rules).hasSize(1);
      assertThat(rules.get(0).getFrom().get(0).getPodSelector().getMatchLabels()).isEqualTo(STABLE);
      assertThat(dbIngress.evidence())
          .singleElement()
          .satisfies(
              e -> {
                assertThat(e.getPeer()).isEqualTo("shop/Job/db-migrate");
                assertThat(e.getCount()).isEqualTo(2);
              });
      assertThat(dbIngress.inferredWorkloads()).isEmpty();
    }
  }
}
