package io.kubewarden.networkenforcer.processor.learning;

import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.forwarded;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.selector;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.common.workload.WorkloadKind;
import io.kubewarden.networkenforcer.processor.fixtures.ProcessorTestDriver;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A CronJob is a workload: its runs are one peer of the database and it has its own egress
 * proposal.
 */
class CronJobLearningTest {
  private static final Map<String, String> TEMPLATE_LABELS = Map.of("app", "backup");
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
   * One run's pod as the ingest resolves it: the CronJob, its template labels, the run's own
   * labels.
   */
  private static FlowEndpoint run(String job, String pod, String ip) {
    Map<String, String> labels = new HashMap<>(TEMPLATE_LABELS);
    labels.put("job-name", job);
    labels.put("controller-uid", job + "-uid");
    labels.put("batch.kubernetes.io/job-name", job);
    return FlowEndpoint.builder()
        .namespace("shop")
        .workload(WorkloadKind.CronJob, "backup")
        .workloadSelector(selector(TEMPLATE_LABELS))
        .podLabels(labels)
        .podName(pod)
        .ip(ip)
        .serviceAccount("backup-sa")
        .build();
  }

  @Test
  void twoSuccessiveRunsGiveOneRuleAndTheCronJobItsOwnEgressProposal() {
    try (var driver = ProcessorTestDriver.kubernetes()) {
      Instant night1 = Instant.parse("2026-08-03T02:00:05Z");
      Instant night2 = Instant.parse("2026-08-04T02:00:07Z");
      driver
          .pipe(
              forwarded(
                  Provider.cilium,
                  night1,
                  run("backup-29000000", "backup-29000000-abcde", "10.1.0.21"),
                  DB,
                  Protocol.TCP,
                  5432,
                  1,
                  Reporter.DESTINATION),
              forwarded(
                  Provider.cilium,
                  night2,
                  run("backup-29001440", "backup-29001440-fghij", "10.1.0.22"),
                  DB,
                  Protocol.TCP,
                  5432,
                  1,
                  Reporter.DESTINATION))
          .flushEvidence();

      Map<String, ProposalSnapshot> proposals = driver.latestProposals();
      assertThat(proposals)
          .containsOnlyKeys("shop/StatefulSet/db/Ingress", "shop/CronJob/backup/Egress");

      ProposalSnapshot dbIngress = proposals.get("shop/StatefulSet/db/Ingress");
      var rules = dbIngress.spec().getKubernetes().getIngress();
      assertThat(rules).hasSize(1);
      assertThat(rules.get(0).getFrom().get(0).getPodSelector().getMatchLabels())
          .isEqualTo(TEMPLATE_LABELS);
      assertThat(dbIngress.evidence()).hasSize(1);
      assertThat(dbIngress.evidence().get(0).getPeer()).isEqualTo("shop/CronJob/backup");
      assertThat(dbIngress.evidence().get(0).getCount()).isEqualTo(2);

      ProposalSnapshot backupEgress = proposals.get("shop/CronJob/backup/Egress");
      assertThat(backupEgress.name()).isEqualTo("cronjob-backup-egress");
      assertThat(backupEgress.spec().getTargetRef().getKind()).isEqualTo(WorkloadKind.CronJob);
      assertThat(backupEgress.spec().getKubernetes().getPodSelector().getMatchLabels())
          .isEqualTo(TEMPLATE_LABELS);
      assertThat(backupEgress.spec().getKubernetes().getEgress()).hasSize(1);
    }
  }
}
