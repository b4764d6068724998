package io.kubewarden.networkenforcer.cli.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicySpec;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicySpecBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubewarden.networkenforcer.cli.CliRun;
import io.kubewarden.networkenforcer.cli.services.ServiceRunner;
import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.crd.PortEvidence;
import io.kubewarden.networkenforcer.common.crd.RuleEvidence;
import io.kubewarden.networkenforcer.common.crd.TargetRef;
import io.kubewarden.networkenforcer.common.crd.ViolationEndpoint;
import io.kubewarden.networkenforcer.common.crd.ViolationRecord;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicy;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposalSpec;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicySpec;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.policy.Backend;
import io.kubewarden.networkenforcer.common.policy.Direction;
import io.kubewarden.networkenforcer.common.policy.Labels;
import io.kubewarden.networkenforcer.common.policy.Mode;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.common.topics.Topic;
import io.kubewarden.networkenforcer.common.topics.Topics;
import io.kubewarden.networkenforcer.common.violation.ViolationObservation;
import io.kubewarden.networkenforcer.common.workload.WorkloadKind;
import io.kubewarden.networkenforcer.embedded.EmbeddedKafkaBroker;
import io.kubewarden.networkenforcer.testing.KubeApiServer;
import io.kubewarden.networkenforcer.testing.ProjectCrds;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.imageio.ImageIO;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.Rectangle;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;

/**
 * The writer's live view ({@code network-enforcer writer --live-view}) against the real API server
 * harness and an embedded Kafka broker, opened in headless Chromium: the graph shows the proposal
 * the writer applied from the proposals topic, the two policies with their modes and the edges
 * their rules allow, and the violations the writer put in a policy's status as a red edge with its
 * count and last seen; the kubectl commands are exact. Page views send no request to the API server
 * (its audit log shows none by the writer's user), and without the option there is no page.
 */
class LiveViewInBrowserTest {
  private static final Duration WAIT = Duration.ofSeconds(90);
  private static final String NS = "shop";
  private static final String WRITER_USER = "live-view-writer";
  private static final String PREFIX = "lv.";
  private static final String API = NS + "/Deployment/api";
  private static final String WEB = NS + "/Deployment/web";
  private static final String BATCH = NS + "/Deployment/batch";
  private static final String CRON = NS + "/Deployment/cron";
  private static final Instant T1 = Instant.parse("2026-11-30T10:00:00Z");
  private static final Instant T2 = Instant.parse("2026-11-30T10:07:00Z");

  /** The resources the writer caches with informers: a page view must never get or list them. */
  private static final Set<String> CACHED =
      Set.of(
          "workloadnetworkpolicies",
          "workloadnetworkpolicyproposals",
          "deployments",
          "statefulsets",
          "daemonsets",
          "cronjobs",
          "networkpolicies");

  @TempDir static Path dir;
  static KubeApiServer api;
  static EmbeddedKafkaBroker broker;
  static Path auditLog;
  static HeadlessChromium chromium;
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final ObjectMapper JSON = new ObjectMapper();

  @BeforeAll
  static void start() throws IOException {
    Path policy =
        Files.writeString(
            dir.resolve("audit-policy.yaml"),
            """
        apiVersion: audit.k8s.io/v1
        kind: Policy
        omitStages: ["RequestReceived"]
        rules:
          - level: Metadata
        """);
    auditLog = dir.resolve("audit.log");
    api =
        KubeApiServer.builder()
            .apiServerArg("--audit-policy-file=" + policy)
            .apiServerArg("--audit-log-path=" + auditLog)
            .apiServerArg("--audit-log-mode=blocking")
            .start();
    broker = EmbeddedKafkaBroker.startDefault();
    KubernetesClient admin = api.client();
    ProjectCrds.install(admin, WAIT);
    for (String ns : List.of(NS, "network-enforcer")) {
      admin
          .resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
          .create();
    }
    for (String name : List.of("api", "web", "batch", "cron")) {
      admin.resource(deployment(name)).create();
    }
    // Hand-made policies: api protected (web may call it on TCP 8080), web monitored (batch on TCP
    // 80).
    admin.resource(wnp("api", "web", 8080, Mode.protect)).create();
    admin.resource(wnp("web", "batch", 80, Mode.monitor)).create();
    chromium = new HeadlessChromium();
  }

