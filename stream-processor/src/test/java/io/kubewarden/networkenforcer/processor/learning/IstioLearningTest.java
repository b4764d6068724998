package io.kubewarden.networkenforcer.processor.learning;

import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.CLIENT;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.SERVER;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.SERVER_INGRESS;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.forwarded;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.common.crd.IstioPolicy;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.processor.fixtures.BasicFixture;
import io.kubewarden.networkenforcer.processor.fixtures.ProcessorTestDriver;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Istio backend learning: ingress only, TCP only, peers are principals. */
class IstioLearningTest {

  private static final String SPEC =
      """
      {"backend":"istio",
       "istio":{"selector":{"matchLabels":{"app":"http-server"}},
                "rules":[{"from":[{"source":{"principals":["cluster.local/ns/demo/sa/http-client-sa"]}}],
                          "to":[{"operation":{"ports":["18080"]}}]}]},
       "targetRef":{"kind":"Deployment","name":"http-server"},
       "direction":"Ingress"}""";

  @Test
  void ztunnelFixtureLearnsOneIngressProposalWithThePrincipal() throws Exception {
    try (var driver = ProcessorTestDriver.istio()) {
      driver.pipe(BasicFixture.ztunnelFlows()).flushEvidence();

      Map<String, ProposalSnapshot> proposals = driver.latestProposals();
      assertThat(proposals).containsOnlyKeys(SERVER_INGRESS);
      KubernetesLearningTest.assertSpec(
          proposals.get(SERVER_INGRESS), "deployment-http-server-ingress", "demo", SPEC);
      assertThat(proposals.get(SERVER_INGRESS).evidence().get(0).getPeer())
          .isEqualTo("cluster.local/ns/demo/sa/http-client-sa");
      assertThat(proposals.get(SERVER_INGRESS).evidence().get(0).getPorts().get(0).getCount())
          .isEqualTo(2);
    }
  }

  @Test
  void udpIsNeverLearnedOnIstio() {
    try (var driver = ProcessorTestDriver.istio()) {
      driver
          .pipe(
              forwarded(
                  Provider.istio,
                  ProcessorTestDriver.START,
                  CLIENT,
                  SERVER,
                  Protocol.UDP,
                  18081,
                  1,
                  Reporter.DESTINATION))
          .flushEvidence();

      assertThat(driver.latestProposals()).isEmpty();
      assertThat(driver.metrics().count("flows.ignored", "reason", "istio-not-tcp")).isEqualTo(1);
    }
  }

  @Test
  void aSourceWithAnIdentityButNoWorkloadIsAPeer() {
    FlowEndpoint bareSource =
        FlowEndpoint.builder()
            .namespace("jobs")
            .podName("backup-28373")
            .serviceAccount("backup")
            .identity("spiffe://cluster.local/ns/jobs/sa/backup")
            .build();
    try (var driver = ProcessorTestDriver.istio()) {
      driver.pipe(
          forwarded(
              Provider.istio,
              ProcessorTestDriver.START,
              bareSource,
              SERVER,
              Protocol.TCP,
              18080,
              1,
              Reporter.DESTINATION));

      IstioPolicy istio = driver.latestProposals().get(SERVER_INGRESS).spec().getIstio();
      assertThat(istio.getRules()).hasSize(1);
      assertThat(istio.getRules().get(0).getFrom().get(0).getSource().getPrincipals())
          .containsExactly("cluster.local/ns/jobs/sa/backup");
    }
  }

  @Test
  void principalsAreSeparateRulesAndPortsAreSortedNumerically() {
    FlowEndpoint other =
        BasicFixture.endpoint(
            "demo",
            "alpha",
            Map.of("app", "alpha"),
            "alpha-5d8f9c7b6-x1x2x",
            "10.244.2.9",
            "alpha-sa");
    try (var driver = ProcessorTestDriver.istio()) {
      driver.pipe(
          forwarded(
              Provider.istio,
              ProcessorTestDriver.START,
              CLIENT,
              SERVER,
              Protocol.TCP,
              9090,
              1,
              Reporter.DESTINATION),
          forwarded(
              Provider.istio,
              ProcessorTestDriver.START,
              CLIENT,
              SERVER,
              Protocol.TCP,
              18080,
              1,
              Reporter.DESTINATION),
          forwarded(
              Provider.istio,
              ProcessorTestDriver.START,
              other,
              SERVER,
              Protocol.TCP,
              443,
              1,
              Reporter.DESTINATION),
          forwarded(
              Provider.istio,
              ProcessorTestDriver.START,
              CLIENT,
              SERVER,
              Protocol.TCP,
              0,
              1,
              Reporter.DESTINATION));

      IstioPolicy istio = driver.latestProposals().get(SERVER_INGRESS).spec().getIstio();
      assertThat(istio.getRules())
          .extracting(r -> r.getFrom().get(0).getSource().getPrincipals().get(0))
          .containsExactly(
              "cluster.local/ns/demo/sa/alpha-sa", "cluster.local/ns/demo/sa/http-client-sa");
      assertThat(istio.getRules().get(1).getTo().get(0).getOperation().getPorts())
          .containsExactly("9090", "18080");
      assertThat(driver.metrics().count("learning.skipped", "reason", "unknown-port")).isEqualTo(1);
    }
  }
}
