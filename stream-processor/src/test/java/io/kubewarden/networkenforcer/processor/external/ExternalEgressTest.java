package io.kubewarden.networkenforcer.processor.external;

import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.CLIENT;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.CLIENT_EGRESS;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.SERVER;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.forwarded;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.kubewarden.networkenforcer.common.crd.PolicySnapshot;
import io.kubewarden.networkenforcer.common.crd.RuleEvidence;
import io.kubewarden.networkenforcer.common.evaluation.Decision;
import io.kubewarden.networkenforcer.common.evaluation.NetworkPolicyEvaluator;
import io.kubewarden.networkenforcer.common.flow.ExternalEndpoint;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.common.policy.Direction;
import io.kubewarden.networkenforcer.common.policy.Mode;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.common.violation.ViolationObservation;
import io.kubewarden.networkenforcer.processor.config.LearningSettings;
import io.kubewarden.networkenforcer.processor.config.LearningSettings.ExternalPeers;
import io.kubewarden.networkenforcer.processor.fixtures.Policies;
import io.kubewarden.networkenforcer.processor.fixtures.ProcessorTestDriver;
import java.time.Instant;
import java.util.List;
import org.apache.kafka.streams.KeyValue;
import org.junit.jupiter.api.Test;

/**
 * Calls to addresses outside the cluster are learned as ipBlock rules, so a promoted egress policy
 * keeps them; monitor mode evaluates them like any other flow.
 */
class ExternalEgressTest {
  private static final Instant T0 = Instant.parse("2026-08-03T15:40:10Z");
  private static final FlowEndpoint STRIPE =
      FlowEndpoint.outsideCluster("142.251.209.46", ExternalEndpoint.of(List.of("api.stripe.com")));
  private static final FlowEndpoint OTHER_API =
      FlowEndpoint.outsideCluster("203.0.113.50", ExternalEndpoint.of(List.of("api.example.com")));
  private static final List<String> CLUSTER =
      List.of("10.244.0.0/16", "10.96.0.0/12", "fd00:10:244::/56");

  /**
   * The call of the sample capture: http-client to api.stripe.com on TCP 443, seen at the source.
   */
  private static FlowRecord call(Instant time, FlowEndpoint to, int port) {
    return forwarded(Provider.cilium, time, CLIENT, to, Protocol.TCP, port, 1, Reporter.SOURCE);
  }

  @Test
  void anExternalCallIsLearnedAsAnAddressBlockAndStaysAllowedAfterPromotion() throws Exception {
    try (var driver = ProcessorTestDriver.kubernetes()) {
      driver.pipe(call(T0, STRIPE, 443), call(T0.plusSeconds(5), STRIPE, 443)).flushEvidence();

      ProposalSnapshot proposal = driver.latestProposals().get(CLIENT_EGRESS);
      // Only the workload end learns: the outside end has no proposal.
      assertThat(driver.latestProposals()).containsOnlyKeys(CLIENT_EGRESS);
      JsonNode spec = Json.mapper().valueToTree(proposal.spec().getKubernetes());
      assertThat(spec)
          .isEqualTo(
              Json.mapper()
                  .readTree(
                      """
          {"podSelector":{"matchLabels":{"app":"http-client"}},
           "policyTypes":["Egress"],
           "egress":[{"to":[{"ipBlock":{"cidr":"142.251.209.46/32"}}],
                      "ports":[{"protocol":"TCP","port":443}]}]}"""));
      RuleEvidence rule = proposal.evidence().get(0);
      assertThat(rule.getPeer()).isEqualTo("142.251.209.46/32");
      assertThat(rule.getDnsNames()).containsExactly("api.stripe.com");
      assertThat(rule.getCount()).isEqualTo(2);
      assertThat(rule.getFirstSeen()).isEqualTo("2026-08-03T15:40:10Z");
      assertThat(rule.getLastSeen()).isEqualTo("2026-08-03T15:40:15Z");

      // The project's evaluator: the learned spec allows the call it was learned from.
      assertThat(
              NetworkPolicyEvaluator.evaluate(
                  proposal.spec().getKubernetes(),
                  Direction.Egress,
                  CLIENT,
                  STRIPE,
                  Protocol.TCP,
                  443))
          .isEqualTo(Decision.ALLOWED);

      // Promoted to monitor: the same call is no violation; another address or port is one.
      PolicySnapshot policy = Policies.promoted(proposal, Mode.monitor);
      driver.policy(policy);
      driver.pipe(
          call(T0.plusSeconds(60), STRIPE, 443),
          call(T0.plusSeconds(61), OTHER_API, 443),
          call(T0.plusSeconds(62), STRIPE, 80));
      List<KeyValue<String, ViolationObservation>> violations = driver.newViolations();
      assertThat(violations).hasSize(2);
      // The observation combiner forwards per flow key: no order between the two.
      assertThat(violations).extracting(v -> v.value.dstPort()).containsExactlyInAnyOrder(443, 80);
      assertThat(violations)
          .allSatisfy(
              v -> {
                assertThat(v.key).isEqualTo("demo/deployment-http-client-egress");
                assertThat(v.value.action()).isEqualTo(Mode.monitor);
                assertThat(v.value.dest().getNamespace()).isNull();
              });
    }
  }

