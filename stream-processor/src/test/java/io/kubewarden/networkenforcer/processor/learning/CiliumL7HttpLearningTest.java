package io.kubewarden.networkenforcer.processor.learning;

import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.CLIENT;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.CLIENT_EGRESS;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.SERVER;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.SERVER_INGRESS;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.forwarded;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.fasterxml.jackson.databind.JsonNode;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.HttpRequest;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.common.flow.Verdict;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.common.policy.Mode;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.common.violation.ViolationObservation;
import io.kubewarden.networkenforcer.processor.config.LearningSettings;
import io.kubewarden.networkenforcer.processor.fixtures.Policies;
import io.kubewarden.networkenforcer.processor.fixtures.ProcessorTestDriver;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.streams.KeyValue;
import org.junit.jupiter.api.Test;

/**
 * The cilium backend with {@code --learn-l7-http}: the requests Cilium's proxy forwarded to a port
 * become its {@code rules.http}, and monitor mode reports a request they do not allow; without the
 * option nothing changes.
 */
class CiliumL7HttpLearningTest {
  private static final Instant T0 = Instant.parse("2026-08-03T15:40:10Z");
  private static final LearningSettings L7_HTTP =
      new LearningSettings(null, null, null, 100, 10, false, true);

  /** A connection seen at the server's node (its proxy, for a request). */
  private static FlowRecord connection(int second, int port) {
    return connection(second, port, Reporter.DESTINATION);
  }

  private static FlowRecord connection(int second, int port, Reporter seenAt) {
    return forwarded(
        Provider.cilium, T0.plusSeconds(second), CLIENT, SERVER, Protocol.TCP, port, 1, seenAt);
  }

  private static FlowRecord request(int second, int port, String method, String url) {
    return request(second, port, method, url, Reporter.DESTINATION);
  }

  private static FlowRecord request(
      int second, int port, String method, String url, Reporter seenAt) {
    FlowRecord f = connection(second, port, seenAt);
    return new FlowRecord(
        f.time(),
        f.provider(),
        f.protocol(),
        f.dstPort(),
        f.src(),
        f.dst(),
        f.verdict(),
        null,
        1,
        f.reporter(),
        null,
        HttpRequest.of(method, url));
  }

  /** A proposal's CiliumNetworkPolicy spec as JSON, to compare with {@link #json}. */
  private static JsonNode ciliumOf(ProposalSnapshot proposal) {
    return Json.mapper().valueToTree(proposal.spec().getCilium());
  }

  private static JsonNode json(String text) throws Exception {
    return Json.mapper().readTree(text);
  }

  /**
   * 18080: a connection, then five requests of three kinds (one path with regex characters, one
   * repeated); 9090: 33 distinct paths, one more than a port keeps, so it stays L3/L4.
   */
  private static List<FlowRecord> flows() {
    List<FlowRecord> flows = new ArrayList<>();
    flows.add(connection(0, 18080));
    flows.add(request(1, 18080, "GET", "http://http-server.demo:18080/orders?page=2"));
    flows.add(request(2, 18080, "POST", "http://http-server.demo:18080/orders"));
    flows.add(request(3, 18080, "GET", "http://http-server.demo:18080/a.b+c(1)"));
    flows.add(request(4, 18080, "GET", "http://http-server.demo:18080/orders"));
    for (int i = 0; i <= LearningSettings.MAX_HTTP_RULES_PER_PORT; i++) {
      flows.add(request(10 + i, 9090, "GET", "/items/" + i));
    }
    return flows;
  }

  @Test
  void theRequestsOfAnIngressPortAreItsHttpRulesAndTooManyLeaveItL4() throws Exception {
    try (var driver = ProcessorTestDriver.cilium(L7_HTTP)) {
      driver.pipe(flows()).flushEvidence();

      var proposals = driver.latestProposals();
      assertThat(ciliumOf(proposals.get(SERVER_INGRESS)))
          .isEqualTo(
              json(
                  """
                      {"endpointSelector":{"matchLabels":{"app":"http-server"}},
                       "ingress":[
                        {"fromEndpoints":[{"matchLabels":{"app":"http-client",
                                             "k8s:io.kubernetes.pod.namespace":"demo"}}],
                         "toPorts":[
                          {"ports":[{"port":"9090","protocol":"TCP"}]},
                          {"ports":[{"port":"18080","protocol":"TCP"}],
                           "rules":{"http":[
                             {"method":"GET","path":"^/a\\\\.b\\\\+c\\\\(1\\\\)$"},
                             {"method":"GET","path":"^/orders$"},
                             {"method":"POST","path":"^/orders$"}]}}]}]}"""));
      // Egress stays L3/L4: Cilium's proxy saw the requests at the server, not at the client.
      assertThat(Json.mapper().writeValueAsString(proposals.get(CLIENT_EGRESS).spec().getCilium()))
          .doesNotContain("rules");
    }
  }

