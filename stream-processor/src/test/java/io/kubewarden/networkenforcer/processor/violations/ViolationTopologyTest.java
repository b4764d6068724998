package io.kubewarden.networkenforcer.processor.violations;

import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.CLIENT;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.CLIENT_EGRESS;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.SERVER;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.SERVER_INGRESS;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.forwarded;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.common.crd.IstioPolicy;
import io.kubewarden.networkenforcer.common.crd.ViolationEndpoint;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.PolicyRef;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.common.flow.Verdict;
import io.kubewarden.networkenforcer.common.policy.Backend;
import io.kubewarden.networkenforcer.common.policy.Direction;
import io.kubewarden.networkenforcer.common.policy.Mode;
import io.kubewarden.networkenforcer.common.violation.ViolationObservation;
import io.kubewarden.networkenforcer.processor.fixtures.BasicFixture;
import io.kubewarden.networkenforcer.processor.fixtures.Policies;
import io.kubewarden.networkenforcer.processor.fixtures.ProcessorTestDriver;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.KeyValue;
import org.junit.jupiter.api.Test;

/** Violations: data-plane denies, monitor-mode evaluation, attribution by the enforcing side. */
class ViolationTopologyTest {
  private static final Instant T = ProcessorTestDriver.START.plusSeconds(30);

  private static FlowRecord deny(
      Provider provider, Verdict verdict, Reporter reporter, int port, PolicyRef named) {
    return new FlowRecord(
        T, provider, Protocol.TCP, port, CLIENT, SERVER, verdict, named, 2, reporter);
  }

  /** Learns client -> server:8080 and promotes both ends in the given mode. */
  private static void learnAndPromote(ProcessorTestDriver driver, Mode mode) {
    driver.pipe(
        forwarded(
            Provider.calico,
            ProcessorTestDriver.START,
            CLIENT,
            SERVER,
            Protocol.TCP,
            8080,
            1,
            Reporter.SOURCE));
    var learned = driver.latestProposals();
    driver.policy(Policies.promoted(learned.get(CLIENT_EGRESS), mode));
    driver.policy(Policies.promoted(learned.get(SERVER_INGRESS), mode));
  }

  @Test
  void aDropReportedAtTheSourceIsAProtectViolationOfTheSourceEgressPolicyWithEveryField() {
    try (var driver = ProcessorTestDriver.kubernetes()) {
      learnAndPromote(driver, Mode.protect);

      driver.pipe(
          deny(
              Provider.calico,
              Verdict.DENIED,
              Reporter.SOURCE,
              9999,
              new PolicyRef("NetworkPolicy", "demo", "deployment-http-client-egress")));

      List<KeyValue<String, ViolationObservation>> violations = driver.newViolations();
      assertThat(violations).hasSize(1);
      assertThat(violations.get(0).key).isEqualTo("demo/deployment-http-client-egress");
      ViolationObservation v = violations.get(0).value;
      assertThat(v.policyNamespace()).isEqualTo("demo");
      assertThat(v.policyName()).isEqualTo("deployment-http-client-egress");
      assertThat(v.timestamp()).isEqualTo(T);
      assertThat(v.source())
          .isEqualTo(
              new ViolationEndpoint(
                  "demo",
                  "Deployment",
                  "http-client",
                  "cluster.local/ns/demo/sa/http-client-sa",
                  BasicFixture.selector(Map.of("app", "http-client"))));
      assertThat(v.dest())
          .isEqualTo(
              new ViolationEndpoint(
                  "demo",
                  "Deployment",
                  "http-server",
                  "cluster.local/ns/demo/sa/http-server-sa",
                  BasicFixture.selector(Map.of("app", "http-server"))));
      assertThat(v.protocol()).isEqualTo(Protocol.TCP);
      assertThat(v.dstPort()).isEqualTo(9999);
      assertThat(v.action()).isEqualTo(Mode.protect);
      assertThat(v.denyingPolicyNamespace()).isEqualTo("demo");
      assertThat(v.denyingPolicyName()).isEqualTo("deployment-http-client-egress");
      assertThat(v.provider()).isEqualTo(Provider.calico);
      assertThat(v.backend()).isEqualTo(Backend.kubernetes);
      assertThat(v.direction()).isEqualTo(Direction.Egress);
      assertThat(v.count()).isEqualTo(2);
      assertThat(driver.metrics().count("violations", "action", "protect")).isEqualTo(1);
    }
  }