  @Test
  void newDnsNamesOfAKnownAddressAreEvidenceNotANewProposal() {
    try (var driver = ProcessorTestDriver.kubernetes()) {
      driver.pipe(call(T0, STRIPE, 443));
      assertThat(driver.newProposals()).hasSize(1);
      FlowEndpoint sameAddressOtherName =
          FlowEndpoint.outsideCluster(
              "142.251.209.46", ExternalEndpoint.of(List.of("files.stripe.com")));
      driver.pipe(call(T0.plusSeconds(1), sameAddressOtherName, 443));
      assertThat(driver.newProposals()).as("the allow-list did not change").isEmpty();

      driver.flushEvidence();
      List<KeyValue<String, ProposalSnapshot>> flushed = driver.newProposals();
      assertThat(flushed).hasSize(1);
      assertThat(flushed.get(0).value.evidence().get(0).getDnsNames())
          .containsExactly("api.stripe.com", "files.stripe.com");
    }
  }

  @Test
  void outsideClusterOptionWidensToEveryAddressButTheClusterRangesOnTheLearnedPorts()
      throws Exception {
    LearningSettings widened =
        new LearningSettings(CLUSTER, ExternalPeers.OUTSIDE_CLUSTER, null, 100);
    try (var driver = ProcessorTestDriver.kubernetes(widened)) {
      driver.pipe(call(T0, STRIPE, 443), call(T0.plusSeconds(1), OTHER_API, 443)).flushEvidence();

      ProposalSnapshot proposal = driver.latestProposals().get(CLIENT_EGRESS);
      JsonNode spec = Json.mapper().valueToTree(proposal.spec().getKubernetes());
      assertThat(spec.get("egress"))
          .isEqualTo(
              Json.mapper()
                  .readTree(
                      """
          [{"to":[{"ipBlock":{"cidr":"0.0.0.0/0","except":["10.244.0.0/16","10.96.0.0/12"]}},
                  {"ipBlock":{"cidr":"::/0","except":["fd00:10:244::/56"]}}],
            "ports":[{"protocol":"TCP","port":443}]}]"""));
      RuleEvidence rule = proposal.evidence().get(0);
      assertThat(rule.getPeer()).isEqualTo("outside-cluster");
      assertThat(rule.getDnsNames()).containsExactly("api.example.com", "api.stripe.com");

      var k = proposal.spec().getKubernetes();
      FlowEndpoint nextAddress = FlowEndpoint.outsideCluster("198.51.100.7", null);
      FlowEndpoint nextV6 = FlowEndpoint.outsideCluster("2001:db8::7", null);
      assertThat(
              NetworkPolicyEvaluator.evaluate(
                  k, Direction.Egress, CLIENT, nextAddress, Protocol.TCP, 443))
          .isEqualTo(Decision.ALLOWED);
      assertThat(
              NetworkPolicyEvaluator.evaluate(
                  k, Direction.Egress, CLIENT, nextV6, Protocol.TCP, 443))
          .isEqualTo(Decision.ALLOWED);
      // Never the cluster's own pods: the pod range is excepted.
      assertThat(
              NetworkPolicyEvaluator.evaluate(
                  k, Direction.Egress, CLIENT, SERVER, Protocol.TCP, 443))
          .isEqualTo(Decision.DENIED);
      assertThat(
              NetworkPolicyEvaluator.evaluate(
                  k, Direction.Egress, CLIENT, nextAddress, Protocol.TCP, 80))
          .isEqualTo(Decision.DENIED);
    }
  }

  @Test
  void anAddressInsideAClusterRangeIsNeverLearnedAsAnOutsidePeer() {
    LearningSettings settings = new LearningSettings(CLUSTER, ExternalPeers.ADDRESS, null, 100);
    try (var driver = ProcessorTestDriver.kubernetes(settings)) {
      driver.pipe(call(T0, FlowEndpoint.outsideCluster("10.244.7.7", null), 8080)).flushEvidence();

      assertThat(driver.latestProposals()).isEmpty();
      assertThat(
              driver
                  .meterRegistry()
                  .get("network_enforcer.processor.learning.skipped")
                  .tag("reason", "external-address-in-cluster-range")
                  .counter()
                  .count())
          .isEqualTo(1.0);
    }
  }

  @Test
  void anOutsideEndWithoutAnAddressIsLearnedAsTheWidenedRule() {
    // Calico Goldmane reports a public network without its address.
    FlowEndpoint publicNetwork =
        FlowEndpoint.outsideCluster(null, new ExternalEndpoint(List.of(), "pub"));
    try (var driver =
        ProcessorTestDriver.kubernetes(new LearningSettings(CLUSTER, null, null, 100))) {
      driver
          .pipe(
              forwarded(
                  Provider.calico,
                  T0,
                  CLIENT,
                  publicNetwork,
                  Protocol.TCP,
                  443,
                  3,
                  Reporter.SOURCE))
          .flushEvidence();

      ProposalSnapshot proposal = driver.latestProposals().get(CLIENT_EGRESS);
      var to = proposal.spec().getKubernetes().getEgress().get(0).getTo();
      assertThat(to).extracting(p -> p.getIpBlock().getCidr()).containsExactly("0.0.0.0/0", "::/0");
      assertThat(proposal.evidence().get(0).getCount()).isEqualTo(3);
    }
  }
}
