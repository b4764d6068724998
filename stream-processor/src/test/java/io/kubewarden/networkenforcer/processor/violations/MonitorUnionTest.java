package io.kubewarden.networkenforcer.processor.violations;

import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.CLIENT;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.COREDNS;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.SERVER;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.SERVER_INGRESS;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.forwarded;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicySpec;
import io.kubewarden.networkenforcer.common.crd.CiliumPolicy;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.common.policy.Mode;
import io.kubewarden.networkenforcer.common.policy.NativePolicySnapshot;
import io.kubewarden.networkenforcer.processor.fixtures.Policies;
import io.kubewarden.networkenforcer.processor.fixtures.ProcessorTestDriver;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * Monitor mode evaluates the union of the policies on the pod: a flow the monitored policy denies
 * but another NetworkPolicy selecting the same pod allows is no violation (policies are additive).
 * Cilium enforces NetworkPolicies beside CiliumNetworkPolicies, so the cilium backend's monitor
 * mode counts them too.
 */
class MonitorUnionTest {
  private static final Instant T = Instant.parse("2026-08-03T16:00:00Z");

  /** The monitored WNP: http-server accepts http-client on TCP 18080 only. */
  private static NetworkPolicySpec onlyClient() throws Exception {
    return Json.mapper()
        .readValue(
            """
        {"podSelector":{"matchLabels":{"app":"http-server"}},"policyTypes":["Ingress"],
         "ingress":[{"from":[{"podSelector":{"matchLabels":{"app":"http-client"}}}],
                     "ports":[{"protocol":"TCP","port":18080}]}]}""",
            NetworkPolicySpec.class);
  }

  /**
   * Someone else's NetworkPolicy in demo: http-server accepts anything from kube-system on 9090.
   */
  private static NativePolicySnapshot metricsScraping() throws Exception {
    return new NativePolicySnapshot(
        "demo",
        "allow-scraping",
        Json.mapper()
            .readValue(
                """
        {"podSelector":{"matchLabels":{"app":"http-server"}},"policyTypes":["Ingress"],
         "ingress":[{"from":[{"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"kube-system"}}}],
                     "ports":[{"protocol":"TCP","port":9090}]}]}""",
                NetworkPolicySpec.class));
  }

  @Test
  void aFlowAnotherNetworkPolicyOfThePodAllowsIsNoViolation() throws Exception {
    try (var driver = ProcessorTestDriver.kubernetes()) {
      driver.policy(Policies.kubernetes(SERVER_INGRESS, Mode.monitor, onlyClient()));
      driver.nativePolicy(metricsScraping());

      driver.pipe(toTheServerOnThreePorts());

      var violations = driver.newViolations();
      assertThat(violations)
          .singleElement()
          .satisfies(
              v -> {
                assertThat(v.value.dstPort()).isEqualTo(8443);
                assertThat(v.value.action()).isEqualTo(Mode.monitor);
              });
      assertThat(
              driver
                  .meterRegistry()
                  .get("network_enforcer.processor.evaluations.allowed.by.other.policy")
                  .counter()
                  .count())
          .isEqualTo(1.0);
    }
  }

  @Test
  void aPolicyOfAnotherNamespaceOrOneThatIsGoneDoesNotCount() throws Exception {
    try (var driver = ProcessorTestDriver.kubernetes()) {
      driver.policy(Policies.kubernetes(SERVER_INGRESS, Mode.monitor, onlyClient()));
      NativePolicySnapshot scraping = metricsScraping();
      driver.nativePolicy(new NativePolicySnapshot("other", "allow-scraping", scraping.spec()));
      driver.nativePolicy(scraping);
      driver.pipe(
          forwarded(
              Provider.cilium, T, COREDNS, SERVER, Protocol.TCP, 9090, 1, Reporter.DESTINATION));
      assertThat(driver.newViolations()).isEmpty();

      driver.deleteNativePolicy(scraping.key());
      driver.pipe(
          forwarded(
              Provider.cilium,
              T.plusSeconds(1),
              COREDNS,
              SERVER,
              Protocol.TCP,
              9090,
              1,
              Reporter.DESTINATION));
      assertThat(driver.newViolations()).hasSize(1);
    }
  }

  /** The monitored cilium-backend WNP: http-server accepts http-client on TCP 18080 only. */
  private static CiliumPolicy onlyClientAsCilium() throws Exception {
    return Json.mapper()
        .readValue(
            """
        {"endpointSelector":{"matchLabels":{"app":"http-server"}},
         "ingress":[{"fromEndpoints":[{"matchLabels":{"app":"http-client",
                                                      "k8s:io.kubernetes.pod.namespace":"demo"}}],
                     "toPorts":[{"ports":[{"port":"18080","protocol":"TCP"}]}]}]}""",
            CiliumPolicy.class);
  }

  @Test
  void theCiliumBackendCountsThePlainNetworkPoliciesOfThePodToo() throws Exception {
    try (var driver = ProcessorTestDriver.cilium()) {
      driver.policy(Policies.cilium(SERVER_INGRESS, Mode.monitor, onlyClientAsCilium()));
      driver.nativePolicy(metricsScraping());

      driver.pipe(toTheServerOnThreePorts());

      assertThat(driver.newViolations())
          .singleElement()
          .satisfies(
              v -> {
                assertThat(v.value.dstPort()).isEqualTo(8443);
                assertThat(v.value.action()).isEqualTo(Mode.monitor);
              });
      assertThat(
              driver
                  .meterRegistry()
                  .get("network_enforcer.processor.evaluations.allowed.by.other.policy")
                  .counter()
                  .count())
          .isEqualTo(1.0);
    }
  }

  /**
   * To the server: from the client on 18080 (the monitored policy allows it), from CoreDNS on 9090
   * (only the NetworkPolicy allow-scraping allows it) and on 8443 (allowed by neither).
   */
  private static FlowRecord[] toTheServerOnThreePorts() {
    return new FlowRecord[] {
      forwarded(Provider.cilium, T, CLIENT, SERVER, Protocol.TCP, 18080, 1, Reporter.DESTINATION),
      forwarded(
          Provider.cilium,
          T.plusSeconds(1),
          COREDNS,
          SERVER,
          Protocol.TCP,
          9090,
          1,
          Reporter.DESTINATION),
      forwarded(
          Provider.cilium,
          T.plusSeconds(2),
          COREDNS,
          SERVER,
          Protocol.TCP,
          8443,
          1,
          Reporter.DESTINATION)
    };
  }
}