  @Test
  void aDropReportedAtTheDestinationBelongsToTheDestinationIngressPolicy() {
    try (var driver = ProcessorTestDriver.kubernetes()) {
      learnAndPromote(driver, Mode.protect);

      driver.pipe(deny(Provider.cilium, Verdict.DENIED, Reporter.DESTINATION, 9999, null));

      List<KeyValue<String, ViolationObservation>> violations = driver.newViolations();
      assertThat(violations)
          .extracting(kv -> kv.key)
          .containsExactly("demo/deployment-http-server-ingress");
      ViolationObservation v = violations.get(0).value;
      assertThat(v.direction()).isEqualTo(Direction.Ingress);
      // No policy named by the data plane: the WNP itself is the denying policy.
      assertThat(v.denyingPolicyName()).isEqualTo("deployment-http-server-ingress");
      assertThat(v.denyingPolicyNamespace()).isEqualTo("demo");
    }
  }

  @Test
  void aJobPeerDeniedAtTheDestinationIsNamedAsAJob() {
    // A Job without a CronJob that opted in as a peer: a name and a selector, no workload kind.
    FlowEndpoint job =
        new FlowEndpoint.Builder()
            .namespace("demo")
            .workload(null, "db-migrate")
            .workloadSelector(
                BasicFixture.selector(
                    Map.of(
                        "app",
                        "db-migrate",
                        "networkenforcer.kubewarden.io/job-peer",
                        "db-migrate")))
            .podLabels(
                Map.of("app", "db-migrate", "networkenforcer.kubewarden.io/job-peer", "db-migrate"))
            .podName("db-migrate-x7k2p")
            .ip("10.244.2.77")
            .build();
    try (var driver = ProcessorTestDriver.kubernetes()) {
      learnAndPromote(driver, Mode.protect);

      driver.pipe(
          new FlowRecord(
              T,
              Provider.cilium,
              Protocol.TCP,
              8080,
              job,
              SERVER,
              Verdict.DENIED,
              null,
              1,
              Reporter.DESTINATION));

      List<KeyValue<String, ViolationObservation>> violations = driver.newViolations();
      assertThat(violations)
          .extracting(kv -> kv.key)
          .containsExactly("demo/deployment-http-server-ingress");
      ViolationObservation v = violations.get(0).value;
      assertThat(v.source().getOwnerKind()).isEqualTo("Job");
      assertThat(v.source().getOwnerName()).isEqualTo("db-migrate");
      assertThat(v.dest().getOwnerKind()).isEqualTo("Deployment");
    }
  }

  @Test
  void aTargetWithoutAPolicyHasNoViolationAndTheDenyIsCounted() {
    try (var driver = ProcessorTestDriver.kubernetes()) {
      driver.pipe(deny(Provider.calico, Verdict.DENIED, Reporter.SOURCE, 9999, null));

      assertThat(driver.newViolations()).isEmpty();
      assertThat(driver.latestProposals()).as("denies are not learned").isEmpty();
      assertThat(driver.metrics().count("denies.unattributed", "reason", "target-has-no-policy"))
          .isEqualTo(1);
    }
  }

  @Test
  void unknownReporterGoesToTheDestinationIngressWhenItHasAPolicy() {
    try (var driver = ProcessorTestDriver.kubernetes()) {
      learnAndPromote(driver, Mode.protect);

      driver.pipe(deny(Provider.cilium, Verdict.DENIED, Reporter.UNKNOWN, 9999, null));

      assertThat(driver.newViolations())
          .extracting(kv -> kv.key)
          .containsExactly("demo/deployment-http-server-ingress");
      assertThat(driver.metrics().count("denies.reattributed")).isZero();
    }
  }

  @Test
  void unknownReporterFallsBackToTheSourceEgressWhenTheDestinationHasNoPolicy() {
    try (var driver = ProcessorTestDriver.kubernetes()) {
      driver.pipe(
          forwarded(
              Provider.calico,
              ProcessorTestDriver.START,
              CLIENT,
              SERVER,
              Protocol.TCP,
              8080,
              1,
              Reporter.SOURCE));
      driver.policy(Policies.promoted(driver.latestProposals().get(CLIENT_EGRESS), Mode.protect));

      driver.pipe(deny(Provider.cilium, Verdict.DENIED, Reporter.UNKNOWN, 9999, null));

      List<KeyValue<String, ViolationObservation>> violations = driver.newViolations();
      assertThat(violations)
          .extracting(kv -> kv.key)
          .containsExactly("demo/deployment-http-client-egress");
      assertThat(violations.get(0).value.direction()).isEqualTo(Direction.Egress);
      assertThat(driver.metrics().count("denies.reattributed")).isEqualTo(1);
    }
  }

