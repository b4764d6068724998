package io.kubewarden.networkenforcer.common.evaluation;

import static io.kubewarden.networkenforcer.common.evaluation.Decision.ALLOWED;
import static io.kubewarden.networkenforcer.common.evaluation.Decision.DENIED;
import static io.kubewarden.networkenforcer.common.evaluation.Decision.NOT_SELECTED;
import static io.kubewarden.networkenforcer.common.evaluation.Decision.UNDETERMINED;
import static io.kubewarden.networkenforcer.common.evaluation.Endpoints.external;
import static io.kubewarden.networkenforcer.common.evaluation.Endpoints.pod;
import static io.kubewarden.networkenforcer.common.evaluation.Endpoints.podWithIp;
import static io.kubewarden.networkenforcer.common.evaluation.Endpoints.podWithPorts;
import static io.kubewarden.networkenforcer.common.evaluation.Endpoints.podWithoutNamedPorts;
import static io.kubewarden.networkenforcer.common.evaluation.Endpoints.tcp;
import static io.kubewarden.networkenforcer.common.evaluation.Endpoints.udp;
import static io.kubewarden.networkenforcer.common.flow.Protocol.SCTP;
import static io.kubewarden.networkenforcer.common.flow.Protocol.TCP;
import static io.kubewarden.networkenforcer.common.flow.Protocol.UDP;
import static io.kubewarden.networkenforcer.common.policy.Direction.Egress;
import static io.kubewarden.networkenforcer.common.policy.Direction.Ingress;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicySpec;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicySpecBuilder;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.common.policy.Direction;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Table of NetworkPolicy semantics: every rule with an allowed and a denied (or not selected) case.
 * Policies are written as the YAML a user would put under {@code spec.kubernetes}; the cluster is
 * described in {@link Endpoints}.
 */
class NetworkPolicyEvaluatorTest {

  // --- policies -------------------------------------------------------------------------------

  /** The documentation's "test-network-policy" (in namespace default). */
  static final String DOCS_EXAMPLE =
      """
      podSelector:
        matchLabels: {role: db}
      policyTypes: [Ingress, Egress]
      ingress:
      - from:
        - ipBlock:
            cidr: 172.17.0.0/16
            except: [172.17.1.0/24]
        - namespaceSelector:
            matchLabels: {project: myproject}
        - podSelector:
            matchLabels: {role: frontend}
        ports:
        - {protocol: TCP, port: 6379}
      egress:
      - to:
        - ipBlock: {cidr: 10.0.0.0/24}
        ports:
        - {protocol: TCP, port: 5978}
      """;

  /**
   * Documentation: namespaceSelector and podSelector in ONE peer = client pods in alice's
   * namespaces.
   */
  static final String ONE_PEER_AND =
      """
      podSelector: {matchLabels: {role: db}}
      policyTypes: [Ingress]
      ingress:
      - from:
        - namespaceSelector: {matchLabels: {user: alice}}
          podSelector: {matchLabels: {role: client}}
      """;

  /**
   * Documentation: the same selectors as TWO peers = any pod in alice's namespaces OR client pods
   * here.
   */
  static final String TWO_PEERS_OR =
      """
      podSelector: {matchLabels: {role: db}}
      policyTypes: [Ingress]
      ingress:
      - from:
        - namespaceSelector: {matchLabels: {user: alice}}
        - podSelector: {matchLabels: {role: client}}
      """;

  static final String DEFAULT_DENY_INGRESS =
      """
      podSelector: {}
      policyTypes: [Ingress]
      """;

  static final String ALLOW_ALL_INGRESS =
      """
      podSelector: {}
      ingress:
      - {}
      policyTypes: [Ingress]
      """;

  static final String DEFAULT_DENY_EGRESS =
      """
      podSelector: {}
      policyTypes: [Egress]
      """;

  static final String ALLOW_ALL_EGRESS =
      """
      podSelector: {}
      egress:
      - {}
      policyTypes: [Egress]
      """;

  static final String DEFAULT_DENY_ALL =
      """
      podSelector: {}
      policyTypes: [Ingress, Egress]
      """;

  /** Documentation's endPort example: egress to 10.0.0.0/24 on TCP 32000-32768. */
  static final String END_PORT_EXAMPLE =
      """
      podSelector: {matchLabels: {role: db}}
      policyTypes: [Egress]
      egress:
      - to:
        - ipBlock: {cidr: 10.0.0.0/24}
        ports:
        - {protocol: TCP, port: 32000, endPort: 32768}
      """;

  /** Documentation: target a namespace by its name through the immutable metadata.name label. */
  static final String BY_NAMESPACE_NAME =
      """
      podSelector: {matchLabels: {app: web}}
      policyTypes: [Ingress]
      ingress:
      - from:
        - namespaceSelector:
            matchLabels: {kubernetes.io/metadata.name: alice}
      """;

  static final String NO_POLICY_TYPES_INGRESS_ONLY =
      """
      podSelector: {matchLabels: {app: web}}
      ingress:
      - from:
        - podSelector: {matchLabels: {role: frontend}}
      """;

  static final String NO_POLICY_TYPES_WITH_EGRESS =
      """
      podSelector: {matchLabels: {app: web}}
      egress:
      - to:
        - podSelector: {matchLabels: {app: api}}
      """;

