package io.kubewarden.networkenforcer.common.evaluation;

import static io.kubewarden.networkenforcer.common.evaluation.Decision.ALLOWED;
import static io.kubewarden.networkenforcer.common.evaluation.Decision.DENIED;
import static io.kubewarden.networkenforcer.common.evaluation.Decision.NOT_SELECTED;
import static io.kubewarden.networkenforcer.common.evaluation.Decision.UNDETERMINED;
import static io.kubewarden.networkenforcer.common.evaluation.Endpoints.pod;
import static io.kubewarden.networkenforcer.common.flow.Protocol.TCP;
import static io.kubewarden.networkenforcer.common.flow.Protocol.UDP;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.kubewarden.networkenforcer.common.crd.CiliumPolicy;
import io.kubewarden.networkenforcer.common.flow.ExternalEndpoint;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.common.policy.Direction;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Table of the CiliumNetworkPolicy subset: selectors, namespaces, CIDRs, DNS names, ports. */
class CiliumPolicyEvaluatorTest {

  /** What `learn --backend cilium` renders for an egress target: a peer, a name, an address. */
  static final String EGRESS =
      """
      endpointSelector: {matchLabels: {app: web}}
      egress:
      - toEndpoints:
        - matchLabels: {app: db, k8s:io.kubernetes.pod.namespace: data}
        toPorts:
        - ports: [{port: "5432", protocol: TCP}]
      - toEndpoints:
        - matchLabels: {app: cache}
        toPorts:
        - ports: [{port: "6379", protocol: TCP}]
      - toFQDNs:
        - matchName: api.example.com
        toPorts:
        - ports: [{port: "443", protocol: TCP}]
      - toCIDR: [198.51.100.7/32]
        toPorts:
        - ports: [{port: "22", protocol: TCP}]
      - toEndpoints:
        - matchLabels: {k8s:io.kubernetes.pod.namespace: kube-system, k8s:k8s-app: kube-dns}
        toPorts:
        - ports: [{port: "53", protocol: UDP}, {port: "53", protocol: TCP}]
          rules:
            dns: [{matchPattern: "*"}]
      """;

  static final String INGRESS =
      """
      endpointSelector: {matchLabels: {k8s:app: web}}
      ingress:
      - fromEndpoints:
        - matchLabels: {app: client, k8s:io.kubernetes.pod.namespace: alice}
        toPorts:
        - ports: [{port: "8080"}]
      - fromCIDRSet:
        - cidr: 0.0.0.0/0
          except: [10.0.0.0/8]
        toPorts:
        - ports: [{port: "443", protocol: TCP}]
      """;

  static final String WIDENED_PATTERN =
      """
      endpointSelector: {matchLabels: {app: web}}
      egress:
      - toFQDNs:
        - matchPattern: "*.example.com"
        toPorts:
        - ports: [{port: "443", protocol: TCP}]
      """;

  static final String NO_RULES =
      """
      endpointSelector: {matchLabels: {app: web}}
      """;

  static final String NAMED_PORT =
      """
      endpointSelector: {matchLabels: {app: web}}
      egress:
      - toEndpoints: [{matchLabels: {app: cache}}]
        toPorts:
        - ports: [{port: redis, protocol: TCP}]
      """;

  /** A range (a reviewer widened 8080 to 8080-8089), and an endPort below its port: 9000 only. */
  static final String PORT_RANGE =
      """
      endpointSelector: {matchLabels: {app: web}}
      egress:
      - toEndpoints: [{matchLabels: {app: cache}}]
        toPorts:
        - ports: [{port: "8080", endPort: 8089, protocol: TCP}, {port: "9000", endPort: 10}]
      """;

  /** Port 0: every UDP port, so a flow whose port the record does not know as well. */
  static final String EVERY_UDP_PORT =
      """
      endpointSelector: {matchLabels: {app: web}}
      egress:
      - toEndpoints: [{matchLabels: {app: cache}}]
        toPorts:
        - ports: [{port: "0", protocol: UDP}]
      """;

  /** Entities: anywhere outside the cluster on 443 out, the cluster's pods on 8080 in. */
  static final String ENTITIES =
      """
      endpointSelector: {matchLabels: {app: web}}
      egress:
      - toEntities: [world]
        toPorts:
        - ports: [{port: "443", protocol: TCP}]
      - toEntities: [kube-apiserver, host]
        toPorts:
        - ports: [{port: "8443", protocol: TCP}]
      ingress:
      - fromEntities: [cluster]
        toPorts:
        - ports: [{port: "8080", protocol: TCP}]
      - fromEntities: [all]
        toPorts:
        - ports: [{port: "9090", protocol: TCP}]
      """;

  static final FlowEndpoint WEB = pod("prod", "app", "web");