  @AfterAll
  static void stop() {
    if (chromium != null) {
      chromium.close();
    }
    if (broker != null) {
      broker.close();
    }
    if (api != null) {
      api.close();
    }
  }

  @Test
  void theLiveViewShowsProposalsPoliciesModesViolationsAndCommands() throws Exception {
    CompletableFuture<CliRun> writer = startWriter(true);
    try {
      int port = managementPort(writer);
      await().atMost(WAIT).until(() -> get(port, "/view").statusCode() == 200);
      Topics topics = new Topics(PREFIX);
      // The processor's proposal for cron's ingress (batch on TCP 8080, 3 observations) ...
      ProposalSnapshot proposal =
          new ProposalSnapshot(
              "deployment-cron-ingress",
              NS,
              proposalSpec("cron", "batch", 8080),
              List.of(
                  new RuleEvidence(
                      0,
                      BATCH,
                      List.of(new PortEvidence("TCP", "8080", T1.toString(), T2.toString(), 3)))),
              T2);
      produce(topics.proposals(), proposal.target().key(), proposal);
      // ... and three violations of api's policy by batch: TCP 9090 twice (one record, last seen
      // T2), and once a request on TCP 9091 outside the policy's HTTP rules.
      produce(topics.violations(), NS + "/deployment-api-ingress", violation(9090, T1));
      produce(topics.violations(), NS + "/deployment-api-ingress", violation(9090, T2));
      produce(
          topics.violations(),
          NS + "/deployment-api-ingress",
          violation(9091, T1)
              .withHttp(
                  new io.kubewarden.networkenforcer.common.flow.HttpRequest(
                      "POST", "/admin", false)));
      KubernetesClient admin = api.client();
      await()
          .atMost(WAIT)
          .until(
              () ->
                  admin
                              .resources(WorkloadNetworkPolicyProposal.class)
                              .inNamespace(NS)
                              .withName("deployment-cron-ingress")
                              .get()
                          != null
                      && apiPolicy(admin).getStatus() != null
                      && apiPolicy(admin).getStatus().getViolationCount() == 3);
      List<ViolationRecord> records = apiPolicy(admin).getStatus().getViolations();
      assertThat(records).hasSize(2);
      String lastSeen =
          records.stream().map(ViolationRecord::getTimestamp).max(String::compareTo).orElseThrow();
      assertThat(Instant.parse(lastSeen)).isEqualTo(T2);
      await()
          .atMost(WAIT)
          .untilAsserted(
              () -> {
                JsonNode m = model(port);
                assertThat(m.get("live").get("violations").size()).as(m::toString).isEqualTo(2);
                assertThat(m.get("proposals").size()).as(m::toString).isEqualTo(1);
                assertThat(m.get("proposals").get(0).get("rules").size())
                    .as(m::toString)
                    .isEqualTo(1);
              });

      ChromeDriver browser = chromium.driver();
      browser.get("http://127.0.0.1:" + port + "/view");
      assertThat(browser.executeScript("return typeof window.networkEnforcerReport"))
          .isEqualTo("object");
      assertThat(workloads(browser)).containsExactlyInAnyOrder(API, WEB, BATCH, CRON);
      assertThat(edges(browser))
          .isEqualTo(
              Set.of(
                  "learned|" + BATCH + " -> " + CRON + "|TCP/8080 \u00d73",
                  "allowed|" + WEB + " -> " + API + "|TCP/8080",
                  "allowed|" + BATCH + " -> " + WEB + "|TCP/80",
                  "violation|"
                      + BATCH
                      + " -> "
                      + API
                      + "|\u26a0 TCP/9090 \u00d71\nTCP/9091 \u00d71\nlast "
                      + lastSeen));
      // The violation edge is drawn red, the others are not.
      assertThat(lineColor(browser, "violation: " + BATCH + " -> " + API))
          .isEqualTo("rgb(207,34,46)");
      assertThat(lineColor(browser, "allowed: " + WEB + " -> " + API))
          .isNotEqualTo("rgb(207,34,46)");
      // Modes on the nodes: api protect, web monitor, cron learning.
      assertThat(nodeLabel(browser, API)).endsWith("ingress: protect");
      assertThat(nodeLabel(browser, WEB)).endsWith("ingress: monitor");
      assertThat(nodeLabel(browser, CRON)).endsWith("ingress: learning");
      assertThat(nodeLabel(browser, BATCH)).isEqualTo("batch\nDeployment");

      // The policies table: modes, counts and the command that switches the mode.
      assertThat(rows(browser, "#policies"))
          .containsExactly(
              "shop/deployment-api-ingress|shop/api|Ingress|protect|2|3",
              "shop/deployment-web-ingress|shop/web|Ingress|monitor|0|0",
              "shop/deployment-cron-ingress (proposal)|shop/cron|Ingress|learning||");
      assertThat(commands(browser, "#policies tr[data-policy='shop/deployment-api-ingress']"))
          .containsExactly(
              "kubectl patch wnp deployment-api-ingress -n shop --type merge -p '{\"spec\":{\"mode\":\"monitor\"}}'");
      assertThat(commands(browser, "#policies tr[data-policy='shop/deployment-web-ingress']"))
          .containsExactly(
              "kubectl patch wnp deployment-web-ingress -n shop --type merge -p '{\"spec\":{\"mode\":\"protect\"}}'");
      assertThat(commands(browser, "#policies tr[data-proposal='shop/deployment-cron-ingress']"))
          .containsExactly(
              "kubectl label wnpp deployment-cron-ingress -n shop networkenforcer.kubewarden.io/promote=monitor",
              "kubectl label wnpp deployment-cron-ingress -n shop networkenforcer.kubewarden.io/promote=protect");
      // One acknowledge command per active record, with the record's id from the status.
      List<String> expectedAcks =
          records.stream()
              .map(
                  r ->
                      "kubectl annotate wnp deployment-api-ingress -n shop "
                          + Labels.ACKNOWLEDGE_PREFIX
                          + r.getId()
                          + "=\"<reason>\"")
              .toList();
      assertThat(commands(browser, "#violations"))
          .containsExactlyInAnyOrderElementsOf(expectedAcks);
      assertThat(rows(browser, "#violations"))
          .containsExactlyInAnyOrderElementsOf(
              records.stream()
                  .map(
                      r ->
                          "shop/deployment-api-ingress|"
                              + r.getId()
                              + "|shop/batch|shop/api|TCP/"
                              + r.getDstPort()
                              + (r.getDstPort() == 9091 ? " POST /admin" : "")
                              + "|monitor|"
                              + r.getTimestamp())
                  .toList());

      // A click on api lists its policy, the violations with their commands.
      browser.executeScript("window.networkEnforcerReport.showDetails(arguments[0])", API);
      WebElement details = browser.findElement(By.id("details"));
      assertThat(details.getText())
          .contains("Mode: ingress: protect")
          .contains("2 active violations, 3 seen in all");
      assertThat(details.findElements(By.cssSelector("li.violation"))).hasSize(2);
      assertThat(commands(browser, "#details"))
          .containsAll(expectedAcks)
          .contains(
              "kubectl patch wnp deployment-api-ingress -n shop --type merge -p '{\"spec\":{\"mode\":\"monitor\"}}'");
      // Read-only: no form, no button that is not a view switch (graph/table, namespaces
      // open/closed).
      assertThat(browser.findElements(By.tagName("form"))).isEmpty();
      assertThat(
              browser.findElements(By.cssSelector("button")).stream()
                  .map(b -> b.getAttribute("id"))
                  .toList())
          .containsExactlyInAnyOrder("show-graph", "show-table", "expand-all", "collapse-all");
      screenshot(browser);

      // The acknowledge command is right: what it sets, done through the API, moves the record.
      ViolationRecord first = records.get(0);
      admin
          .resources(WorkloadNetworkPolicy.class)
          .inNamespace(NS)
          .withName("deployment-api-ingress")
          .edit(
              x -> {
                x.getMetadata()
                    .setAnnotations(Map.of(Labels.ACKNOWLEDGE_PREFIX + first.getId(), "expected"));
                return x;
              });
      await().atMost(WAIT).until(() -> model(port).get("live").get("violations").size() == 1);
      assertThat(model(port).get("live").get("violations").get(0).get("id").asLong())
          .isNotEqualTo(first.getId());

      // The page takes no write: anything but GET and HEAD is refused.
      HttpResponse<String> post =
          HTTP.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/view"))
                  .POST(HttpRequest.BodyPublishers.ofString("mode=protect"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(post.statusCode()).isEqualTo(405);
      assertThat(post.headers().firstValue("Allow")).hasValue("GET, HEAD");

      assertPageViewsSendNothingToTheApiServer(port, browser);
    } finally {
      stopWriter(writer);
    }
  }

  @Test
  void withoutTheOptionThereIsNoPage() throws Exception {
    CompletableFuture<CliRun> writer = startWriter(false);
    try {
      int port = managementPort(writer);
      int probes = ServiceRunner.active().iterator().next().probePort();
      await().atMost(WAIT).until(() -> get(probes, "/readyz").statusCode() == 200);
      assertThat(get(probes, "/healthz").statusCode()).isEqualTo(200);
      assertThat(get(port, "/view").statusCode()).isEqualTo(404);
    } finally {
      stopWriter(writer);
    }
  }

  /**
   * Page views between two markers in the audit log: the writer's user made no get or list of a
   * cached resource in between, while it did renew its Lease (so its requests are in the log).
   */
  private static void assertPageViewsSendNothingToTheApiServer(int port, ChromeDriver browser)
      throws Exception {
    String start = marker("start");
    for (int i = 0; i < 5; i++) {
      assertThat(get(port, "/view").statusCode()).isEqualTo(200);
    }
    browser.navigate().refresh();
    assertThat(
            browser.executeScript("return window.networkEnforcerReport.data.live.policies.length"))
        .isEqualTo(2L);
    // Wait for a Lease request of the writer after the start marker: its requests do reach the log.
    await()
        .atMost(WAIT)
        .until(
            () ->
                between(start, null).stream()
                    .anyMatch(
                        e ->
                            WRITER_USER.equals(user(e))
                                && "leases".equals(e.path("objectRef").path("resource").asText())));
    String end = marker("end");
    List<JsonNode> window = between(start, end);
    assertThat(window).as("audit events between the markers").isNotEmpty();
    assertThat(
            window.stream()
                .filter(
                    e ->
                        WRITER_USER.equals(user(e))
                            && Set.of("get", "list").contains(e.path("verb").asText())
                            && CACHED.contains(e.path("objectRef").path("resource").asText()))
                .map(e -> e.path("verb").asText() + " " + e.path("requestURI").asText())
                .toList())
        .isEmpty();
  }

  /**
   * A request only this test makes (a GET of a namespace that does not exist), then its audit
   * event.
   */
  private static String marker(String what) {
    String name = "audit-marker-" + what + "-" + UUID.randomUUID().toString().substring(0, 8);
    assertThat(api.client().namespaces().withName(name).get()).isNull();
    await()
        .atMost(WAIT)
        .until(
            () ->
                auditEvents().stream()
                    .anyMatch(e -> name.equals(e.path("objectRef").path("name").asText())));
    return name;
  }

  /** The audit events after the start marker's, up to the end marker's (or the end of the log). */
  private static List<JsonNode> between(String start, String end) throws IOException {
    List<JsonNode> out = new ArrayList<>();
    boolean in = false;
    for (JsonNode e : auditEvents()) {
      String name = e.path("objectRef").path("name").asText();
      if (name.equals(start)) {
        in = true;
      } else if (name.equals(end)) {
        break;
      } else if (in) {
        out.add(e);
      }
    }
    return out;
  }

  private static List<JsonNode> auditEvents() throws IOException {
    List<JsonNode> out = new ArrayList<>();
    for (String line : Files.readAllLines(auditLog)) {
      if (!line.isBlank()) {
        out.add(JSON.readTree(line));
      }
    }
    return out;
  }

  private static String user(JsonNode event) {
    return event.path("user").path("username").asText();
  }

  private static CompletableFuture<CliRun> startWriter(boolean liveView) throws IOException {
    assertThat(ServiceRunner.active()).isEmpty();
    Map<String, String> env = new HashMap<>();
    env.put("NE_KAFKA_BOOTSTRAP_SERVERS", broker.bootstrapServers());
    env.put("NE_KAFKA_TOPIC_PREFIX", PREFIX);
    env.put("NE_KAFKA_REPLICATION_FACTOR", "1");
    env.put("NE_KAFKA_PARTITIONS", "1");
    env.put("NE_MANAGEMENT_PORT", "0");
    env.put("NE_PROBE_PORT", "0");
    // A browser sends no bearer token: the page itself is tested here, its authentication in
    // ManagementAuthTest.
    env.put("NE_MANAGEMENT_AUTH", "none");
    env.put("NE_PROVIDER", "calico");
    env.put("NE_KUBECONFIG", api.kubeconfigFor(WRITER_USER, "system:masters").toString());
    env.put("NE_POD_NAME", "writer-0");
    env.put("NE_POD_NAMESPACE", "network-enforcer");
    env.put("NE_STATUS_SYNC_INTERVAL", "1s");
    env.put("NE_TELEMETRY_COLLECTOR_STRATEGY", "none");
    if (liveView) {
      env.put("NE_LIVE_VIEW", "true");
    }
    return CompletableFuture.supplyAsync(() -> CliRun.run(env, "writer"));
  }

  private static int managementPort(CompletableFuture<CliRun> writer) {
    await().atMost(WAIT).until(() -> writer.isDone() || !ServiceRunner.active().isEmpty());
    assertThat(writer.isDone())
        .as(() -> "the writer ended early: " + writer.join().err())
        .isFalse();
    return ServiceRunner.active().iterator().next().managementPort();
  }

  private static void stopWriter(CompletableFuture<CliRun> writer) throws Exception {
    ServiceRunner.stopAll();
    CliRun result = writer.get(2, TimeUnit.MINUTES);
    assertThat(result.exitCode()).as(result.err()).isZero();
  }

  private static HttpResponse<String> get(int port, String path) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** The model inlined in the served page. */
  private static JsonNode model(int port) throws Exception {
    String page = get(port, "/view").body();
    String open = "<script type=\"application/json\" id=\"report-data\">";
    int start = page.indexOf(open);
    assertThat(start).as(page).isPositive();
    return JSON.readTree(page.substring(start + open.length(), page.indexOf("</script>", start)));
  }

  private static <V> void produce(Topic<String, V> topic, String key, V value) throws Exception {
    try (KafkaProducer<String, V> producer =
        new KafkaProducer<>(
            new KafkaSettings(broker.bootstrapServers(), PREFIX, 1, (short) 1, Map.of())
                .clientConfig(),
            topic.keySerde().serializer(),
            topic.valueSerde().serializer())) {
      producer.send(new ProducerRecord<>(topic.name(), key, value)).get();
    }
  }

  private static WorkloadNetworkPolicy apiPolicy(KubernetesClient admin) {
    return admin
        .resources(WorkloadNetworkPolicy.class)
        .inNamespace(NS)
        .withName("deployment-api-ingress")
        .get();
  }

  private static ViolationObservation violation(int port, Instant at) {
    return new ViolationObservation(
        NS,
        "deployment-api-ingress",
        at,
        endpoint("batch"),
        endpoint("api"),
        Protocol.TCP,
        port,
        Mode.monitor,
        null,
        null,
        Provider.calico,
        Backend.kubernetes,
        Direction.Ingress,
        1);
  }

  private static ViolationEndpoint endpoint(String workload) {
    return new ViolationEndpoint(NS, "Deployment", workload, null, app(workload));
  }

  private static LabelSelector app(String name) {
    return new LabelSelectorBuilder().withMatchLabels(Map.of("app", name)).build();
  }

  private static Deployment deployment(String name) {
    return new DeploymentBuilder()
        .withMetadata(new ObjectMetaBuilder().withName(name).withNamespace(NS).build())
        .withNewSpec()
        .withSelector(app(name))
        .withNewTemplate()
        .withNewMetadata()
        .withLabels(Map.of("app", name))
        .endMetadata()
        .withNewSpec()
        .addNewContainer()
        .withName("c")
        .withImage("nginx")
        .endContainer()
        .endSpec()
        .endTemplate()
        .endSpec()
        .build();
  }

  private static NetworkPolicySpec ingressFrom(String target, String peer, int port) {
    return new NetworkPolicySpecBuilder()
        .withPodSelector(app(target))
        .withPolicyTypes("Ingress")
        .addNewIngress()
        .addNewFrom()
        .withNewNamespaceSelector()
        .withMatchLabels(Map.of(Labels.NAMESPACE_NAME, NS))
        .endNamespaceSelector()
        .withPodSelector(app(peer))
        .endFrom()
        .addNewPort()
        .withProtocol("TCP")
        .withNewPort(port)
        .endPort()
        .endIngress()
        .build();
  }

  private static WorkloadNetworkPolicyProposalSpec proposalSpec(
      String target, String peer, int port) {
    WorkloadNetworkPolicyProposalSpec s = new WorkloadNetworkPolicyProposalSpec();
    s.setBackend(Backend.kubernetes);
    s.setDirection(Direction.Ingress);
    s.setTargetRef(new TargetRef(WorkloadKind.Deployment, target));
    s.setKubernetes(ingressFrom(target, peer, port));
    return s;
  }

  private static WorkloadNetworkPolicy wnp(String target, String peer, int port, Mode mode) {
    WorkloadNetworkPolicy p = new WorkloadNetworkPolicy();
    p.setMetadata(
        new ObjectMetaBuilder()
            .withName("deployment-" + target + "-ingress")
            .withNamespace(NS)
            .build());
    WorkloadNetworkPolicySpec s = new WorkloadNetworkPolicySpec();
    s.copySharedFrom(proposalSpec(target, peer, port));
    s.setMode(mode);
    p.setSpec(s);
    return p;
  }

  @SuppressWarnings("unchecked")
  private static List<String> workloads(ChromeDriver browser) {
    return (List<String>)
        browser.executeScript(
            "return window.networkEnforcerReport.cy.nodes('.workload').map(function (n) { return n.id(); })");
  }

  /** Every edge as kind|id without the kind prefix|label. */
  @SuppressWarnings("unchecked")
  private static Set<String> edges(ChromeDriver browser) {
    List<String> raw =
        (List<String>)
            browser.executeScript(
                "return window.networkEnforcerReport.cy.edges().map("
                    + "function (e) { var k = ['learned', 'allowed', 'violation']"
                    + ".filter(function (c) { return e.hasClass(c); })[0];"
                    + " return k + '|' + e.data('source') + ' -> ' + e.data('target') + '|' + e.data('label'); })");
    return new TreeSet<>(raw);
  }

  private static String lineColor(ChromeDriver browser, String edgeId) {
    return ((String)
            browser.executeScript(
                "return window.networkEnforcerReport.cy.getElementById(arguments[0])"
                    + ".style('line-color')",
                edgeId))
        .replace(" ", "");
  }

  private static String nodeLabel(ChromeDriver browser, String id) {
    return (String)
        browser.executeScript(
            "return window.networkEnforcerReport.cy.getElementById(arguments[0]).data('label')",
            id);
  }

  /** Rows of a table as their first six cells' text joined by |. */
  private static List<String> rows(ChromeDriver browser, String table) {
    return browser.findElements(By.cssSelector(table + " tbody tr")).stream()
        .map(
            row ->
                String.join(
                    "|",
                    row.findElements(By.tagName("td")).stream()
                        .limit(table.equals("#violations") ? 7 : 6)
                        .map(td -> td.getAttribute("textContent"))
                        .toList()))
        .toList();
  }

  private static List<String> commands(ChromeDriver browser, String within) {
    return browser.findElements(By.cssSelector(within + " code.command")).stream()
        .map(c -> c.getAttribute("textContent"))
        .toList();
  }

  /** The live view as a person sees it, kept at target/live-view-screenshot.png for review. */
  private static void screenshot(ChromeDriver browser) throws IOException {
    Path png = Path.of("target", "live-view-screenshot.png");
    Files.createDirectories(png.getParent());
    Files.copy(
        browser.getScreenshotAs(OutputType.FILE).toPath(),
        png,
        StandardCopyOption.REPLACE_EXISTING);
    BufferedImage image = ImageIO.read(png.toFile());
    Rectangle graph = browser.findElement(By.id("graph")).getRect();
    // The violation edge and its label are drawn in red (#cf222e, give or take anti-aliasing) in
    // the graph.
    long redPixels = 0;
    for (int x = graph.x; x < graph.x + graph.width && x < image.getWidth(); x++) {
      for (int y = graph.y; y < graph.y + graph.height && y < image.getHeight(); y++) {
        int rgb = image.getRGB(x, y);
        int r = (rgb >> 16) & 0xff;
        int g = (rgb >> 8) & 0xff;
        int b = rgb & 0xff;
        if (r > 180 && g < 90 && b < 100) {
          redPixels++;
        }
      }
    }
    assertThat(redPixels).as("red violation pixels in " + png.toAbsolutePath()).isGreaterThan(200);
  }
}
