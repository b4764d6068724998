package io.kubewarden.networkenforcer.common.evaluation;

import static io.kubewarden.networkenforcer.common.evaluation.Decision.ALLOWED;
import static io.kubewarden.networkenforcer.common.evaluation.Decision.DENIED;
import static io.kubewarden.networkenforcer.common.evaluation.Decision.NOT_SELECTED;
import static io.kubewarden.networkenforcer.common.evaluation.Decision.UNDETERMINED;
import static io.kubewarden.networkenforcer.common.evaluation.Endpoints.pod;
import static io.kubewarden.networkenforcer.common.evaluation.Endpoints.podWithIdentity;
import static io.kubewarden.networkenforcer.common.flow.Protocol.SCTP;
import static io.kubewarden.networkenforcer.common.flow.Protocol.TCP;
import static io.kubewarden.networkenforcer.common.flow.Protocol.UDP;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.kubewarden.networkenforcer.common.crd.IstioPolicy;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.json.Json;
import java.io.UncheckedIOException;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Table of the reduced Istio ALLOW model, inbound to the destination: each rule allowed and denied.
 */
class IstioPolicyEvaluatorTest {

  static final String FRONTEND_SA = "cluster.local/ns/prod/sa/frontend";

  static final String FRONTEND_ON_8080 =
      """
      selector: {matchLabels: {app: web}}
      rules:
      - from:
        - source: {principals: [cluster.local/ns/prod/sa/frontend]}
        to:
        - operation: {ports: ["8080"]}
      """;

  static final String NO_RULES =
      """
      selector: {matchLabels: {app: web}}
      """;

  static final String EMPTY_RULES =
      """
      selector: {matchLabels: {app: web}}
      rules: []
      """;

  static final String ALLOW_ALL_RULE =
      """
      selector: {matchLabels: {app: web}}
      rules:
      - {}
      """;

  static final String ANY_AUTHENTICATED =
      """
      selector: {matchLabels: {app: web}}
      rules:
      - from:
        - source: {principals: ["*"]}
      """;

  static final String PREFIX =
      """
      selector: {matchLabels: {app: web}}
      rules:
      - from:
        - source: {principals: ["cluster.local/ns/prod/*"]}
      """;

  static final String SUFFIX =
      """
      selector: {matchLabels: {app: web}}
      rules:
      - from:
        - source: {principals: ["*/sa/frontend"]}
      """;

  static final String PORTS_ONLY =
      """
      selector: {matchLabels: {app: web}}
      rules:
      - to:
        - operation: {ports: ["8080", "9090"]}
      """;

  static final String PORT_RANGE =
      """
      selector: {matchLabels: {app: web}}
      rules:
      - to:
        - operation: {ports: ["8000-8100"]}
      """;

  static final String UNREADABLE_PORT =
      """
      selector: {matchLabels: {app: web}}
      rules:
      - to:
        - operation: {ports: [http]}
      """;

  static final String TWO_SOURCES =
      """
      selector: {matchLabels: {app: web}}
      rules:
      - from:
        - source: {principals: [cluster.local/ns/prod/sa/frontend]}
        - source: {principals: [cluster.local/ns/prod/sa/batch, cluster.local/ns/ops/sa/prometheus]}
      """;

  /** Principal and port bound per rule: frontend on 8080, prometheus on 9090, never crossed. */
  static final String TWO_RULES =
      """
      selector: {matchLabels: {app: web}}
      rules:
      - from:
        - source: {principals: [cluster.local/ns/prod/sa/frontend]}
        to:
        - operation: {ports: ["8080"]}
      - from:
        - source: {principals: [cluster.local/ns/ops/sa/prometheus]}
        to:
        - operation: {ports: ["9090"]}
      """;

  static final String FRONTEND_ON_8080_OR_PROMETHEUS_ANY_PORT =
      """
      selector: {matchLabels: {app: web}}
      rules:
      - from:
        - source: {principals: [cluster.local/ns/prod/sa/frontend]}
        to:
        - operation: {ports: ["8080"]}
      - from:
        - source: {principals: [cluster.local/ns/ops/sa/prometheus]}
      """;

  static final String SOURCE_WITHOUT_PRINCIPALS =
      """
      selector: {matchLabels: {app: web}}
      rules:
      - from:
        - source: {}
        to:
        - operation: {ports: ["8080"]}
      """;