  @Test
  void unknownReporterWithoutAnyPolicyIsCountedAsUnattributed() {
    try (var driver = ProcessorTestDriver.kubernetes()) {
      driver.pipe(deny(Provider.cilium, Verdict.DENIED, Reporter.UNKNOWN, 9999, null));

      assertThat(driver.newViolations()).isEmpty();
      assertThat(driver.metrics().count("denies.unattributed")).isEqualTo(1);
    }
  }

  @Test
  void aForwardedFlowInProtectModeIsNoViolation() {
    try (var driver = ProcessorTestDriver.kubernetes()) {
      learnAndPromote(driver, Mode.protect);

      driver.pipe(
          forwarded(Provider.calico, T, CLIENT, SERVER, Protocol.TCP, 9999, 1, Reporter.SOURCE));

      assertThat(driver.newViolations()).isEmpty();
    }
  }

  @Test
  void kubernetesMonitorModeEvaluatesForwardedFlowsAgainstThePolicy() {
    try (var driver = ProcessorTestDriver.kubernetes()) {
      learnAndPromote(driver, Mode.monitor);

      driver.pipe(
          forwarded(Provider.calico, T, CLIENT, SERVER, Protocol.TCP, 8080, 1, Reporter.SOURCE));
      assertThat(driver.newViolations()).as("allowed by both policies").isEmpty();

      driver.pipe(
          forwarded(Provider.calico, T, CLIENT, SERVER, Protocol.TCP, 9999, 1, Reporter.SOURCE));
      List<KeyValue<String, ViolationObservation>> violations = driver.newViolations();
      assertThat(violations)
          .extracting(kv -> kv.key)
          .containsExactlyInAnyOrder(
              "demo/deployment-http-client-egress", "demo/deployment-http-server-ingress");
      assertThat(violations)
          .allSatisfy(
              kv -> {
                assertThat(kv.value.action()).isEqualTo(Mode.monitor);
                assertThat(kv.value.dstPort()).isEqualTo(9999);
                assertThat(kv.value.denyingPolicyName()).isEqualTo(kv.value.policyName());
              });
      assertThat(driver.metrics().count("violations", "action", "monitor")).isEqualTo(2);
    }
  }

  @Test
  void kubernetesMonitorModeCountsAnUnknownPortAsUndeterminedNotAsAViolation() {
    try (var driver = ProcessorTestDriver.kubernetes()) {
      learnAndPromote(driver, Mode.monitor);

      driver.pipe(
          forwarded(Provider.calico, T, CLIENT, SERVER, Protocol.TCP, 0, 1, Reporter.SOURCE));

      assertThat(driver.newViolations()).isEmpty();
      assertThat(driver.metrics().count("evaluations.undetermined")).isEqualTo(2);
    }
  }

  @Test
  void istioDryRunDenyIsAMonitorViolationWithPortZeroAndIdentities() {
    FlowEndpoint intruder =
        BasicFixture.endpoint(
            "demo",
            "intruder",
            Map.of("app", "intruder"),
            "intruder-7f7f7f7f7f-abcde",
            "10.244.2.50",
            "intruder-sa");
    try (var driver = ProcessorTestDriver.istio()) {
      driver.pipe(BasicFixture.ztunnelFlows());
      driver.policy(Policies.promoted(driver.latestProposals().get(SERVER_INGRESS), Mode.monitor));

      driver.pipe(
          new FlowRecord(
              T,
              Provider.istio,
              Protocol.TCP,
              18080,
              intruder,
              SERVER,
              Verdict.DRY_RUN_DENIED,
              null,
              1,
              Reporter.DESTINATION));

      List<KeyValue<String, ViolationObservation>> violations = driver.newViolations();
      assertThat(violations)
          .extracting(kv -> kv.key)
          .containsExactly("demo/deployment-http-server-ingress");
      ViolationObservation v = violations.get(0).value;
      assertThat(v.action()).isEqualTo(Mode.monitor);
      assertThat(v.dstPort()).as("ztunnel's policy log has no port").isZero();
      assertThat(v.backend()).isEqualTo(Backend.istio);
      assertThat(v.provider()).isEqualTo(Provider.istio);
      assertThat(v.source().getIdentity())
          .as("the contract's prefix-free principal")
          .isEqualTo("cluster.local/ns/demo/sa/intruder-sa");
      assertThat(v.dest().getIdentity()).startsWith("cluster.local/ns/demo/sa/");
      assertThat(v.dest().getOwnerName()).isEqualTo("http-server");
    }
  }

