package io.kubewarden.networkenforcer.processor.external;

import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.CLIENT;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.CLIENT_EGRESS;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.SERVER;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.SERVER_INGRESS;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.forwarded;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.kubewarden.networkenforcer.common.config.ConfigException;
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
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.processor.config.LearningSettings;
import io.kubewarden.networkenforcer.processor.config.LearningSettings.ExternalPeers;
import io.kubewarden.networkenforcer.processor.fixtures.ProcessorTestDriver;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Once more than {@code externalPeersWidenAbove} outside addresses use one port of one target, that
 * port is learned as the one widened rule (every address but the cluster ranges) with the
 * addresses' DNS names and summed evidence, instead of one rule per address.
 */
class ExternalWideningTest {
  private static final Instant T0 = Instant.parse("2026-08-03T15:40:10Z");
  private static final List<String> CLUSTER =
      List.of("10.244.0.0/16", "10.96.0.0/12", "fd00:10:244::/56");
  private static final LearningSettings SETTINGS =
      new LearningSettings(CLUSTER, ExternalPeers.ADDRESS, null, 100);

  /** The widened rule's peers: every address but the cluster ranges. */
  private static final String EVERY_OUTSIDE_ADDRESS =
      """
      [{"ipBlock":{"cidr":"0.0.0.0/0","except":["10.244.0.0/16","10.96.0.0/12"]}},
       {"ipBlock":{"cidr":"::/0","except":["fd00:10:244::/56"]}}]"""
          .replace("\n", "");

  private static FlowEndpoint visitor(int i) {
    return FlowEndpoint.outsideCluster(
        "198.51.100." + i, ExternalEndpoint.of(List.of("host-" + i + ".isp.example")));
  }

  private static FlowRecord visit(int i, int port) {
    return forwarded(
        Provider.cilium,
        T0.plusSeconds(i),
        visitor(i),
        SERVER,
        Protocol.TCP,
        port,
        2,
        Reporter.DESTINATION);
  }

  @Test
  void theEleventhClientOfAPortWidensItsRulesIntoOneKeepingNamesAndEvidence() throws Exception {
    try (var driver = ProcessorTestDriver.kubernetes(SETTINGS)) {
      // Client 1 also uses TCP 9090, which only it uses: that rule stays its own.
      driver.pipe(visit(1, 9090));
      List<FlowRecord> ten = new ArrayList<>();
      for (int i = 1; i <= 10; i++) {
        ten.add(visit(i, 18080));
      }
      driver.pipe(ten).flushEvidence();
      ProposalSnapshot atTen = driver.latestProposals().get(SERVER_INGRESS);
      assertThat(atTen.evidence()).hasSize(10);
      assertThat(atTen.evidence().get(0).getPeer()).isEqualTo("198.51.100.1/32");

      driver.pipe(visit(11, 18080)).flushEvidence();

      ProposalSnapshot proposal = driver.latestProposals().get(SERVER_INGRESS);
      JsonNode ingress = Json.mapper().valueToTree(proposal.spec().getKubernetes()).get("ingress");
      // Rules in peer key order: the address keeps its other port, then the widened rule.
      assertThat(ingress)
          .isEqualTo(
              Json.mapper()
                  .readTree(
                      "[{\"from\":[{\"ipBlock\":{\"cidr\":\"198.51.100.1/32\"}}],"
                          + "\"ports\":[{\"protocol\":\"TCP\",\"port\":9090}]},"
                          + "{\"from\":"
                          + EVERY_OUTSIDE_ADDRESS
                          + ",\"ports\":[{\"protocol\":\"TCP\",\"port\":18080}]}]"));
      assertThat(proposal.evidence())
          .extracting(RuleEvidence::getPeer)
          .containsExactly("198.51.100.1/32", "outside-cluster");
      RuleEvidence widened = proposal.evidence().get(1);
      // Eleven clients of 2 flows each, from the first's time to the eleventh's.
      assertThat(widened.getCount()).isEqualTo(22);
      assertThat(widened.getFirstSeen()).isEqualTo("2026-08-03T15:40:11Z");
      assertThat(widened.getLastSeen()).isEqualTo("2026-08-03T15:40:21Z");
      assertThat(widened.getDnsNames())
          .hasSize(11)
          .contains("host-1.isp.example", "host-11.isp.example");
      assertThat(proposal.evidence().get(0).getCount()).isEqualTo(2);

      // The twelfth client is no new rule, only evidence of the widened one.
      driver.newProposals();
      driver.pipe(visit(12, 18080));
      assertThat(driver.newProposals()).as("the allow-list did not change").isEmpty();
      driver.flushEvidence();
      RuleEvidence after = driver.latestProposals().get(SERVER_INGRESS).evidence().get(1);
      assertThat(after.getCount()).isEqualTo(24);
      assertThat(after.getDnsNames()).hasSize(12).contains("host-12.isp.example");

      var spec = proposal.spec().getKubernetes();
      FlowEndpoint stranger = FlowEndpoint.outsideCluster("203.0.113.99", null);
      assertThat(
              NetworkPolicyEvaluator.evaluate(
                  spec, Direction.Ingress, stranger, SERVER, Protocol.TCP, 18080))
          .isEqualTo(Decision.ALLOWED);
      assertThat(
              NetworkPolicyEvaluator.evaluate(
                  spec, Direction.Ingress, stranger, SERVER, Protocol.TCP, 9090))
          .isEqualTo(Decision.DENIED);
      // The cluster's own pods stay outside the widened rule.
      assertThat(
              NetworkPolicyEvaluator.evaluate(
                  spec, Direction.Ingress, CLIENT, SERVER, Protocol.TCP, 18080))
          .isEqualTo(Decision.DENIED);
    }
  }

