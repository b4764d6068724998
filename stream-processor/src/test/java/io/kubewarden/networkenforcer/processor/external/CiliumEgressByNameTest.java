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
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.common.policy.Backend;
import io.kubewarden.networkenforcer.common.policy.Mode;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.common.violation.ViolationObservation;
import io.kubewarden.networkenforcer.processor.fixtures.Policies;
import io.kubewarden.networkenforcer.processor.fixtures.ProcessorTestDriver;
import java.time.Duration;
import java.time.Instant;
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
      // Evidence stays per address; both addresses point at the one name rule.
      assertThat(proposal.evidence())
          .filteredOn(e -> e.getDnsNames() != null)
          .extracting(RuleEvidence::getPeer, RuleEvidence::getRule, RuleEvidence::getFirstSeen)
          .containsExactlyInAnyOrder(
              org.assertj.core.groups.Tuple.tuple("203.0.113.10/32", 2, "2026-08-03T15:40:10Z"),
              org.assertj.core.groups.Tuple.tuple("203.0.113.20/32", 2, "2026-08-03T16:40:10Z"));
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
}