  @Test
  void requestsTheClientsOwnProxySawAreItsEgressHttpRules() throws Exception {
    try (var driver = ProcessorTestDriver.cilium(L7_HTTP)) {
      // Seen at the client's node (an egress L7 policy there): reporter SOURCE.
      driver
          .pipe(
              request(1, 18080, "GET", "/orders", Reporter.SOURCE),
              request(2, 18080, "DELETE", "/orders/7", Reporter.SOURCE),
              connection(3, 9090, Reporter.SOURCE))
          .flushEvidence();

      var proposals = driver.latestProposals();
      assertThat(ciliumOf(proposals.get(CLIENT_EGRESS)))
          .isEqualTo(
              json(
                  """
                      {"endpointSelector":{"matchLabels":{"app":"http-client"}},
                       "egress":[
                        {"toEndpoints":[{"matchLabels":{"app":"http-server",
                                           "k8s:io.kubernetes.pod.namespace":"demo"}}],
                         "toPorts":[
                          {"ports":[{"port":"9090","protocol":"TCP"}]},
                          {"ports":[{"port":"18080","protocol":"TCP"}],
                           "rules":{"http":[
                             {"method":"DELETE","path":"^/orders/7$"},
                             {"method":"GET","path":"^/orders$"}]}}]}]}"""));
      // The server's ingress learns them too: requests are requests wherever the proxy saw them.
      assertThat(Json.mapper().writeValueAsString(proposals.get(SERVER_INGRESS).spec().getCilium()))
          .contains("^/orders/7$");
    }
  }

  @Test
  void offByDefaultTheSameFlowsGiveL4RulesOnly() throws Exception {
    try (var driver = ProcessorTestDriver.cilium()) {
      driver.pipe(flows()).flushEvidence();

      assertThat(ciliumOf(driver.latestProposals().get(SERVER_INGRESS)))
          .isEqualTo(
              json(
                  """
                      {"endpointSelector":{"matchLabels":{"app":"http-server"}},
                       "ingress":[
                        {"fromEndpoints":[{"matchLabels":{"app":"http-client",
                                             "k8s:io.kubernetes.pod.namespace":"demo"}}],
                         "toPorts":[{"ports":[{"port":"9090","protocol":"TCP"},
                                              {"port":"18080","protocol":"TCP"}]}]}]}"""));
    }
  }

  /** Requests on a connection published already (as ingest marks them) after that connection. */
  private static List<FlowRecord> connectionAndItsRequests() {
    List<FlowRecord> flows = new ArrayList<>();
    flows.add(connection(0, 18080));
    for (String path : List.of("/a", "/b", "/c")) {
      FlowRecord r = request(1, 18080, "GET", path);
      flows.add(
          new FlowRecord(
              r.time(),
              r.provider(),
              r.protocol(),
              r.dstPort(),
              r.src(),
              r.dst(),
              r.verdict(),
              null,
              1,
              r.reporter(),
              null,
              r.http().onSeenConnection()));
    }
    return flows;
  }

  @Test
  void offARequestOnAConnectionSeenCountsNothingOnItCountsOnce() {
    try (var off = ProcessorTestDriver.cilium();
        var on = ProcessorTestDriver.cilium(L7_HTTP)) {
      off.pipe(connectionAndItsRequests()).flushEvidence();
      on.pipe(connectionAndItsRequests()).flushEvidence();

      assertThat(off.latestProposals().get(SERVER_INGRESS).evidence())
          .singleElement()
          .satisfies(e -> assertThat(e.getCount()).isEqualTo(1));
      assertThat(on.latestProposals().get(SERVER_INGRESS).evidence())
          .singleElement()
          .satisfies(e -> assertThat(e.getCount()).isEqualTo(4));
    }
  }

  @Test
  void monitorModeReportsARequestToAnotherPathOnly() {
    try (var driver = ProcessorTestDriver.cilium(L7_HTTP)) {
      driver.pipe(connection(0, 18080), request(1, 18080, "GET", "/orders")).flushEvidence();
      driver.policy(Policies.promoted(driver.latestProposals().get(SERVER_INGRESS), Mode.monitor));
      driver.newViolations();

      driver.pipe(
          connection(100, 18080),
          request(101, 18080, "GET", "/orders?page=3"),
          request(102, 18080, "GET", "/admin"),
          request(103, 18080, "POST", "/orders"));

      List<KeyValue<String, ViolationObservation>> violations = driver.newViolations();
      assertThat(violations)
          .extracting(v -> v.value.timestamp(), v -> v.value.http())
          .containsExactlyInAnyOrder(
              tuple(T0.plusSeconds(102), new HttpRequest("GET", "/admin", false)),
              tuple(T0.plusSeconds(103), new HttpRequest("POST", "/orders", false)));
      assertThat(violations)
          .allSatisfy(
              v -> {
                assertThat(v.key).isEqualTo("demo/deployment-http-server-ingress");
                assertThat(v.value.action()).isEqualTo(Mode.monitor);
                assertThat(v.value.dstPort()).isEqualTo(18080);
              });
    }
  }

