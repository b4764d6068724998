package io.kubewarden.networkenforcer.processor.learning;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.common.policy.Backend;
import io.kubewarden.networkenforcer.common.policy.Direction;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The CiliumNetworkPolicy spec of learned allow-lists that no sample capture holds. */
class CiliumRenderingTest {

  private static SortedMap<String, LearnedPort> ports(Protocol protocol, int... numbers) {
    SortedMap<String, LearnedPort> out = new TreeMap<>();
    for (int n : numbers) {
      LearnedPort p = new LearnedPort(protocol, n);
      out.put(p.key(), p);
    }
    return out;
  }

  @Test
  void ingressFromOutsideIsCidrsAndSelectorsKeepTheirExpressions() throws Exception {
    SortedMap<String, LearnedPeer> peers = new TreeMap<>();
    peers.put(
        "203.0.113.9/32",
        new LearnedPeer(
            null,
            null,
            ports(Protocol.TCP, 443),
            List.of(new LearnedIpBlock("203.0.113.9/32", List.of())),
            new TreeSet<>(List.of("client.example.org"))));
    peers.put(
        ExternalPeerRule.OUTSIDE_KEY,
        new LearnedPeer(
            null,
            null,
            ports(Protocol.TCP, 80),
            List.of(new LearnedIpBlock("0.0.0.0/0", List.of("10.0.0.0/8"))),
            null));
    peers.put(
        "shop/Deployment/web",
        new LearnedPeer(
            "shop",
            new LabelSelectorBuilder()
                .withMatchLabels(Map.of("app", "web"))
                .withMatchExpressions(new LabelSelectorRequirement("tier", "In", List.of("front")))
                .build(),
            ports(Protocol.UDP, 8125)));
    LearnedAllowList state =
        new LearnedAllowList(
            Backend.cilium,
            new LabelSelectorBuilder().withMatchLabels(Map.of("app", "api")).build(),
            peers,
            false);

    CiliumRendering.Rendered rendered = CiliumRendering.render(Direction.Ingress, state);

    // Ingress from outside stays an address even with a name: toFQDNs is egress only.
    JsonNode spec = Json.mapper().valueToTree(rendered.policy());
    assertThat(spec)
        .isEqualTo(
            Json.mapper()
                .readTree(
                    """
        {"endpointSelector":{"matchLabels":{"app":"api"}},
         "ingress":[
          {"fromCIDR":["203.0.113.9/32"],"toPorts":[{"ports":[{"port":"443","protocol":"TCP"}]}]},
          {"fromCIDRSet":[{"cidr":"0.0.0.0/0","except":["10.0.0.0/8"]}],
           "toPorts":[{"ports":[{"port":"80","protocol":"TCP"}]}]},
          {"fromEndpoints":[{"matchExpressions":[{"key":"tier","operator":"In","values":["front"]}],
                             "matchLabels":{"app":"web","k8s:io.kubernetes.pod.namespace":"shop"}}],
           "toPorts":[{"ports":[{"port":"8125","protocol":"UDP"}]}]}]}"""));
    assertThat(rendered.ruleOfPeer())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("203.0.113.9/32", 0, ExternalPeerRule.OUTSIDE_KEY, 1, "shop/Deployment/web", 2));
  }

  @Test
  void namesOfEqualPortsShareARuleAndEachPortSetHasItsOwn() throws Exception {
    SortedMap<String, LearnedPeer> peers = new TreeMap<>();
    peers.put(
        "dns:api.example.com",
        new LearnedPeer(
            null,
            null,
            ports(Protocol.TCP, 443),
            List.of(new LearnedIpBlock("203.0.113.1/32", List.of())),
            new TreeSet<>(List.of("api.example.com"))));
    peers.put(
        "dns:auth.example.com",
        new LearnedPeer(
            null,
            null,
            ports(Protocol.TCP, 443),
            List.of(new LearnedIpBlock("203.0.113.2/32", List.of())),
            new TreeSet<>(List.of("auth.example.com"))));
    peers.put(
        "dns:smtp.example.com",
        new LearnedPeer(
            null,
            null,
            ports(Protocol.TCP, 587),
            List.of(new LearnedIpBlock("203.0.113.3/32", List.of())),
            new TreeSet<>(List.of("smtp.example.com"))));
    LearnedAllowList state =
        new LearnedAllowList(
            Backend.cilium,
            new LabelSelectorBuilder().withMatchLabels(Map.of("app", "api")).build(),
            peers,
            false);

    CiliumRendering.Rendered rendered = CiliumRendering.render(Direction.Egress, state);

    JsonNode egress = Json.mapper().valueToTree(rendered.policy()).get("egress");
    assertThat(egress).hasSize(3);
    assertThat(egress.get(0))
        .isEqualTo(
            Json.mapper()
                .readTree(
                    """
        {"toFQDNs":[{"matchName":"api.example.com"},{"matchName":"auth.example.com"}],
         "toPorts":[{"ports":[{"port":"443","protocol":"TCP"}]}]}"""));
    assertThat(egress.get(1).get("toFQDNs").toString())
        .isEqualTo("[{\"matchName\":\"smtp.example.com\"}]");
    assertThat(Json.mapper().treeToValue(egress.get(2), Object.class))
        .isEqualTo(Json.mapper().convertValue(CiliumRendering.dnsRule(), Object.class));
    assertThat(rendered.ruleOfPeer())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("dns:api.example.com", 0, "dns:auth.example.com", 0, "dns:smtp.example.com", 1));
  }

  private static LearnedPeer workload(
      String namespace, Map<String, String> labels, SortedMap<String, LearnedPort> ports) {
    return new LearnedPeer(
        namespace, new LabelSelectorBuilder().withMatchLabels(labels).build(), ports);
  }

  private static LearnedPeer named(String name, int port) {
    return new LearnedPeer(
        null,
        null,
        ports(Protocol.TCP, port),
        List.of(new LearnedIpBlock("203.0.113.1/32", List.of())),
        new TreeSet<>(List.of(name)));
  }

  private static LearnedAllowList egress(SortedMap<String, LearnedPeer> peers) {
    return new LearnedAllowList(
        Backend.cilium,
        new LabelSelectorBuilder().withMatchLabels(Map.of("app", "api")).build(),
        peers,
        false);
  }

  @Test
  void theLearnedClusterDnsIsAllowedByTheDnsRuleNotBySecondRule() throws Exception {
    SortedMap<String, LearnedPeer> peers = new TreeMap<>();
    peers.put(
        "demo/Deployment/db", workload("demo", Map.of("app", "db"), ports(Protocol.TCP, 5432)));
    peers.put("dns:api.example.com", named("api.example.com", 443));
    peers.put(
        "kube-system/Deployment/coredns",
        workload("kube-system", Map.of("k8s-app", "kube-dns"), ports(Protocol.UDP, 53)));

    CiliumRendering.Rendered rendered = CiliumRendering.render(Direction.Egress, egress(peers));

    JsonNode egress = Json.mapper().valueToTree(rendered.policy()).get("egress");
    assertThat(egress).hasSize(3);
    assertThat(egress.get(0).get("toEndpoints").toString())
        .isEqualTo(
            "[{\"matchLabels\":{\"app\":\"db\",\"k8s:io.kubernetes.pod.namespace\":\"demo\"}}]");
    assertThat(egress.get(1).get("toFQDNs").toString())
        .isEqualTo("[{\"matchName\":\"api.example.com\"}]");
    assertThat(Json.mapper().treeToValue(egress.get(2), Object.class))
        .isEqualTo(Json.mapper().convertValue(CiliumRendering.dnsRule(), Object.class));
    // The DNS peer's evidence is on the DNS rule.
    assertThat(rendered.ruleOfPeer())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "demo/Deployment/db", 0,
                "dns:api.example.com", 1,
                "kube-system/Deployment/coredns", 2));
  }

  @Test
  void theClusterDnsKeepsItsRuleWithoutANameOrWithAnotherPort() throws Exception {
    SortedMap<String, LearnedPeer> withoutName = new TreeMap<>();
    withoutName.put(
        "kube-system/Deployment/coredns",
        workload("kube-system", Map.of("k8s-app", "kube-dns"), ports(Protocol.UDP, 53)));

    JsonNode alone =
        Json.mapper()
            .valueToTree(CiliumRendering.render(Direction.Egress, egress(withoutName)).policy())
            .get("egress");
    // No name, no DNS rule: the learned rule is the only one.
    assertThat(alone.toString())
        .isEqualTo(
            "[{\"toEndpoints\":[{\"matchLabels\":{\"k8s-app\":\"kube-dns\","
                + "\"k8s:io.kubernetes.pod.namespace\":\"kube-system\"}}],"
                + "\"toPorts\":[{\"ports\":[{\"port\":\"53\",\"protocol\":\"UDP\"}]}]}]");

    SortedMap<String, LearnedPeer> withMetrics = new TreeMap<>();
    SortedMap<String, LearnedPort> dnsAndMetrics = ports(Protocol.UDP, 53);
    dnsAndMetrics.putAll(ports(Protocol.TCP, 9153));
    withMetrics.put(
        "kube-system/Deployment/coredns",
        workload("kube-system", Map.of("k8s-app", "kube-dns"), dnsAndMetrics));
    withMetrics.put("dns:api.example.com", named("api.example.com", 443));
    // Other pods of kube-system, or the same label elsewhere, are not the cluster DNS.
    withMetrics.put(
        "tools/Deployment/resolver",
        workload("tools", Map.of("k8s-app", "kube-dns"), ports(Protocol.UDP, 53)));

    CiliumRendering.Rendered rendered =
        CiliumRendering.render(Direction.Egress, egress(withMetrics));
    JsonNode egress = Json.mapper().valueToTree(rendered.policy()).get("egress");
    assertThat(egress).hasSize(4);
    assertThat(egress.get(0).get("toPorts").toString())
        .isEqualTo(
            "[{\"ports\":[{\"port\":\"9153\",\"protocol\":\"TCP\"},"
                + "{\"port\":\"53\",\"protocol\":\"UDP\"}]}]");
    assertThat(rendered.ruleOfPeer())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "kube-system/Deployment/coredns", 0,
                "tools/Deployment/resolver", 1,
                "dns:api.example.com", 2));
  }

  @Test
  void withEntitiesTheWidenedPeerIsWorldAndAddressesStayCidrs() throws Exception {
    SortedMap<String, LearnedPeer> peers = new TreeMap<>();
    peers.put(
        "203.0.113.9/32",
        new LearnedPeer(
            null,
            null,
            ports(Protocol.TCP, 22),
            List.of(new LearnedIpBlock("203.0.113.9/32", List.of())),
            new TreeSet<>()));
    peers.put(
        ExternalPeerRule.OUTSIDE_KEY,
        new LearnedPeer(
            null,
            null,
            ports(Protocol.TCP, 443),
            List.of(
                new LearnedIpBlock("0.0.0.0/0", List.of()), new LearnedIpBlock("::/0", List.of())),
            new TreeSet<>()));
    LearnedAllowList state = egress(peers);

    CiliumRendering.Rendered egress = CiliumRendering.render(Direction.Egress, state, true);
    assertThat(Json.mapper().valueToTree(egress.policy()).get("egress"))
        .isEqualTo(
            Json.mapper()
                .readTree(
                    """
        [{"toCIDR":["203.0.113.9/32"],"toPorts":[{"ports":[{"port":"22","protocol":"TCP"}]}]},
         {"toEntities":["world"],"toPorts":[{"ports":[{"port":"443","protocol":"TCP"}]}]}]"""));
    assertThat(egress.ruleOfPeer())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("203.0.113.9/32", 0, ExternalPeerRule.OUTSIDE_KEY, 1));

    CiliumRendering.Rendered ingress = CiliumRendering.render(Direction.Ingress, state, true);
    assertThat(Json.mapper().valueToTree(ingress.policy()).get("ingress").get(1))
        .isEqualTo(
            Json.mapper()
                .readTree(
                    """
        {"fromEntities":["world"],"toPorts":[{"ports":[{"port":"443","protocol":"TCP"}]}]}"""));

    // Without the option: the CIDRs, as before.
    assertThat(
            Json.mapper()
                .valueToTree(CiliumRendering.render(Direction.Egress, state).policy())
                .get("egress")
                .get(1)
                .get("toCIDR")
                .toString())
        .isEqualTo("[\"0.0.0.0/0\",\"::/0\"]");
  }
}