  @Test
  void istioMonitorModeReportsOnlyZtunnelDenies() {
    FlowEndpoint intruder =
        BasicFixture.endpoint(
            "demo",
            "intruder",
            Map.of("app", "intruder"),
            "intruder-7f7f7f7f7f-abcde",
            "10.244.2.50",
            "intruder-sa");
    try (var driver = ProcessorTestDriver.istio()) {
      driver.policy(
          Policies.istio(
              SERVER_INGRESS,
              Mode.monitor,
              new IstioPolicy(
                  BasicFixture.selector(Map.of("app", "http-server")),
                  List.of(
                      IstioPolicy.Rule.of(
                          List.of("cluster.local/ns/demo/sa/http-client-sa"), List.of("18080"))))));

      // ztunnel forwarded it (dry-run) and logged no deny: nothing to report, nothing learned.
      driver.pipe(
          forwarded(
              Provider.istio, T, intruder, SERVER, Protocol.TCP, 18080, 1, Reporter.DESTINATION));
      assertThat(driver.newViolations()).isEmpty();
      assertThat(driver.latestProposals()).isEmpty();

      driver.pipe(
          new FlowRecord(
              T,
              Provider.istio,
              Protocol.TCP,
              18080,
              intruder,
              SERVER,
              Verdict.DENIED,
              null,
              1,
              Reporter.DESTINATION));
      assertThat(driver.newViolations())
          .extracting(kv -> kv.value.action())
          .containsExactly(Mode.protect);
    }
  }

  @Test
  void combinedRepeatsOfOneDenyStandForEveryFlowRecordSoCountsStayExact() {
    try (var driver = ProcessorTestDriver.kubernetes()) {
      learnAndPromote(driver, Mode.protect);

      // Seven flow records of one drop (each an aggregate of 2 connections) within one combine
      // interval, plus three of another port: the combiner folds each kind into one observation.
      List<FlowRecord> drops = new ArrayList<>();
      for (int i = 0; i < 7; i++) {
        drops.add(
            new FlowRecord(
                T.plusSeconds(i),
                Provider.calico,
                Protocol.TCP,
                9999,
                CLIENT,
                SERVER,
                Verdict.DENIED,
                null,
                2,
                Reporter.SOURCE));
      }
      for (int i = 0; i < 3; i++) {
        drops.add(
            new FlowRecord(
                T.plusSeconds(i),
                Provider.calico,
                Protocol.TCP,
                7777,
                CLIENT,
                SERVER,
                Verdict.DENIED,
                null,
                2,
                Reporter.SOURCE));
      }
      driver.pipe(drops);

      List<KeyValue<String, ViolationObservation>> violations = driver.newViolations();
      assertThat(violations)
          .extracting(kv -> kv.value.dstPort() + "x" + kv.value.observations())
          .containsExactlyInAnyOrder("9999x7", "7777x3");
      ViolationObservation v =
          violations.stream()
              .filter(kv -> kv.value.dstPort() == 9999)
              .findFirst()
              .orElseThrow()
              .value;
      assertThat(v.count()).isEqualTo(14);
      assertThat(v.timestamp()).isEqualTo(T.plusSeconds(6));
      assertThat(driver.metrics().count("violations", "action", "protect")).isEqualTo(10);
    }
  }

  @Test
  void withoutTheCombinerEveryFlowRecordIsOneViolationRecordOfOneObservation() {
    try (var driver = ProcessorTestDriver.kubernetesInMemory(Duration.ZERO)) {
      learnAndPromote(driver, Mode.protect);
      for (int i = 0; i < 4; i++) {
        driver.pipe(
            new FlowRecord(
                T.plusSeconds(i),
                Provider.calico,
                Protocol.TCP,
                9999,
                CLIENT,
                SERVER,
                Verdict.DENIED,
                null,
                2,
                Reporter.SOURCE));
      }
      assertThat(driver.newViolations())
          .extracting(kv -> kv.value.observations())
          .containsExactly(1L, 1L, 1L, 1L);
    }
  }
}
