package io.kubewarden.networkenforcer.common.evaluation;

import static io.kubewarden.networkenforcer.common.evaluation.Decision.ALLOWED;
import static io.kubewarden.networkenforcer.common.evaluation.Decision.DENIED;
import static io.kubewarden.networkenforcer.common.evaluation.Decision.NOT_SELECTED;
import static io.kubewarden.networkenforcer.common.evaluation.Decision.UNDETERMINED;
import static io.kubewarden.networkenforcer.common.evaluation.Endpoints.pod;
import static io.kubewarden.networkenforcer.common.evaluation.Endpoints.podWithIp;
import static io.kubewarden.networkenforcer.common.evaluation.Endpoints.podWithPorts;
import static io.kubewarden.networkenforcer.common.evaluation.Endpoints.tcp;
import static io.kubewarden.networkenforcer.common.flow.Protocol.TCP;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicySpec;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.common.policy.Direction;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Where a NetworkPolicy and the CiliumNetworkPolicy written like it (as {@link
 * NetworkPolicyToCilium} writes it) get different decisions: the cases {@code
 * CiliumNetworkPolicyDifferentialTest} leaves out on purpose, each pinned here with both answers.
 */
class CiliumNetworkPolicyDifferencesTest {

  static Stream<Arguments> differences() {
    return Stream.of(
        row(
            "ipBlock matches a pod's address, Cilium's CIDR rules only ends outside the cluster",
            """
            podSelector: {matchLabels: {app: web}}
            ingress:
            - from: [{ipBlock: {cidr: 10.244.0.0/16}}]
            """,
            """
            endpointSelector: {matchLabels: {app: web}}
            ingress:
            - fromCIDR: [10.244.0.0/16]
            """,
            Direction.Ingress,
            podWithIp("10.244.1.5", "alice", "app", "client"),
            pod("prod", "app", "web"),
            ALLOWED,
            DENIED),
        row(
            "a named port: resolved against the pod's ports, not by the Cilium evaluator",
            """
            podSelector: {matchLabels: {app: web}}
            policyTypes: [Egress]
            egress:
            - to: [{podSelector: {matchLabels: {app: cache}}}]
              ports: [{port: redis}]
            """,
            """
            endpointSelector: {matchLabels: {app: web}}
            egress:
            - toEndpoints: [{matchLabels: {app: cache}}]
              toPorts:
              - ports: [{port: redis, protocol: TCP}]
            """,
            Direction.Egress,
            pod("prod", "app", "web"),
            podWithPorts(List.of(tcp("redis", 6379)), "prod", "app", "cache"),
            ALLOWED,
            UNDETERMINED),
        row(
            "a direction outside policyTypes: a CiliumPolicy is evaluated for its target's"
                + " direction only, so a missing section reads as default deny",
            """
            podSelector: {matchLabels: {app: web}}
            policyTypes: [Egress]
            egress:
            - to: [{podSelector: {}}]
            """,
            """
            endpointSelector: {matchLabels: {app: web}}
            egress:
            - toEndpoints: [{}]
            """,
            Direction.Ingress,
            pod("prod", "app", "client"),
            pod("prod", "app", "web"),
            NOT_SELECTED,
            DENIED),
        row(
            "namespace labels without the namespace key: Cilium stays in the policy's namespace",
            """
            podSelector: {matchLabels: {app: web}}
            ingress:
            - from: [{namespaceSelector: {matchLabels: {user: alice}}}]
            """,
            """
            endpointSelector: {matchLabels: {app: web}}
            ingress:
            - fromEndpoints:
              - matchLabels: {k8s:io.cilium.k8s.namespace.labels.user: alice}
            """,
            Direction.Ingress,
            pod("alice", "app", "client"),
            pod("prod", "app", "web"),
            ALLOWED,
            DENIED));
  }

  private static Arguments row(
      String name,
      String networkPolicy,
      String ciliumPolicy,
      Direction direction,
      FlowEndpoint src,
      FlowEndpoint dst,
      Decision kubernetes,
      Decision cilium) {
    return Arguments.of(
        Named.of(name, networkPolicy), ciliumPolicy, direction, src, dst, kubernetes, cilium);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("differences")
  void differs(
      String networkPolicy,
      String ciliumPolicy,
      Direction direction,
      FlowEndpoint src,
      FlowEndpoint dst,
      Decision kubernetes,
      Decision cilium) {
    assertThat(
            NetworkPolicyEvaluator.evaluate(
                networkPolicy(networkPolicy), direction, src, dst, TCP, 6379))
        .isEqualTo(kubernetes);
    assertThat(
            CiliumPolicyEvaluator.evaluate(
                CiliumPolicyEvaluatorTest.policy(ciliumPolicy), direction, src, dst, TCP, 6379))
        .isEqualTo(cilium);
  }

  private static NetworkPolicySpec networkPolicy(String yaml) {
    try {
      return Json.yaml().readValue(yaml, NetworkPolicySpec.class);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