  static final String POLICY_TYPES_EGRESS_ONLY =
      """
      podSelector: {matchLabels: {app: web}}
      policyTypes: [Egress]
      ingress:
      - {}
      egress:
      - {}
      """;

  static final String BOTH_TYPES_NO_EGRESS_RULES =
      """
      podSelector: {matchLabels: {app: web}}
      policyTypes: [Ingress, Egress]
      ingress:
      - {}
      """;

  static final String ABSENT_POD_SELECTOR =
      """
      policyTypes: [Ingress]
      ingress:
      - from:
        - podSelector: {matchLabels: {role: frontend}}
      """;

  static final String EMPTY_INGRESS_LIST =
      """
      podSelector: {matchLabels: {app: web}}
      policyTypes: [Ingress]
      ingress: []
      """;

  static final String PORTS_ONLY_NO_FROM =
      """
      podSelector: {matchLabels: {app: web}}
      policyTypes: [Ingress]
      ingress:
      - ports:
        - {port: 80}
      """;

  static final String EMPTY_FROM_AND_PORTS =
      """
      podSelector: {matchLabels: {app: web}}
      policyTypes: [Ingress]
      ingress:
      - from: []
        ports: []
      """;

  static final String PEERS_ONLY_NO_PORTS =
      """
      podSelector: {matchLabels: {app: web}}
      policyTypes: [Ingress]
      ingress:
      - from:
        - podSelector: {matchLabels: {role: frontend}}
      """;

  static final String TWO_RULES =
      """
      podSelector: {matchLabels: {app: web}}
      policyTypes: [Ingress]
      ingress:
      - from:
        - podSelector: {matchLabels: {role: frontend}}
        ports:
        - {port: 80}
      - from:
        - podSelector: {matchLabels: {role: monitoring}}
        ports:
        - {port: 9090}
      """;

  static final String POD_SELECTOR_PEER =
      """
      podSelector: {matchLabels: {app: web}}
      policyTypes: [Ingress]
      ingress:
      - from:
        - podSelector: {matchLabels: {role: frontend}}
      """;

  static final String EMPTY_POD_SELECTOR_PEER =
      """
      podSelector: {matchLabels: {app: web}}
      policyTypes: [Ingress]
      ingress:
      - from:
        - podSelector: {}
      """;

  static final String NAMESPACE_SELECTOR_PEER =
      """
      podSelector: {matchLabels: {app: web}}
      policyTypes: [Ingress]
      ingress:
      - from:
        - namespaceSelector: {matchLabels: {project: myproject}}
      """;

  static final String EMPTY_NAMESPACE_SELECTOR_PEER =
      """
      podSelector: {matchLabels: {app: web}}
      policyTypes: [Ingress]
      ingress:
      - from:
        - namespaceSelector: {}
      """;

  static final String EMPTY_PEER =
      """
      podSelector: {matchLabels: {app: web}}
      policyTypes: [Ingress]
      ingress:
      - from:
        - {}
      """;

  static final String EXPRESSION_IN =
      """
      podSelector: {matchLabels: {app: web}}
      policyTypes: [Ingress]
      ingress:
      - from:
        - podSelector:
            matchExpressions:
            - {key: tier, operator: In, values: [frontend, edge]}
      """;

  static final String EXPRESSION_NOT_IN =
      """
      podSelector: {matchLabels: {app: web}}
      policyTypes: [Ingress]
      ingress:
      - from:
        - podSelector:
            matchExpressions:
            - {key: tier, operator: NotIn, values: [batch]}
      """;

  static final String EXPRESSION_EXISTS =
      """
      podSelector: {matchLabels: {app: web}}
      policyTypes: [Ingress]
      ingress:
      - from:
        - podSelector:
            matchExpressions:
            - {key: tier, operator: Exists}
      """;

  static final String EXPRESSION_DOES_NOT_EXIST =
      """
      podSelector: {matchLabels: {app: web}}
      policyTypes: [Ingress]
      ingress:
      - from:
        - podSelector:
            matchExpressions:
            - {key: quarantined, operator: DoesNotExist}
      """;

  static final String NAMESPACE_EXPRESSION_NOT_IN =
      """
      podSelector: {matchLabels: {app: web}}
      policyTypes: [Ingress]
      ingress:
      - from:
        - namespaceSelector:
            matchExpressions:
            - {key: env, operator: NotIn, values: [dev]}
      """;

  static final String LABELS_AND_EXPRESSIONS =
      """
      podSelector:
        matchLabels: {app: web}
        matchExpressions:
        - {key: track, operator: In, values: [stable]}
      policyTypes: [Ingress]
      ingress:
      - {}
      """;

  static final String IPV6_BLOCK =
      """
      podSelector: {matchLabels: {app: web}}
      policyTypes: [Ingress]
      ingress:
      - from:
        - ipBlock:
            cidr: 2001:db8::/32
            except: [2001:db8:1::/48]
      """;

  static final String INVALID_CIDR =
      """
      podSelector: {matchLabels: {app: web}}
      policyTypes: [Ingress]
      ingress:
      - from:
        - ipBlock: {cidr: 10.0.0.0/33}
      """;

  static final String DEFAULT_PROTOCOL =
      """
      podSelector: {matchLabels: {app: web}}
      policyTypes: [Ingress]
      ingress:
      - ports:
        - {port: 80}
      """;

