package io.kubewarden.networkenforcer.writer.view;

import static io.kubewarden.networkenforcer.writer.Fixtures.NS;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.CronJobBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeerBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicySpecBuilder;
import io.kubewarden.networkenforcer.common.crd.CiliumPolicy;
import io.kubewarden.networkenforcer.common.crd.ViolationEndpoint;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicy;
import io.kubewarden.networkenforcer.common.policy.Mode;
import io.kubewarden.networkenforcer.common.report.ReportModel;
import io.kubewarden.networkenforcer.writer.Fixtures;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * How the live view turns a policy's rules and a violation's endpoints into graph nodes, and its
 * commands.
 */
class LiveViewModelTest {
  private static final List<HasMetadata> WORKLOADS =
      List.of(
          Fixtures.deployment("web"),
          Fixtures.deployment("api"),
          new CronJobBuilder()
              .withNewMetadata()
              .withName("nightly")
              .withNamespace(NS)
              .endMetadata()
              .withNewSpec()
              .withSchedule("0 1 * * *")
              .withNewJobTemplate()
              .withNewSpec()
              .withNewTemplate()
              .withNewMetadata()
              .withLabels(Map.of("job", "nightly"))
              .endMetadata()
              .endTemplate()
              .endSpec()
              .endJobTemplate()
              .endSpec()
              .build());

  private static List<String> peers(WorkloadNetworkPolicy wnp) {
    return AllowedPeers.of(NS, wnp.getSpec(), new PeerResolver(WORKLOADS)).stream()
        .map(
            p ->
                p.node().id()
                    + " "
                    + p.ports().stream().map(port -> port.protocol() + "/" + port.port()).toList())
        .toList();
  }

  @Test
  void kubernetesPeersAreTheCachedWorkloadsTheirSelectorsPick() {
    WorkloadNetworkPolicy wnp = Fixtures.wnp("api", "web", Mode.monitor);
    var rule = wnp.getSpec().getKubernetes().getIngress().get(0);
    // A second peer no cached workload has, an address range, and a CronJob by its pod labels.
    rule.getFrom()
        .add(
            new NetworkPolicyPeerBuilder()
                .withNewNamespaceSelector()
                .withMatchLabels(Map.of("kubernetes.io/metadata.name", NS))
                .endNamespaceSelector()
                .withPodSelector(
                    new LabelSelectorBuilder().withMatchLabels(Map.of("app", "gone")).build())
                .build());
    rule.getFrom()
        .add(
            new NetworkPolicyPeerBuilder()
                .withNewIpBlock()
                .withCidr("10.1.0.0/16")
                .endIpBlock()
                .build());
    rule.getFrom()
        .add(
            new NetworkPolicyPeerBuilder()
                .withPodSelector(
                    new LabelSelectorBuilder().withMatchLabels(Map.of("job", "nightly")).build())
                .build());
    assertThat(peers(wnp))
        .containsExactly(
            NS + "/Deployment/web [TCP/8080]",
            NS + "/Pods/{app=gone} [TCP/8080]",
            "10.1.0.0/16 [TCP/8080]",
            NS + "/CronJob/nightly [TCP/8080]");
  }

  @Test
  void aRuleWithNoPeerOrPortAllowsAnyoneOnAnyPort() {
    WorkloadNetworkPolicy wnp = Fixtures.wnp("api", "web", Mode.monitor);
    wnp.getSpec()
        .setKubernetes(
            new NetworkPolicySpecBuilder()
                .withPodSelector(Fixtures.app("api"))
                .withPolicyTypes("Ingress")
                .addNewIngress()
                .endIngress()
                .build());
    assertThat(peers(wnp)).containsExactly("anywhere [any/*]");
  }

  @Test
  void ciliumEndpointsAreWorkloadsAndNamesAndEntitiesAreOutsideNodes() {
    WorkloadNetworkPolicy wnp = Fixtures.ciliumEgressWnp("api", Mode.monitor);
    wnp.getSpec()
        .getCilium()
        .getEgress()
        .add(
            new CiliumPolicy.EgressRule(
                List.of(
                    new LabelSelectorBuilder()
                        .withMatchLabels(
                            Map.of("app", "web", "k8s:io.kubernetes.pod.namespace", NS))
                        .build()),
                null,
                List.of("198.51.100.7/32"),
                null,
                null));
    var entities = new CiliumPolicy.EgressRule();
    entities.setToEntities(List.of("world", "kube-apiserver"));
    wnp.getSpec().getCilium().getEgress().add(entities);
    assertThat(peers(wnp))
        .containsExactly(
            "dns:api.example.com [TCP/443]",
            "kube-system/Pods/{k8s-app=kube-dns} [UDP/53, TCP/53]",
            NS + "/Deployment/web [any/*]",
            "198.51.100.7/32 [any/*]",
            // world is the node the widened rule learns; another entity is a node of its own
            "outside-cluster [any/*]",
            "entity:kube-apiserver [any/*]");
  }

  @Test
  void istioPrincipalsAreServiceAccountNodes() {
    WorkloadNetworkPolicy wnp = Fixtures.istioWnp("api", Fixtures.app("api"), Mode.protect);
    assertThat(peers(wnp)).containsExactly(NS + "/ServiceAccount/frontend [TCP/8080]");
  }

  @Test
  void violationEndpointsAreTheirOwnerElseTheirIdentity() {
    assertThat(ViolationNodes.endpointNode(Fixtures.endpoint("batch")).id())
        .isEqualTo(NS + "/Deployment/batch");
    assertThat(
            ViolationNodes.endpointNode(
                    new ViolationEndpoint(
                        NS, null, null, "spiffe://cluster.local/ns/shop/sa/frontend", null))
                .id())
        .isEqualTo(NS + "/ServiceAccount/frontend");
    assertThat(
            ViolationNodes.endpointNode(
                    new ViolationEndpoint(null, null, null, null, Fixtures.app("x")))
                .id())
        .isEqualTo(ReportModel.OUTSIDE_GROUP + "/Pods/{app=x}");
  }

  @Test
  void commandsUseTheLabelsAndFieldsOfTheApi() {
    assertThat(KubectlCommands.forProposal("demo", "deployment-http-server-ingress"))
        .extracting(c -> c.command())
        .containsExactly(
            "kubectl label wnpp deployment-http-server-ingress -n demo networkenforcer.kubewarden.io/promote=monitor",
            "kubectl label wnpp deployment-http-server-ingress -n demo networkenforcer.kubewarden.io/promote=protect");
    assertThat(KubectlCommands.forPolicy("demo", "deployment-http-server-ingress", Mode.monitor))
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.purpose()).isEqualTo("switch to protect");
              assertThat(c.command())
                  .isEqualTo(
                      "kubectl patch wnp deployment-http-server-ingress -n demo --type merge "
                          + "-p '{\"spec\":{\"mode\":\"protect\"}}'");
            });
    assertThat(KubectlCommands.forPolicy("demo", "p", Mode.protect).get(0).command())
        .endsWith("'{\"spec\":{\"mode\":\"monitor\"}}'");
    assertThat(KubectlCommands.acknowledge("demo", "deployment-http-server-ingress", 7).command())
        .isEqualTo(
            "kubectl annotate wnp deployment-http-server-ingress -n demo "
                + "networkenforcer.kubewarden.io/acknowledge-7=\"<reason>\"");
  }
}