  static FlowEndpoint named(String ip, String... names) {
    return FlowEndpoint.outsideCluster(ip, ExternalEndpoint.of(List.of(names)));
  }

  static Stream<Arguments> cases() {
    return Stream.of(
        row(
            "peer in its namespace",
            EGRESS,
            Direction.Egress,
            WEB,
            pod("data", "app", "db"),
            TCP,
            5432,
            ALLOWED),
        row(
            "peer in another namespace",
            EGRESS,
            Direction.Egress,
            WEB,
            pod("prod", "app", "db"),
            TCP,
            5432,
            DENIED),
        row(
            "peer's port only",
            EGRESS,
            Direction.Egress,
            WEB,
            pod("data", "app", "db"),
            TCP,
            5433,
            DENIED),
        row(
            "peer's protocol only",
            EGRESS,
            Direction.Egress,
            WEB,
            pod("data", "app", "db"),
            UDP,
            5432,
            DENIED),
        row(
            "no namespace key: the policy's namespace",
            EGRESS,
            Direction.Egress,
            WEB,
            pod("prod", "app", "cache"),
            TCP,
            6379,
            ALLOWED),
        row(
            "no namespace key, other namespace",
            EGRESS,
            Direction.Egress,
            WEB,
            pod("alice", "app", "cache"),
            TCP,
            6379,
            DENIED),
        row(
            "first address of the name",
            EGRESS,
            Direction.Egress,
            WEB,
            named("203.0.113.10", "api.example.com"),
            TCP,
            443,
            ALLOWED),
        row(
            "next address of the name",
            EGRESS,
            Direction.Egress,
            WEB,
            named("203.0.113.99", "api.example.com"),
            TCP,
            443,
            ALLOWED),
        row(
            "name, other port",
            EGRESS,
            Direction.Egress,
            WEB,
            named("203.0.113.10", "api.example.com"),
            TCP,
            80,
            DENIED),
        row(
            "another name",
            EGRESS,
            Direction.Egress,
            WEB,
            named("203.0.113.10", "evil.example.com"),
            TCP,
            443,
            DENIED),
        row(
            "an address with no name",
            EGRESS,
            Direction.Egress,
            WEB,
            named("203.0.113.10"),
            TCP,
            443,
            DENIED),
        row(
            "one of several names",
            EGRESS,
            Direction.Egress,
            WEB,
            named("203.0.113.10", "cdn.example.net", "api.example.com"),
            TCP,
            443,
            ALLOWED),
        row(
            "toCIDR address",
            EGRESS,
            Direction.Egress,
            WEB,
            named("198.51.100.7"),
            TCP,
            22,
            ALLOWED),
        row(
            "toCIDR other address",
            EGRESS,
            Direction.Egress,
            WEB,
            named("198.51.100.8"),
            TCP,
            22,
            DENIED),
        row(
            "toCIDR never matches a pod",
            EGRESS,
            Direction.Egress,
            WEB,
            Endpoints.podWithIp("198.51.100.7", "prod", "app", "x"),
            TCP,
            22,
            DENIED),
        row(
            "DNS to kube-dns over UDP",
            EGRESS,
            Direction.Egress,
            WEB,
            pod("kube-system", "k8s-app", "kube-dns"),
            UDP,
            53,
            ALLOWED),
        row(
            "DNS to kube-dns over TCP",
            EGRESS,
            Direction.Egress,
            WEB,
            pod("kube-system", "k8s-app", "kube-dns"),
            TCP,
            53,
            ALLOWED),
        row(
            "unknown port",
            EGRESS,
            Direction.Egress,
            WEB,
            pod("data", "app", "db"),
            TCP,
            0,
            UNDETERMINED),
        row(
            "other pod: not selected",
            EGRESS,
            Direction.Egress,
            pod("prod", "app", "api"),
            pod("data", "app", "db"),
            TCP,
            5432,
            NOT_SELECTED),
        row(
            "k8s: prefix in endpointSelector",
            INGRESS,
            Direction.Ingress,
            pod("alice", "app", "client"),
            WEB,
            TCP,
            8080,
            ALLOWED),
        row(
            "no protocol: any",
            INGRESS,
            Direction.Ingress,
            pod("alice", "app", "client"),
            WEB,
            UDP,
            8080,
            ALLOWED),
        row(
            "ingress from another namespace",
            INGRESS,
            Direction.Ingress,
            pod("bob", "app", "client"),
            WEB,
            TCP,
            8080,
            DENIED),
        row("fromCIDRSet", INGRESS, Direction.Ingress, named("192.0.2.1"), WEB, TCP, 443, ALLOWED),
        row(
            "fromCIDRSet except",
            INGRESS,
            Direction.Ingress,
            named("10.1.2.3"),
            WEB,
            TCP,
            443,
            DENIED),
        row(
            "pattern, one label",
            WIDENED_PATTERN,
            Direction.Egress,
            WEB,
            named("203.0.113.1", "eu.example.com"),
            TCP,
            443,
            ALLOWED),
        row(
            "pattern, two labels",
            WIDENED_PATTERN,
            Direction.Egress,
            WEB,
            named("203.0.113.1", "a.eu.example.com"),
            TCP,
            443,
            DENIED),
        row(
            "pattern, the bare name",
            WIDENED_PATTERN,
            Direction.Egress,
            WEB,
            named("203.0.113.1", "example.com"),
            TCP,
            443,
            DENIED),
        row(
            "no rules: default deny",
            NO_RULES,
            Direction.Egress,
            WEB,
            pod("prod", "app", "cache"),
            TCP,
            6379,
            DENIED),
        row(
            "world: an address outside the cluster",
            ENTITIES,
            Direction.Egress,
            WEB,
            named("203.0.113.1"),
            TCP,
            443,
            ALLOWED),
        row(
            "world: not a pod",
            ENTITIES,
            Direction.Egress,
            WEB,
            pod("data", "app", "db"),
            TCP,
            443,
            DENIED),
        row(
            "kube-apiserver, host: not an address outside",
            ENTITIES,
            Direction.Egress,
            WEB,
            named("203.0.113.1"),
            TCP,
            8443,
            DENIED),
        row(
            "kube-apiserver, host: not a pod",
            ENTITIES,
            Direction.Egress,
            WEB,
            pod("kube-system", "component", "kube-apiserver"),
            TCP,
            8443,
            DENIED),
        row(
            "cluster: a pod of any namespace",
            ENTITIES,
            Direction.Ingress,
            pod("other", "app", "anything"),
            WEB,
            TCP,
            8080,
            ALLOWED),
        row(
            "cluster: not an address outside",
            ENTITIES,
            Direction.Ingress,
            named("203.0.113.1"),
            WEB,
            TCP,
            8080,
            DENIED),
        row(
            "all: an address outside too",
            ENTITIES,
            Direction.Ingress,
            named("203.0.113.1"),
            WEB,
            TCP,
            9090,
            ALLOWED),
        row(
            "port 0 allows an unknown port",
            EVERY_UDP_PORT,
            Direction.Egress,
            WEB,
            pod("prod", "app", "cache"),
            UDP,
            0,
            ALLOWED),
        row(
            "port 0 of UDP, an unknown TCP port",
            EVERY_UDP_PORT,
            Direction.Egress,
            WEB,
            pod("prod", "app", "cache"),
            TCP,
            0,
            DENIED),
        row(
            "port range: its first port",
            PORT_RANGE,
            Direction.Egress,
            WEB,
            pod("prod", "app", "cache"),
            TCP,
            8080,
            ALLOWED),
        row(
            "port range: its last port",
            PORT_RANGE,
            Direction.Egress,
            WEB,
            pod("prod", "app", "cache"),
            TCP,
            8089,
            ALLOWED),
        row(
            "port range: just past it",
            PORT_RANGE,
            Direction.Egress,
            WEB,
            pod("prod", "app", "cache"),
            TCP,
            8090,
            DENIED),
        row(
            "port range: another protocol",
            PORT_RANGE,
            Direction.Egress,
            WEB,
            pod("prod", "app", "cache"),
            UDP,
            8085,
            DENIED),
        row(
            "endPort below port: the port alone",
            PORT_RANGE,
            Direction.Egress,
            WEB,
            pod("prod", "app", "cache"),
            UDP,
            9000,
            ALLOWED),
        row(
            "endPort below port: nothing below it",
            PORT_RANGE,
            Direction.Egress,
            WEB,
            pod("prod", "app", "cache"),
            TCP,
            10,
            DENIED),
        row(
            "named port",
            NAMED_PORT,
            Direction.Egress,
            WEB,
            pod("prod", "app", "cache"),
            TCP,
            6379,
            UNDETERMINED));
  }

  private static Arguments row(
      String name,
      String policy,
      Direction direction,
      FlowEndpoint src,
      FlowEndpoint dst,
      Protocol protocol,
      int port,
      Decision expected) {
    return Arguments.of(Named.of(name, policy), direction, src, dst, protocol, port, expected);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void evaluates(
      String policy,
      Direction direction,
      FlowEndpoint src,
      FlowEndpoint dst,
      Protocol protocol,
      int port,
      Decision expected) {
    assertThat(CiliumPolicyEvaluator.evaluate(policy(policy), direction, src, dst, protocol, port))
        .isEqualTo(expected);
  }

  static CiliumPolicy policy(String yaml) {
    try {
      return Json.yaml().readValue(yaml, CiliumPolicy.class);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