  static final String UDP_PORT =
      """
      podSelector: {matchLabels: {app: web}}
      policyTypes: [Ingress]
      ingress:
      - ports:
        - {protocol: UDP, port: 53}
      """;

  static final String SCTP_PORT =
      """
      podSelector: {matchLabels: {app: web}}
      policyTypes: [Ingress]
      ingress:
      - ports:
        - {protocol: SCTP, port: 9000}
      """;

  static final String PROTOCOL_ONLY =
      """
      podSelector: {matchLabels: {app: web}}
      policyTypes: [Ingress]
      ingress:
      - ports:
        - {protocol: UDP}
      """;

  static final String NAMED_PORT =
      """
      podSelector: {matchLabels: {app: web}}
      policyTypes: [Ingress]
      ingress:
      - ports:
        - {port: http}
      """;

  static final String NAMED_UDP_PORT =
      """
      podSelector: {matchLabels: {app: web}}
      policyTypes: [Ingress]
      ingress:
      - ports:
        - {protocol: UDP, port: dns}
      """;

  static final String NAMED_PORT_OR_FRONTEND_ANY_PORT =
      """
      podSelector: {matchLabels: {app: web}}
      policyTypes: [Ingress]
      ingress:
      - ports:
        - {port: http}
      - from:
        - podSelector: {matchLabels: {role: frontend}}
      """;

  static final String EGRESS_NAMED_PORT =
      """
      podSelector: {matchLabels: {app: web}}
      policyTypes: [Egress]
      egress:
      - to:
        - podSelector: {matchLabels: {app: api}}
        ports:
        - {port: grpc}
      """;

  /** A named port with no peer restriction: only the port decides, and an external end has none. */
  static final String EGRESS_NAMED_PORT_ANY_PEER =
      """
      podSelector: {matchLabels: {app: web}}
      policyTypes: [Egress]
      egress:
      - ports:
        - {port: grpc}
      """;

  static final String FRONTEND_ON_80 =
      """
      podSelector: {matchLabels: {app: web}}
      policyTypes: [Ingress]
      ingress:
      - from:
        - podSelector: {matchLabels: {role: frontend}}
        ports:
        - {port: 80}
      """;

  static final String FRONTEND_ON_80_OR_MONITORING_ANY_PORT =
      """
      podSelector: {matchLabels: {app: web}}
      policyTypes: [Ingress]
      ingress:
      - from:
        - podSelector: {matchLabels: {role: frontend}}
        ports:
        - {port: 80}
      - from:
        - podSelector: {matchLabels: {role: monitoring}}
      """;

  static final String UDP_53_ONLY =
      """
      podSelector: {matchLabels: {app: web}}
      policyTypes: [Ingress]
      ingress:
      - ports:
        - {protocol: UDP, port: 53}
      """;

  static final String NUMERIC_STRING_PORT =
      """
      podSelector: {matchLabels: {app: web}}
      policyTypes: [Ingress]
      ingress:
      - ports:
        - {port: "8080"}
      """;

  static final String LOWERCASE_PROTOCOL =
      """
      podSelector: {matchLabels: {app: web}}
      policyTypes: [Ingress]
      ingress:
      - ports:
        - {protocol: tcp, port: 80}
      """;

  // --- endpoints --------------------------------------------------------------------------------

  static final FlowEndpoint DB = podWithIp("10.244.0.10", "default", "role", "db");
  static final FlowEndpoint WEB = pod("default", "app", "web");
  static final FlowEndpoint FRONTEND = pod("default", "role", "frontend");
  static final FlowEndpoint FRONTEND_IN_BOB = pod("bob", "role", "frontend");
  static final FlowEndpoint MONITORING = pod("default", "role", "monitoring");
  static final FlowEndpoint OTHER = pod("default", "role", "other");
  static final FlowEndpoint PROD_POD = pod("prod", "app", "anything");
  static final FlowEndpoint BOB_POD = pod("bob", "app", "anything");
  static final FlowEndpoint ALICE_CLIENT = pod("alice", "role", "client");
  static final FlowEndpoint ALICE_OTHER = pod("alice", "role", "other");
  static final FlowEndpoint BOB_CLIENT = pod("bob", "role", "client");
  static final FlowEndpoint DEFAULT_CLIENT = pod("default", "role", "client");
  static final FlowEndpoint API = pod("default", "app", "api");

