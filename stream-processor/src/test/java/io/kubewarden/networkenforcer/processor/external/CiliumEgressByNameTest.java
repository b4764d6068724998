package io.kubewarden.networkenforcer.processor.external;

import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.CLIENT;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.CLIENT_EGRESS;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.SERVER;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.forwarded;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.kubewarden.networkenforcer.common.crd.RuleEvidence;
import io.kubewarden.networkenforcer.common.flow.ExternalEndpoint;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.PolicyRef;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.common.flow.Verdict;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.common.policy.Backend;
import io.kubewarden.networkenforcer.common.policy.Mode;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.common.violation.ViolationObservation;
import io.kubewarden.networkenforcer.processor.fixtures.Policies;
import io.kubewarden.networkenforcer.processor.fixtures.ProcessorTestDriver;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.streams.KeyValue;
import org.junit.jupiter.api.Test;

/**
 * The cilium backend learns external egress by DNS name: the addresses behind one name are one
 * {@code toFQDNs} rule, and monitor mode allows the name's next address as Cilium would.
 */
class CiliumEgressByNameTest {
  private static final Instant T0 = Instant.parse("2026-08-03T15:40:10Z");
  private static final Instant AN_HOUR_LATER = T0.plus(Duration.ofHours(1));

  private static FlowEndpoint outside(String ip, String... names) {
    return FlowEndpoint.outsideCluster(ip, ExternalEndpoint.of(List.of(names)));
  }

  private static FlowRecord call(Instant time, FlowEndpoint to, int port) {
    return forwarded(Provider.cilium, time, CLIENT, to, Protocol.TCP, port, 1, Reporter.SOURCE);
  }

  private static final String DNS_RULE =
      """
      {"toEndpoints":[{"matchLabels":{"k8s:io.kubernetes.pod.namespace":"kube-system",
                                      "k8s:k8s-app":"kube-dns"}}],
       "toPorts":[{"ports":[{"port":"53","protocol":"UDP"},{"port":"53","protocol":"TCP"}],
                   "rules":{"dns":[{"matchPattern":"*"}]}}]}""";

  @Test
  void twoAddressesOfOneNameAnHourApartAreOneToFqdnsRuleAndTheDnsRule() throws Exception {
    try (var driver = ProcessorTestDriver.cilium()) {
      driver
          .pipe(
              call(T0, outside("203.0.113.10", "api.example.com"), 443),
              call(AN_HOUR_LATER, outside("203.0.113.20", "api.example.com"), 443),
              call(AN_HOUR_LATER.plusSeconds(1), SERVER, 18080),
              call(AN_HOUR_LATER.plusSeconds(2), outside("198.51.100.7"), 22))
          .flushEvidence();

      ProposalSnapshot proposal = driver.latestProposals().get(CLIENT_EGRESS);
      assertThat(proposal.spec().getBackend()).isEqualTo(Backend.cilium);
      assertThat(proposal.spec().getKubernetes()).isNull();
      JsonNode spec = Json.mapper().valueToTree(proposal.spec().getCilium());
      assertThat(spec)
          .isEqualTo(
              Json.mapper()
                  .readTree(
                      """
          {"endpointSelector":{"matchLabels":{"app":"http-client"}},
           "egress":[
            {"toCIDR":["198.51.100.7/32"],"toPorts":[{"ports":[{"port":"22","protocol":"TCP"}]}]},
            {"toEndpoints":[{"matchLabels":{"app":"http-server",
                                            "k8s:io.kubernetes.pod.namespace":"demo"}}],
             "toPorts":[{"ports":[{"port":"18080","protocol":"TCP"}]}]},
            {"toFQDNs":[{"matchName":"api.example.com"}],
             "toPorts":[{"ports":[{"port":"443","protocol":"TCP"}]}]},
          """
                          + DNS_RULE
                          + "]}"));
      assertThat(proposal.spec().getCilium().getEgress())
          .filteredOn(r -> r.getToFQDNs() != null)
          .hasSize(1);
      // One peer by name: its evidence covers both addresses.
      assertThat(proposal.evidence())
          .filteredOn(e -> e.getDnsNames() != null)
          .singleElement()
          .satisfies(
              e -> {
                assertThat(e.getPeer()).isEqualTo("dns:api.example.com");
                assertThat(e.getRule()).isEqualTo(2);
                assertThat(e.getCount()).isEqualTo(2);
                assertThat(e.getFirstSeen()).isEqualTo("2026-08-03T15:40:10Z");
                assertThat(e.getLastSeen()).isEqualTo("2026-08-03T16:40:10Z");
              });
    }
  }