  static final String SELECTOR_WITH_EXPRESSIONS =
      """
      selector:
        matchLabels: {app: web}
        matchExpressions:
        - {key: version, operator: NotIn, values: [v1]}
      rules:
      - {}
      """;

  static final FlowEndpoint WEB = pod("prod", "app", "web");
  static final FlowEndpoint FRONTEND =
      podWithIdentity("spiffe://" + FRONTEND_SA, "prod", "app", "frontend");
  static final FlowEndpoint FRONTEND_NO_SCHEME =
      podWithIdentity(FRONTEND_SA, "prod", "app", "frontend");
  static final FlowEndpoint BATCH =
      podWithIdentity("spiffe://cluster.local/ns/prod/sa/batch", "prod");
  static final FlowEndpoint PROMETHEUS =
      podWithIdentity("spiffe://cluster.local/ns/ops/sa/prometheus", "ops");
  static final FlowEndpoint DEV_FRONTEND =
      podWithIdentity("spiffe://cluster.local/ns/dev/sa/frontend", "dev");
  static final FlowEndpoint DEV_API =
      podWithIdentity("spiffe://cluster.local/ns/dev/sa/api", "dev");
  static final FlowEndpoint PLAINTEXT = pod("legacy", "app", "old");

  static Stream<Arguments> cases() {
    return Stream.of(
        // selection and protocol
        c("selector selects the destination", FRONTEND_ON_8080, FRONTEND, WEB, TCP, 8080, ALLOWED),
        c(
            "selector does not select the destination",
            FRONTEND_ON_8080,
            FRONTEND,
            pod("prod", "app", "api"),
            TCP,
            8080,
            NOT_SELECTED),
        c(
            "selector matchExpressions hold",
            SELECTOR_WITH_EXPRESSIONS,
            PLAINTEXT,
            pod("prod", "app", "web", "version", "v2"),
            TCP,
            80,
            ALLOWED),
        c(
            "selector matchExpressions fail",
            SELECTOR_WITH_EXPRESSIONS,
            PLAINTEXT,
            pod("prod", "app", "web", "version", "v1"),
            TCP,
            80,
            NOT_SELECTED),
        c(
            "UDP is invisible to ztunnel: no say, not a deny",
            FRONTEND_ON_8080,
            FRONTEND,
            WEB,
            UDP,
            8080,
            NOT_SELECTED),
        c(
            "SCTP is invisible to ztunnel: no say",
            NO_RULES,
            FRONTEND,
            WEB,
            SCTP,
            8080,
            NOT_SELECTED),

        // rules present or not
        c("no rules under ALLOW denies everything", NO_RULES, FRONTEND, WEB, TCP, 8080, DENIED),
        c("empty rules list denies everything", EMPTY_RULES, FRONTEND, WEB, TCP, 8080, DENIED),
        c(
            "rule {} allows everything, even unauthenticated",
            ALLOW_ALL_RULE,
            PLAINTEXT,
            WEB,
            TCP,
            1,
            ALLOWED),

        // principals
        c(
            "exact principal from a spiffe:// identity",
            FRONTEND_ON_8080,
            FRONTEND,
            WEB,
            TCP,
            8080,
            ALLOWED),
        c(
            "exact principal from an identity without scheme",
            FRONTEND_ON_8080,
            FRONTEND_NO_SCHEME,
            WEB,
            TCP,
            8080,
            ALLOWED),
        c(
            "exact principal: other namespace, same service account",
            FRONTEND_ON_8080,
            DEV_FRONTEND,
            WEB,
            TCP,
            8080,
            DENIED),
        c(
            "exact principal: unauthenticated source",
            FRONTEND_ON_8080,
            PLAINTEXT,
            WEB,
            TCP,
            8080,
            DENIED),
        c(
            "* matches any authenticated source",
            ANY_AUTHENTICATED,
            DEV_API,
            WEB,
            TCP,
            8080,
            ALLOWED),
        c(
            "* does not match an unauthenticated source",
            ANY_AUTHENTICATED,
            PLAINTEXT,
            WEB,
            TCP,
            8080,
            DENIED),
        c("prefix x* matches", PREFIX, BATCH, WEB, TCP, 8080, ALLOWED),
        c(
            "prefix x* does not match another namespace",
            PREFIX,
            DEV_FRONTEND,
            WEB,
            TCP,
            8080,
            DENIED),
        c(
            "prefix x* does not match an unauthenticated source",
            PREFIX,
            PLAINTEXT,
            WEB,
            TCP,
            8080,
            DENIED),
        c("suffix *x matches", SUFFIX, DEV_FRONTEND, WEB, TCP, 8080, ALLOWED),
        c(
            "suffix *x does not match another service account",
            SUFFIX,
            DEV_API,
            WEB,
            TCP,
            8080,
            DENIED),
        c(
            "absent from = any source, even unauthenticated (port allowed)",
            PORTS_ONLY,
            PLAINTEXT,
            WEB,
            TCP,
            9090,
            ALLOWED),
        c("absent from = any source (port denied)", PORTS_ONLY, FRONTEND, WEB, TCP, 9091, DENIED),
        c(
            "source without principals does not constrain",
            SOURCE_WITHOUT_PRINCIPALS,
            PLAINTEXT,
            WEB,
            TCP,
            8080,
            ALLOWED),
        c(
            "source without principals, port still constrains",
            SOURCE_WITHOUT_PRINCIPALS,
            PLAINTEXT,
            WEB,
            TCP,
            8081,
            DENIED),
        c(
            "any of several sources: second source's second principal",
            TWO_SOURCES,
            PROMETHEUS,
            WEB,
            TCP,
            8080,
            ALLOWED),
        c("any of several sources: none matches", TWO_SOURCES, DEV_API, WEB, TCP, 8080, DENIED),

        // ports
        c("absent to = any port", ANY_AUTHENTICATED, FRONTEND, WEB, TCP, 65535, ALLOWED),
        c("port listed", FRONTEND_ON_8080, FRONTEND, WEB, TCP, 8080, ALLOWED),
        c("port not listed", FRONTEND_ON_8080, FRONTEND, WEB, TCP, 8081, DENIED),
        c("port range: inside", PORT_RANGE, FRONTEND, WEB, TCP, 8100, ALLOWED),
        c("port range: outside", PORT_RANGE, FRONTEND, WEB, TCP, 8101, DENIED),
        c("unreadable port entry matches nothing", UNREADABLE_PORT, FRONTEND, WEB, TCP, 80, DENIED),
        c(
            "principal and port bound per rule: each rule on its own",
            TWO_RULES,
            PROMETHEUS,
            WEB,
            TCP,
            9090,
            ALLOWED),
        c(
            "principal and port bound per rule: crossed",
            TWO_RULES,
            FRONTEND,
            WEB,
            TCP,
            9090,
            DENIED),

        // unknown port (0)
        c(
            "unknown port against constraining ports",
            FRONTEND_ON_8080,
            FRONTEND,
            WEB,
            TCP,
            0,
            UNDETERMINED),
        c(
            "unknown port, but the principal does not match",
            FRONTEND_ON_8080,
            DEV_API,
            WEB,
            TCP,
            0,
            DENIED),
        c("unknown port, rule without ports", ANY_AUTHENTICATED, FRONTEND, WEB, TCP, 0, ALLOWED),
        c(
            "unknown port, another rule allows any port",
            FRONTEND_ON_8080_OR_PROMETHEUS_ANY_PORT,
            PROMETHEUS,
            WEB,
            TCP,
            0,
            ALLOWED),
        c(
            "unknown port against an unreadable port entry",
            UNREADABLE_PORT,
            FRONTEND,
            WEB,
            TCP,
            0,
            DENIED));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void evaluates(Case c) {
    assertThat(IstioPolicyEvaluator.evaluate(c.policy(), c.src(), c.dst(), c.protocol(), c.port()))
        .as(c.name())
        .isEqualTo(c.expected());
  }

  record Case(
      String name,
      IstioPolicy policy,
      FlowEndpoint src,
      FlowEndpoint dst,
      Protocol protocol,
      int port,
      Decision expected) {}

  private static Arguments c(
      String name,
      String policy,
      FlowEndpoint src,
      FlowEndpoint dst,
      Protocol protocol,
      int port,
      Decision expected) {
    return Arguments.of(
        Named.of(name, new Case(name, policy(policy), src, dst, protocol, port, expected)));
  }

  static IstioPolicy policy(String yaml) {
    try {
      return Json.yaml().readValue(yaml, IstioPolicy.class);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