  static Stream<Arguments> cases() {
    return Stream.of(
        // podSelector of the spec and policyTypes
        c(
            "podSelector selects the ingress destination",
            ALLOW_ALL_INGRESS,
            Ingress,
            OTHER,
            WEB,
            TCP,
            80,
            ALLOWED),
        c(
            "podSelector does not select the ingress destination",
            DOCS_EXAMPLE,
            Ingress,
            FRONTEND,
            WEB,
            TCP,
            6379,
            NOT_SELECTED),
        c(
            "podSelector selects the egress source",
            DOCS_EXAMPLE,
            Egress,
            DB,
            external("10.0.0.7"),
            TCP,
            5978,
            ALLOWED),
        c(
            "podSelector does not select the egress source",
            DOCS_EXAMPLE,
            Egress,
            WEB,
            external("10.0.0.7"),
            TCP,
            5978,
            NOT_SELECTED),
        c(
            "podSelector matchLabels + matchExpressions both hold",
            LABELS_AND_EXPRESSIONS,
            Ingress,
            OTHER,
            pod("default", "app", "web", "track", "stable"),
            TCP,
            80,
            ALLOWED),
        c(
            "podSelector matchExpressions fails although matchLabels holds",
            LABELS_AND_EXPRESSIONS,
            Ingress,
            OTHER,
            pod("default", "app", "web", "track", "canary"),
            TCP,
            80,
            NOT_SELECTED),
        c(
            "absent podSelector selects every pod (allowed peer)",
            ABSENT_POD_SELECTOR,
            Ingress,
            FRONTEND,
            DB,
            TCP,
            80,
            ALLOWED),
        c(
            "absent podSelector selects every pod (denied peer)",
            ABSENT_POD_SELECTOR,
            Ingress,
            OTHER,
            DB,
            TCP,
            80,
            DENIED),
        c(
            "absent policyTypes: Ingress covered",
            NO_POLICY_TYPES_INGRESS_ONLY,
            Ingress,
            FRONTEND,
            WEB,
            TCP,
            80,
            ALLOWED),
        c(
            "absent policyTypes: Ingress covered, peer denied",
            NO_POLICY_TYPES_INGRESS_ONLY,
            Ingress,
            OTHER,
            WEB,
            TCP,
            80,
            DENIED),
        c(
            "absent policyTypes without egress rules: Egress not covered",
            NO_POLICY_TYPES_INGRESS_ONLY,
            Egress,
            WEB,
            OTHER,
            TCP,
            80,
            NOT_SELECTED),
        c(
            "absent policyTypes with egress rules: Egress covered, allowed",
            NO_POLICY_TYPES_WITH_EGRESS,
            Egress,
            WEB,
            API,
            TCP,
            8080,
            ALLOWED),
        c(
            "absent policyTypes with egress rules: Egress covered, denied",
            NO_POLICY_TYPES_WITH_EGRESS,
            Egress,
            WEB,
            OTHER,
            TCP,
            8080,
            DENIED),
        c(
            "absent policyTypes with only egress rules still covers Ingress (deny all)",
            NO_POLICY_TYPES_WITH_EGRESS,
            Ingress,
            OTHER,
            WEB,
            TCP,
            80,
            DENIED),
        c(
            "policyTypes [Egress]: ingress rules ignored",
            POLICY_TYPES_EGRESS_ONLY,
            Ingress,
            OTHER,
            WEB,
            TCP,
            80,
            NOT_SELECTED),
        c(
            "policyTypes [Egress]: egress evaluated",
            POLICY_TYPES_EGRESS_ONLY,
            Egress,
            WEB,
            OTHER,
            TCP,
            80,
            ALLOWED),
        c(
            "policyTypes [Ingress, Egress] without egress rules: egress denied",
            BOTH_TYPES_NO_EGRESS_RULES,
            Egress,
            WEB,
            OTHER,
            TCP,
            80,
            DENIED),
        c(
            "policyTypes [Ingress, Egress] without egress rules: ingress allowed",
            BOTH_TYPES_NO_EGRESS_RULES,
            Ingress,
            OTHER,
            WEB,
            TCP,
            80,
            ALLOWED),

        // rule lists: none, empty, {} ; absent/empty from, to, ports
        c("docs default-deny-ingress", DEFAULT_DENY_INGRESS, Ingress, OTHER, WEB, TCP, 80, DENIED),
        c(
            "docs default-deny-ingress leaves egress alone",
            DEFAULT_DENY_INGRESS,
            Egress,
            WEB,
            OTHER,
            TCP,
            80,
            NOT_SELECTED),
        c(
            "docs allow-all-ingress",
            ALLOW_ALL_INGRESS,
            Ingress,
            external("203.0.113.9"),
            WEB,
            UDP,
            5353,
            ALLOWED),
        c("docs default-deny-egress", DEFAULT_DENY_EGRESS, Egress, WEB, OTHER, TCP, 80, DENIED),
        c(
            "docs allow-all-egress",
            ALLOW_ALL_EGRESS,
            Egress,
            WEB,
            external("203.0.113.9"),
            TCP,
            443,
            ALLOWED),
        c("docs default-deny-all: ingress", DEFAULT_DENY_ALL, Ingress, OTHER, WEB, TCP, 80, DENIED),
        c("docs default-deny-all: egress", DEFAULT_DENY_ALL, Egress, WEB, OTHER, TCP, 80, DENIED),
        c(
            "empty ingress list denies all",
            EMPTY_INGRESS_LIST,
            Ingress,
            FRONTEND,
            WEB,
            TCP,
            80,
            DENIED),
        c(
            "absent from = all peers (port allowed)",
            PORTS_ONLY_NO_FROM,
            Ingress,
            external("198.51.100.1"),
            WEB,
            TCP,
            80,
            ALLOWED),
        c(
            "absent from = all peers (port denied)",
            PORTS_ONLY_NO_FROM,
            Ingress,
            FRONTEND,
            WEB,
            TCP,
            81,
            DENIED),
        c(
            "empty from and empty ports = everything",
            EMPTY_FROM_AND_PORTS,
            Ingress,
            BOB_POD,
            WEB,
            SCTP,
            7,
            ALLOWED),
        c(
            "absent ports = all ports (peer allowed)",
            PEERS_ONLY_NO_PORTS,
            Ingress,
            FRONTEND,
            WEB,
            UDP,
            31000,
            ALLOWED),
        c(
            "absent ports = all ports (peer denied)",
            PEERS_ONLY_NO_PORTS,
            Ingress,
            OTHER,
            WEB,
            UDP,
            31000,
            DENIED),
        c(
            "two rules: second rule's peer on its port",
            TWO_RULES,
            Ingress,
            MONITORING,
            WEB,
            TCP,
            9090,
            ALLOWED),
        c(
            "two rules: peer of one rule with the port of the other",
            TWO_RULES,
            Ingress,
            FRONTEND,
            WEB,
            TCP,
            9090,
            DENIED),

        // peers: podSelector alone, namespaceSelector alone, AND vs OR (documentation examples)
        c(
            "podSelector peer: matching pod in the policy namespace",
            POD_SELECTOR_PEER,
            Ingress,
            FRONTEND,
            WEB,
            TCP,
            80,
            ALLOWED),
        c(
            "podSelector peer: same labels in another namespace",
            POD_SELECTOR_PEER,
            Ingress,
            FRONTEND_IN_BOB,
            WEB,
            TCP,
            80,
            DENIED),
        c(
            "podSelector peer: policy namespace is the egress source's",
            POD_SELECTOR_PEER
                .replace("Ingress", "Egress")
                .replace("ingress", "egress")
                .replace("from", "to"),
            Egress,
            pod("bob", "app", "web"),
            FRONTEND_IN_BOB,
            TCP,
            80,
            ALLOWED),
        c(
            "podSelector peer: egress to the same labels outside the policy namespace",
            POD_SELECTOR_PEER
                .replace("Ingress", "Egress")
                .replace("ingress", "egress")
                .replace("from", "to"),
            Egress,
            pod("bob", "app", "web"),
            FRONTEND,
            TCP,
            80,
            DENIED),
        c(
            "empty podSelector peer: any pod of the policy namespace",
            EMPTY_POD_SELECTOR_PEER,
            Ingress,
            OTHER,
            WEB,
            TCP,
            80,
            ALLOWED),
        c(
            "empty podSelector peer: pod of another namespace",
            EMPTY_POD_SELECTOR_PEER,
            Ingress,
            BOB_POD,
            WEB,
            TCP,
            80,
            DENIED),
        c(
            "namespaceSelector peer: any pod of a matching namespace",
            NAMESPACE_SELECTOR_PEER,
            Ingress,
            PROD_POD,
            WEB,
            TCP,
            80,
            ALLOWED),
        c(
            "namespaceSelector peer: namespace does not match",
            NAMESPACE_SELECTOR_PEER,
            Ingress,
            BOB_POD,
            WEB,
            TCP,
            80,
            DENIED),
        c(
            "namespaceSelector peer: policy namespace itself must match too",
            NAMESPACE_SELECTOR_PEER,
            Ingress,
            FRONTEND,
            WEB,
            TCP,
            80,
            DENIED),
        c(
            "empty namespaceSelector peer: any pod of any namespace",
            EMPTY_NAMESPACE_SELECTOR_PEER,
            Ingress,
            BOB_POD,
            WEB,
            TCP,
            80,
            ALLOWED),
        c(
            "empty namespaceSelector peer: not an address outside the cluster",
            EMPTY_NAMESPACE_SELECTOR_PEER,
            Ingress,
            external("10.244.0.99"),
            WEB,
            TCP,
            80,
            DENIED),
        c(
            "peer with nothing set selects nothing",
            EMPTY_PEER,
            Ingress,
            FRONTEND,
            WEB,
            TCP,
            80,
            DENIED),
        c(
            "docs one peer (AND): client pod in alice's namespace",
            ONE_PEER_AND,
            Ingress,
            ALICE_CLIENT,
            DB,
            TCP,
            5432,
            ALLOWED),
        c(
            "docs one peer (AND): non-client pod in alice's namespace",
            ONE_PEER_AND,
            Ingress,
            ALICE_OTHER,
            DB,
            TCP,
            5432,
            DENIED),
        c(
            "docs one peer (AND): client pod in bob's namespace",
            ONE_PEER_AND,
            Ingress,
            BOB_CLIENT,
            DB,
            TCP,
            5432,
            DENIED),
        c(
            "docs one peer (AND): client pod in the policy namespace",
            ONE_PEER_AND,
            Ingress,
            DEFAULT_CLIENT,
            DB,
            TCP,
            5432,
            DENIED),
        c(
            "docs two peers (OR): any pod in alice's namespace",
            TWO_PEERS_OR,
            Ingress,
            ALICE_OTHER,
            DB,
            TCP,
            5432,
            ALLOWED),
        c(
            "docs two peers (OR): client pod in the policy namespace",
            TWO_PEERS_OR,
            Ingress,
            DEFAULT_CLIENT,
            DB,
            TCP,
            5432,
            ALLOWED),
        c(
            "docs two peers (OR): client pod in bob's namespace",
            TWO_PEERS_OR,
            Ingress,
            BOB_CLIENT,
            DB,
            TCP,
            5432,
            DENIED),
        c(
            "docs two peers (OR): non-client pod in the policy namespace",
            TWO_PEERS_OR,
            Ingress,
            OTHER,
            DB,
            TCP,
            5432,
            DENIED),
        c(
            "namespace by name through the implicit kubernetes.io/metadata.name",
            BY_NAMESPACE_NAME,
            Ingress,
            ALICE_OTHER,
            WEB,
            TCP,
            80,
            ALLOWED),
        c(
            "namespace by name: another namespace",
            BY_NAMESPACE_NAME,
            Ingress,
            BOB_POD,
            WEB,
            TCP,
            80,
            DENIED),

        // matchExpressions
        c(
            "In: value listed",
            EXPRESSION_IN,
            Ingress,
            pod("default", "tier", "edge"),
            WEB,
            TCP,
            80,
            ALLOWED),
        c(
            "In: value not listed",
            EXPRESSION_IN,
            Ingress,
            pod("default", "tier", "batch"),
            WEB,
            TCP,
            80,
            DENIED),
        c("In: key absent", EXPRESSION_IN, Ingress, OTHER, WEB, TCP, 80, DENIED),
        c(
            "NotIn: other value",
            EXPRESSION_NOT_IN,
            Ingress,
            pod("default", "tier", "frontend"),
            WEB,
            TCP,
            80,
            ALLOWED),
        c("NotIn: key absent matches", EXPRESSION_NOT_IN, Ingress, OTHER, WEB, TCP, 80, ALLOWED),
        c(
            "NotIn: value listed",
            EXPRESSION_NOT_IN,
            Ingress,
            pod("default", "tier", "batch"),
            WEB,
            TCP,
            80,
            DENIED),
        c(
            "Exists: key present with any value",
            EXPRESSION_EXISTS,
            Ingress,
            pod("default", "tier", ""),
            WEB,
            TCP,
            80,
            ALLOWED),
        c("Exists: key absent", EXPRESSION_EXISTS, Ingress, OTHER, WEB, TCP, 80, DENIED),
        c(
            "DoesNotExist: key absent matches",
            EXPRESSION_DOES_NOT_EXIST,
            Ingress,
            OTHER,
            WEB,
            TCP,
            80,
            ALLOWED),
        c(
            "DoesNotExist: key present",
            EXPRESSION_DOES_NOT_EXIST,
            Ingress,
            pod("default", "quarantined", "true"),
            WEB,
            TCP,
            80,
            DENIED),
        c(
            "namespace NotIn: namespace without the key matches",
            NAMESPACE_EXPRESSION_NOT_IN,
            Ingress,
            ALICE_OTHER,
            WEB,
            TCP,
            80,
            ALLOWED),
        c(
            "namespace NotIn: namespace with the listed value",
            NAMESPACE_EXPRESSION_NOT_IN,
            Ingress,
            BOB_POD,
            WEB,
            TCP,
            80,
            DENIED),

        // ipBlock (documentation example), IPv6, unknown and invalid addresses
        c(
            "docs: ipBlock inside cidr",
            DOCS_EXAMPLE,
            Ingress,
            external("172.17.0.5"),
            DB,
            TCP,
            6379,
            ALLOWED),
        c(
            "docs: ipBlock inside except",
            DOCS_EXAMPLE,
            Ingress,
            external("172.17.1.5"),
            DB,
            TCP,
            6379,
            DENIED),
        c(
            "docs: ipBlock outside cidr",
            DOCS_EXAMPLE,
            Ingress,
            external("172.18.0.5"),
            DB,
            TCP,
            6379,
            DENIED),
        c(
            "docs: ipBlock never matches an unknown ip",
            DOCS_EXAMPLE,
            Ingress,
            FlowEndpoint.builder().build(),
            DB,
            TCP,
            6379,
            DENIED),
        c("docs: namespaceSelector peer", DOCS_EXAMPLE, Ingress, PROD_POD, DB, TCP, 6379, ALLOWED),
        c("docs: podSelector peer", DOCS_EXAMPLE, Ingress, FRONTEND, DB, TCP, 6379, ALLOWED),
        c(
            "docs: frontend from another namespace",
            DOCS_EXAMPLE,
            Ingress,
            FRONTEND_IN_BOB,
            DB,
            TCP,
            6379,
            DENIED),
        c(
            "docs: allowed peer on another port",
            DOCS_EXAMPLE,
            Ingress,
            FRONTEND,
            DB,
            TCP,
            6380,
            DENIED),
        c("docs: allowed peer on UDP", DOCS_EXAMPLE, Ingress, FRONTEND, DB, UDP, 6379, DENIED),
        c(
            "docs: egress to the ipBlock",
            DOCS_EXAMPLE,
            Egress,
            DB,
            external("10.0.0.200"),
            TCP,
            5978,
            ALLOWED),
        c(
            "docs: egress outside the ipBlock",
            DOCS_EXAMPLE,
            Egress,
            DB,
            external("10.0.1.1"),
            TCP,
            5978,
            DENIED),
        c(
            "ipBlock is a plain CIDR match, also for a pod ip",
            DOCS_EXAMPLE,
            Ingress,
            podWithIp("172.17.3.4", "bob", "role", "x"),
            DB,
            TCP,
            6379,
            ALLOWED),
        c(
            "ipBlock matches an IPv4-mapped IPv6 address",
            DOCS_EXAMPLE,
            Ingress,
            external("::ffff:172.17.0.5"),
            DB,
            TCP,
            6379,
            ALLOWED),
        c(
            "IPv6 ipBlock: inside cidr",
            IPV6_BLOCK,
            Ingress,
            external("2001:db8:2::1"),
            WEB,
            TCP,
            80,
            ALLOWED),
        c(
            "IPv6 ipBlock: inside except",
            IPV6_BLOCK,
            Ingress,
            external("2001:db8:1:ffff::1"),
            WEB,
            TCP,
            80,
            DENIED),
        c(
            "IPv6 ipBlock: outside cidr",
            IPV6_BLOCK,
            Ingress,
            external("2001:db9::1"),
            WEB,
            TCP,
            80,
            DENIED),
        c(
            "IPv6 ipBlock: IPv4 address",
            IPV6_BLOCK,
            Ingress,
            external("32.1.13.184"),
            WEB,
            TCP,
            80,
            DENIED),
        c(
            "invalid cidr matches nothing",
            INVALID_CIDR,
            Ingress,
            external("10.0.0.1"),
            WEB,
            TCP,
            80,
            DENIED),
        c(
            "ipBlock with an unparsable ip",
            DOCS_EXAMPLE,
            Ingress,
            external("172.17.0.5.example.com"),
            DB,
            TCP,
            6379,
            DENIED),

        // ports: protocol, numbers, ranges, named ports
        c("protocol defaults to TCP", DEFAULT_PROTOCOL, Ingress, OTHER, WEB, TCP, 80, ALLOWED),
        c(
            "protocol defaults to TCP, not UDP",
            DEFAULT_PROTOCOL,
            Ingress,
            OTHER,
            WEB,
            UDP,
            80,
            DENIED),
        c("UDP port", UDP_PORT, Ingress, OTHER, WEB, UDP, 53, ALLOWED),
        c("UDP port, TCP flow", UDP_PORT, Ingress, OTHER, WEB, TCP, 53, DENIED),
        c("SCTP port", SCTP_PORT, Ingress, OTHER, WEB, SCTP, 9000, ALLOWED),
        c("SCTP port, TCP flow", SCTP_PORT, Ingress, OTHER, WEB, TCP, 9000, DENIED),
        c(
            "protocol without port = all its ports",
            PROTOCOL_ONLY,
            Ingress,
            OTHER,
            WEB,
            UDP,
            40000,
            ALLOWED),
        c(
            "protocol without port, other protocol",
            PROTOCOL_ONLY,
            Ingress,
            OTHER,
            WEB,
            TCP,
            40000,
            DENIED),
        c(
            "lower-case protocol is not a Kubernetes protocol",
            LOWERCASE_PROTOCOL,
            Ingress,
            OTHER,
            WEB,
            TCP,
            80,
            DENIED),
        c(
            "docs endPort: first port of the range",
            END_PORT_EXAMPLE,
            Egress,
            DB,
            external("10.0.0.1"),
            TCP,
            32000,
            ALLOWED),
        c(
            "docs endPort: last port of the range",
            END_PORT_EXAMPLE,
            Egress,
            DB,
            external("10.0.0.1"),
            TCP,
            32768,
            ALLOWED),
        c(
            "docs endPort: just above the range",
            END_PORT_EXAMPLE,
            Egress,
            DB,
            external("10.0.0.1"),
            TCP,
            32769,
            DENIED),
        c(
            "docs endPort: just below the range",
            END_PORT_EXAMPLE,
            Egress,
            DB,
            external("10.0.0.1"),
            TCP,
            31999,
            DENIED),
        c(
            "named port resolved on the destination",
            NAMED_PORT,
            Ingress,
            OTHER,
            podWithPorts(List.of(tcp("http", 8080)), "default", "app", "web"),
            TCP,
            8080,
            ALLOWED),
        c(
            "named port resolved to another number",
            NAMED_PORT,
            Ingress,
            OTHER,
            podWithPorts(List.of(tcp("http", 8080)), "default", "app", "web"),
            TCP,
            9090,
            DENIED),
        c(
            "named port: destination has no port of that name",
            NAMED_PORT,
            Ingress,
            OTHER,
            podWithPorts(List.of(tcp("metrics", 9090)), "default", "app", "web"),
            TCP,
            9090,
            DENIED),
        c(
            "named UDP port resolved by name and protocol",
            NAMED_UDP_PORT,
            Ingress,
            OTHER,
            podWithPorts(List.of(tcp("dns", 5353), udp("dns", 53)), "default", "app", "web"),
            UDP,
            53,
            ALLOWED),
        c(
            "named UDP port: the name exists on TCP only",
            NAMED_UDP_PORT,
            Ingress,
            OTHER,
            podWithPorts(List.of(tcp("dns", 53)), "default", "app", "web"),
            UDP,
            53,
            DENIED),
        c(
            "named port with unknown container ports",
            NAMED_PORT,
            Ingress,
            OTHER,
            WEB,
            TCP,
            8080,
            UNDETERMINED),
        c(
            "named port: the destination is known to have no named ports",
            NAMED_PORT,
            Ingress,
            OTHER,
            podWithoutNamedPorts("default", "app", "web"),
            TCP,
            8080,
            DENIED),
        c(
            "egress named port towards an address outside the cluster never matches",
            EGRESS_NAMED_PORT_ANY_PEER,
            Egress,
            WEB,
            external("203.0.113.7"),
            TCP,
            50051,
            DENIED),
        c(
            "named port unknown, protocol of the rule excludes the flow",
            NAMED_PORT,
            Ingress,
            OTHER,
            WEB,
            UDP,
            8080,
            DENIED),
        c(
            "named port unknown but another rule allows outright",
            NAMED_PORT_OR_FRONTEND_ANY_PORT,
            Ingress,
            FRONTEND,
            WEB,
            TCP,
            8080,
            ALLOWED),
        c(
            "named port unknown and the other rule's peer does not match",
            NAMED_PORT_OR_FRONTEND_ANY_PORT,
            Ingress,
            OTHER,
            WEB,
            TCP,
            8080,
            UNDETERMINED),
        c(
            "egress named port resolved on the peer",
            EGRESS_NAMED_PORT,
            Egress,
            WEB,
            podWithPorts(List.of(tcp("grpc", 50051)), "default", "app", "api"),
            TCP,
            50051,
            ALLOWED),
        c(
            "egress named port resolved on the peer, other port",
            EGRESS_NAMED_PORT,
            Egress,
            WEB,
            podWithPorts(List.of(tcp("grpc", 50051)), "default", "app", "api"),
            TCP,
            50052,
            DENIED),
        c(
            "port written as a digit string reads as a number",
            NUMERIC_STRING_PORT,
            Ingress,
            OTHER,
            WEB,
            TCP,
            8080,
            ALLOWED),
        c(
            "port written as a digit string, other port",
            NUMERIC_STRING_PORT,
            Ingress,
            OTHER,
            WEB,
            TCP,
            8081,
            DENIED),

        // unknown port (0)
        c(
            "unknown port against a rule with ports",
            FRONTEND_ON_80,
            Ingress,
            FRONTEND,
            WEB,
            TCP,
            0,
            UNDETERMINED),
        c(
            "unknown port, but the peer does not match",
            FRONTEND_ON_80,
            Ingress,
            OTHER,
            WEB,
            TCP,
            0,
            DENIED),
        c(
            "unknown port, but the protocol does not match",
            UDP_53_ONLY,
            Ingress,
            OTHER,
            WEB,
            TCP,
            0,
            DENIED),
        c(
            "unknown port, rule without ports",
            PEERS_ONLY_NO_PORTS,
            Ingress,
            FRONTEND,
            WEB,
            TCP,
            0,
            ALLOWED),
        c(
            "unknown port, another rule allows any port",
            FRONTEND_ON_80_OR_MONITORING_ANY_PORT,
            Ingress,
            MONITORING,
            WEB,
            TCP,
            0,
            ALLOWED),
        c(
            "unknown port against a named port the destination defines",
            NAMED_PORT,
            Ingress,
            OTHER,
            podWithPorts(List.of(tcp("http", 8080)), "default", "app", "web"),
            TCP,
            0,
            UNDETERMINED));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void evaluates(Case c) {
    assertThat(
            NetworkPolicyEvaluator.evaluate(
                c.spec(), c.direction(), c.src(), c.dst(), c.protocol(), c.port()))
        .as(c.name())
        .isEqualTo(c.expected());
  }

  @Test
  void specBuiltInJavaBehavesLikeYaml() {
    var spec =
        new NetworkPolicySpecBuilder()
            .withNewPodSelector()
            .addToMatchLabels("role", "db")
            .endPodSelector()
            .withPolicyTypes("Ingress")
            .addNewIngress()
            .addNewFrom()
            .withNewPodSelector()
            .addToMatchLabels("role", "frontend")
            .endPodSelector()
            .endFrom()
            .addNewPort()
            .withNewPort(6379)
            .endPort()
            .endIngress()
            .build();
    assertThat(NetworkPolicyEvaluator.evaluate(spec, Ingress, FRONTEND, DB, TCP, 6379))
        .isEqualTo(ALLOWED);
    assertThat(NetworkPolicyEvaluator.evaluate(spec, Ingress, FRONTEND, DB, TCP, 6380))
        .isEqualTo(DENIED);
  }

  @Test
  void missingArgumentsAreNamed() {
    assertThatThrownBy(() -> NetworkPolicyEvaluator.evaluate(null, Ingress, OTHER, WEB, TCP, 80))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("spec");
    assertThatThrownBy(
            () ->
                NetworkPolicyEvaluator.evaluate(
                    spec(ALLOW_ALL_INGRESS), Ingress, OTHER, WEB, null, 80))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("protocol");
  }

  record Case(
      String name,
      NetworkPolicySpec spec,
      Direction direction,
      FlowEndpoint src,
      FlowEndpoint dst,
      Protocol protocol,
      int port,
      Decision expected) {}

  private static Arguments c(
      String name,
      String policy,
      Direction direction,
      FlowEndpoint src,
      FlowEndpoint dst,
      Protocol protocol,
      int port,
      Decision expected) {
    return Arguments.of(
        Named.of(
            name, new Case(name, spec(policy), direction, src, dst, protocol, port, expected)));
  }

  static NetworkPolicySpec spec(String yaml) {
    try {
      return Json.yaml().readValue(yaml, NetworkPolicySpec.class);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