  @Test
  void protectModeReportsEachRequestTheProxyRefusedWithItsMethodAndPath() {
    try (var driver = ProcessorTestDriver.cilium(L7_HTTP)) {
      driver.pipe(connection(0, 18080), request(1, 18080, "GET", "/orders")).flushEvidence();
      driver.policy(Policies.promoted(driver.latestProposals().get(SERVER_INGRESS), Mode.protect));
      driver.newViolations();

      // As ingest publishes "http-request DROPPED" of the server's proxy: a deny at the
      // destination with its request (HubbleFlowParser, RealCaptureRecordsTest). The connection
      // itself was allowed (REDIRECTED to the proxy): no violation of its own in protect mode.
      driver.pipe(
          connection(100, 18080),
          refused(101, "PUT", "/v1/exhaust-port", false),
          refused(102, "DELETE", "/orders/7", true));

      List<KeyValue<String, ViolationObservation>> violations = driver.newViolations();
      assertThat(violations)
          .allSatisfy(
              v -> {
                assertThat(v.key).isEqualTo("demo/deployment-http-server-ingress");
                assertThat(v.value.action()).isEqualTo(Mode.protect);
                assertThat(v.value.dstPort()).isEqualTo(18080);
              });
      assertThat(violations)
          .extracting(v -> v.value.timestamp(), v -> v.value.http())
          .containsExactly(
              tuple(T0.plusSeconds(101), new HttpRequest("PUT", "/v1/exhaust-port", false)),
              // Its connection had a refusal already: news only because requests are learned,
              // and the violation does not say which record came first.
              tuple(T0.plusSeconds(102), new HttpRequest("DELETE", "/orders/7", false)));
    }
  }

  @Test
  void offOnlyTheFirstRefusedRequestOfAConnectionIsAViolation() {
    try (var driver = ProcessorTestDriver.cilium()) {
      driver.pipe(connection(0, 18080)).flushEvidence();
      driver.policy(Policies.promoted(driver.latestProposals().get(SERVER_INGRESS), Mode.protect));
      driver.newViolations();

      driver.pipe(
          refused(101, "PUT", "/v1/exhaust-port", false),
          refused(102, "DELETE", "/orders/7", true));

      assertThat(driver.newViolations())
          .singleElement()
          .satisfies(
              v ->
                  assertThat(v.value.http())
                      .isEqualTo(new HttpRequest("PUT", "/v1/exhaust-port", false)));
    }
  }

  /** A request the server's proxy refused, as ingest publishes it. */
  private static FlowRecord refused(
      int second, String method, String path, boolean connectionSeen) {
    HttpRequest http = HttpRequest.of(method, path);
    return new FlowRecord(
        T0.plusSeconds(second),
        Provider.cilium,
        Protocol.TCP,
        18080,
        CLIENT,
        SERVER,
        Verdict.DENIED,
        null,
        1,
        Reporter.DESTINATION,
        null,
        connectionSeen ? http.onSeenConnection() : http);
  }

  @Test
  void aPortKeepsItsRequestsAndRecordsWhenItStoppedLearningThem() throws Exception {
    LearnedPort port = new LearnedPort(Protocol.TCP, 18080);
    assertThat(Json.mapper().writeValueAsString(port))
        .isEqualTo("{\"protocol\":\"TCP\",\"port\":18080}");
    LearnedPort two = port.withRoute("GET /a", 2).withRoute("GET /b", 2);
    assertThat(two.http()).containsExactly("GET /a", "GET /b");
    assertThat(two.withRoute("GET /a", 2)).isSameAs(two);
    LearnedPort full = two.withRoute("GET /c", 2);
    assertThat(Json.mapper().writeValueAsString(full))
        .isEqualTo("{\"protocol\":\"TCP\",\"port\":18080,\"httpUnrestricted\":true}");
    assertThat(full.wouldLearn("GET /d")).isFalse();
    assertThat(Json.mapper().readValue(Json.mapper().writeValueAsString(two), LearnedPort.class))
        .isEqualTo(two);
    assertThat(Json.mapper().readValue("{\"protocol\":\"TCP\",\"port\":18080}", LearnedPort.class))
        .isEqualTo(port);
    // A cut path allows every path that starts so.
    assertThat(
            CiliumRendering.httpRule(LearnedPort.route(new HttpRequest("GET", "/files/a.b", true))))
        .extracting(r -> r.getMethod() + " " + r.getPath())
        .isEqualTo("GET ^/files/a\\.b.*$");
  }
}