  @Test
  void manyAddressesBehindOneNameOnEgressBecomeOneRuleAtAConfiguredThreshold() throws Exception {
    LearningSettings three = new LearningSettings(CLUSTER, ExternalPeers.ADDRESS, null, 100, 3);
    try (var driver = ProcessorTestDriver.kubernetes(three)) {
      List<FlowRecord> calls = new ArrayList<>();
      for (int i = 1; i <= 3; i++) {
        FlowEndpoint s3 =
            FlowEndpoint.outsideCluster(
                "52.216.8." + i, ExternalEndpoint.of(List.of("bucket.s3.amazonaws.com")));
        calls.add(
            forwarded(
                Provider.cilium,
                T0.plusSeconds(i),
                CLIENT,
                s3,
                Protocol.TCP,
                443,
                1,
                Reporter.SOURCE));
      }
      driver.pipe(calls).flushEvidence();
      assertThat(driver.latestProposals().get(CLIENT_EGRESS).evidence()).hasSize(3);

      FlowEndpoint fourth =
          FlowEndpoint.outsideCluster(
              "52.216.8.4", ExternalEndpoint.of(List.of("bucket.s3.amazonaws.com")));
      driver
          .pipe(
              forwarded(
                  Provider.cilium,
                  T0.plusSeconds(4),
                  CLIENT,
                  fourth,
                  Protocol.TCP,
                  443,
                  1,
                  Reporter.SOURCE))
          .flushEvidence();

      ProposalSnapshot proposal = driver.latestProposals().get(CLIENT_EGRESS);
      JsonNode egress = Json.mapper().valueToTree(proposal.spec().getKubernetes()).get("egress");
      assertThat(egress)
          .isEqualTo(
              Json.mapper()
                  .readTree(
                      "[{\"to\":"
                          + EVERY_OUTSIDE_ADDRESS
                          + ",\"ports\":[{\"protocol\":\"TCP\",\"port\":443}]}]"));
      RuleEvidence rule = proposal.evidence().get(0);
      assertThat(rule.getPeer()).isEqualTo("outside-cluster");
      assertThat(rule.getDnsNames()).containsExactly("bucket.s3.amazonaws.com");
      assertThat(rule.getCount()).isEqualTo(4);
    }
  }

  @Test
  void theThresholdIsValidated() {
    assertThatThrownBy(
            () -> new LearningSettings(CLUSTER, ExternalPeers.ADDRESS, null, 100, 0).validate())
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("between 1 and 10000")
        .hasMessageContaining("got 0");
    assertThatThrownBy(
            () ->
                new LearningSettings(CLUSTER, ExternalPeers.ADDRESS, null, 100, 10_001).validate())
        .isInstanceOf(ConfigException.class);
    assertThat(LearningSettings.DEFAULTS.externalPeersWidenAbove()).isEqualTo(10);
  }
}