  /**
   * The kubernetes backend widens a port that more than 10 outside addresses use to "anywhere
   * outside"; the cilium backend keeps the name: 30 addresses of one CDN name stay one name rule,
   * while 11 addresses without a name are still widened.
   */
  @Test
  void theAddressesOfANameAreNeverWidened() throws Exception {
    try (var driver = ProcessorTestDriver.cilium()) {
      List<FlowRecord> flows = new ArrayList<>();
      for (int i = 1; i <= 30; i++) {
        flows.add(call(T0.plusSeconds(i), outside("203.0.113." + i, "cdn.example.net"), 443));
      }
      for (int i = 1; i <= 11; i++) {
        flows.add(call(T0.plusSeconds(100 + i), outside("198.51.100." + i), 8443));
      }
      driver.pipe(flows.toArray(FlowRecord[]::new)).flushEvidence();

      ProposalSnapshot proposal = driver.latestProposals().get(CLIENT_EGRESS);
      var egress = proposal.spec().getCilium().getEgress();
      assertThat(egress).filteredOn(r -> r.getToFQDNs() != null).hasSize(1);
      assertThat(egress)
          .filteredOn(r -> r.getToFQDNs() != null)
          .singleElement()
          .satisfies(
              r ->
                  assertThat(r.getToFQDNs())
                      .extracting(f -> f.getMatchName())
                      .containsExactly("cdn.example.net"));
      // The unnamed addresses: widened to everything outside the cluster (no cluster ranges are
      // configured here, so nothing is excepted).
      assertThat(egress)
          .filteredOn(r -> r.getToCIDR() != null)
          .singleElement()
          .satisfies(
              r -> {
                assertThat(r.getToCIDR()).containsExactly("0.0.0.0/0", "::/0");
                assertThat(r.getToPorts().get(0).getPorts().get(0).getPort()).isEqualTo("8443");
              });
      assertThat(proposal.evidence())
          .extracting(RuleEvidence::getPeer)
          .containsExactlyInAnyOrder("dns:cdn.example.net", "outside-cluster");
      assertThat(
              proposal.evidence().stream()
                  .filter(e -> e.getPeer().equals("dns:cdn.example.net"))
                  .findFirst()
                  .orElseThrow()
                  .getCount())
          .isEqualTo(30);
    }
  }

  @Test
  void monitorModeAllowsTheNamesNextAddressAndReportsAnAddressWithoutAName() {
    try (var driver = ProcessorTestDriver.cilium()) {
      driver.pipe(call(T0, outside("203.0.113.10", "api.example.com"), 443)).flushEvidence();
      ProposalSnapshot proposal = driver.latestProposals().get(CLIENT_EGRESS);
      driver.policy(Policies.promoted(proposal, Mode.monitor));
      driver.newViolations();

      Instant unnamed = AN_HOUR_LATER.plusSeconds(1);
      Instant otherName = AN_HOUR_LATER.plusSeconds(2);
      driver.pipe(
          call(AN_HOUR_LATER, outside("203.0.113.20", "api.example.com"), 443),
          call(unnamed, outside("192.0.2.99"), 443),
          call(otherName, outside("203.0.113.30", "evil.example.net"), 443),
          call(otherName.plusSeconds(1), outside("203.0.113.10", "api.example.com"), 443));

      List<KeyValue<String, ViolationObservation>> violations = driver.newViolations();
      assertThat(violations)
          .extracting(v -> v.value.timestamp())
          .containsExactlyInAnyOrder(unnamed, otherName);
      assertThat(violations)
          .allSatisfy(
              v -> {
                assertThat(v.key).isEqualTo("demo/deployment-http-client-egress");
                assertThat(v.value.action()).isEqualTo(Mode.monitor);
                assertThat(v.value.backend()).isEqualTo(Backend.cilium);
              });
    }
  }

  /**
   * Protect mode: Cilium enforces the CiliumNetworkPolicy and Hubble reports its drop (policy
   * denied, at the source's egress, naming the CNP); that drop is the violation, with action
   * protect, attributed to the CNP Hubble named.
   */
  @Test
  void protectModeRecordsTheDropCiliumReports() {
    try (var driver = ProcessorTestDriver.cilium()) {
      driver.pipe(call(T0, outside("203.0.113.10", "api.example.com"), 443)).flushEvidence();
      driver.policy(Policies.promoted(driver.latestProposals().get(CLIENT_EGRESS), Mode.protect));
      driver.newViolations();

      Instant dropped = AN_HOUR_LATER;
      driver.pipe(
          // allowed by the CNP: forwarded, no violation (protect mode evaluates nothing itself)
          call(dropped.minusSeconds(1), outside("203.0.113.20", "api.example.com"), 443),
          new FlowRecord(
              dropped,
              Provider.cilium,
              Protocol.TCP,
              443,
              CLIENT,
              outside("192.0.2.99"),
              Verdict.DENIED,
              new PolicyRef("CiliumNetworkPolicy", "demo", "deployment-http-client-egress"),
              1,
              Reporter.SOURCE));

      assertThat(driver.newViolations())
          .singleElement()
          .satisfies(
              v -> {
                assertThat(v.key).isEqualTo("demo/deployment-http-client-egress");
                assertThat(v.value.timestamp()).isEqualTo(dropped);
                assertThat(v.value.action()).isEqualTo(Mode.protect);
                assertThat(v.value.backend()).isEqualTo(Backend.cilium);
                assertThat(v.value.policyName()).isEqualTo("deployment-http-client-egress");
                assertThat(v.value.dstPort()).isEqualTo(443);
              });
    }
  }
}
