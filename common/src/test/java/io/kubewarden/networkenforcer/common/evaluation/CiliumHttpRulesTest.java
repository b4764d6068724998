package io.kubewarden.networkenforcer.common.evaluation;

import static io.kubewarden.networkenforcer.common.evaluation.Decision.ALLOWED;
import static io.kubewarden.networkenforcer.common.evaluation.Decision.DENIED;
import static io.kubewarden.networkenforcer.common.evaluation.Decision.UNDETERMINED;
import static io.kubewarden.networkenforcer.common.evaluation.Endpoints.pod;
import static io.kubewarden.networkenforcer.common.flow.Protocol.TCP;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.HttpRequest;
import io.kubewarden.networkenforcer.common.policy.Direction;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** {@code rules.http}: a request is allowed on its port only when one HTTP rule matches it. */
class CiliumHttpRulesTest {
  /** What {@code --learn-l7-http} renders: 8080 with two requests, 9090 without any. */
  static final String LEARNED =
      """
      endpointSelector: {matchLabels: {app: web}}
      ingress:
      - fromEndpoints:
        - matchLabels: {app: client, k8s:io.kubernetes.pod.namespace: prod}
        toPorts:
        - ports: [{port: "9090", protocol: TCP}]
        - ports: [{port: "8080", protocol: TCP}]
          rules:
            http:
            - {method: GET, path: "^/orders$"}
            - {method: POST, path: "^/files/a\\\\.b.*$"}
      """;

  /** A reviewer's rules: any method on a path pattern, and another rule allowing 7070 at L4. */
  static final String WRITTEN =
      """
      endpointSelector: {matchLabels: {app: web}}
      ingress:
      - fromEndpoints:
        - matchLabels: {app: client}
        toPorts:
        - ports: [{port: "7070", protocol: TCP}]
          rules:
            http: [{path: "/v1/.*"}]
        - ports: [{port: "6060", protocol: TCP}]
          rules:
            http: [{method: "GET", path: "/[unclosed"}]
      - fromEndpoints:
        - matchLabels: {app: client}
        toPorts:
        - ports: [{port: "7070", protocol: TCP}]
      """;

  static final FlowEndpoint WEB = pod("prod", "app", "web");
  static final FlowEndpoint CLIENT = pod("prod", "app", "client");

  static Stream<Arguments> cases() {
    return Stream.of(
        row("a learned request", LEARNED, 8080, get("/orders"), ALLOWED),
        row("another path is a violation", LEARNED, 8080, get("/admin"), DENIED),
        row("a longer path is another path", LEARNED, 8080, get("/orders/7"), DENIED),
        row("another method is a violation", LEARNED, 8080, req("DELETE", "/orders"), DENIED),
        row(
            "a cut path allows what starts so",
            LEARNED,
            8080,
            req("POST", "/files/a.b/c"),
            ALLOWED),
        row("the dot was escaped", LEARNED, 8080, req("POST", "/files/aXb"), DENIED),
        row("the L3/L4 record of the connection", LEARNED, 8080, null, ALLOWED),
        row("a port without HTTP rules: any request", LEARNED, 9090, get("/anything"), ALLOWED),
        row("no rule for the port", LEARNED, 8081, get("/orders"), DENIED),
        row("absent method: any method", WRITTEN, 7070, req("PUT", "/v1/items"), ALLOWED),
        row("allowed at L4 by another rule: L7 has no effect", WRITTEN, 7070, get("/v2"), ALLOWED),
        row("an expression Java cannot read", WRITTEN, 6060, get("/x"), UNDETERMINED));
  }

  private static HttpRequest get(String path) {
    return req("GET", path);
  }

  private static HttpRequest req(String method, String path) {
    return new HttpRequest(method, path, false);
  }

  private static Arguments row(
      String name, String policy, int port, HttpRequest http, Decision expected) {
    return Arguments.of(Named.of(name, policy), port, http, expected);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void evaluates(String policy, int port, HttpRequest http, Decision expected) {
    assertThat(
            CiliumPolicyEvaluator.evaluate(
                CiliumPolicyEvaluatorTest.policy(policy),
                Direction.Ingress,
                CLIENT,
                WEB,
                TCP,
                port,
                http))
        .isEqualTo(expected);
  }
}
