package io.kubewarden.networkenforcer.cli.report;

import static io.kubewarden.networkenforcer.cli.CliRun.sample;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.kubewarden.networkenforcer.cli.CliRun;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import javax.imageio.ImageIO;
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
 * {@code learn --report} over the sample captures, opened in headless Chromium whose every network
 * request would fail (a proxy on a closed port): the graph, the filters, the details panel, the
 * table and the dropped records must show exactly what learn wrote to the proposal manifests.
 */
class LearnReportInBrowserTest {
  private static final String CLIENT = "demo/Deployment/http-client";
  private static final String SERVER = "demo/Deployment/http-server";
  private static final String COREDNS = "kube-system/Deployment/coredns";
  private static final String STRIPE = "142.251.209.46/32";
  private static final String OUTSIDE = "outside-cluster";
  private static final String CLIENT_SA = "demo/ServiceAccount/http-client-sa";
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  @TempDir static Path dir;
  private static HeadlessChromium chromium;

  @BeforeAll
  static void startBrowser() {
    // Any fetch the page tried would go to this proxy and fail: the report must not need one.
    chromium =
        new HeadlessChromium("--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>");
  }

  @AfterAll
  static void stopBrowser() {
    if (chromium != null) {
      chromium.close();
    }
  }

  @Test
  void hubbleReportShowsTheLearnedGraphFiltersAndDetails() {
    Path out =
        learn(
            "hubble",
            "hubble-flows.jsonl",
            "--cluster-state",
            sample("cluster-state.json").toString());
    ChromeDriver browser = open(out.resolve("report.html"));

    assertRenderedOffline(browser);
    // The call to api.stripe.com is learned as an address rule: its peer is a node of its own.
    assertThat(workloads(browser)).containsExactlyInAnyOrder(CLIENT, SERVER, COREDNS, STRIPE);
    assertThat(namespaces(browser))
        .containsExactlyInAnyOrder(
            "namespace:demo", "namespace:kube-system", "namespace:(outside the cluster)");
    assertThat(edgePorts(browser))
        .isEqualTo(
            Set.of(
                CLIENT + " -> " + SERVER + " TCP/18080", CLIENT + " -> " + SERVER + " UDP/18081",
                CLIENT + " -> " + COREDNS + " UDP/53", CLIENT + " -> " + STRIPE + " TCP/443"));
    assertThat(edgePortsWithCounts(browser)).isEqualTo(edgesFromManifests(out));
    assertThat(tableRows(browser, false)).isEqualTo(rulesFromManifests(out)).hasSize(7);

    // Namespace filter: kube-system's workload, its peer in demo, and their one connection.
    chooseNamespace(browser, "kube-system");
    assertThat(visibleWorkloads(browser)).containsExactlyInAnyOrder(COREDNS, CLIENT);
    assertThat(visibleConnections(browser)).containsExactly(CLIENT + " -> " + COREDNS);
    assertThat(tableRows(browser, true))
        .hasSize(2)
        .allSatisfy(r -> assertThat(r).contains("|UDP/53|"));

    // Search within all namespaces.
    chooseNamespace(browser, "");
    browser.findElement(By.id("search")).sendKeys("server");
    assertThat(visibleWorkloads(browser)).containsExactlyInAnyOrder(SERVER, CLIENT);
    assertThat(visibleConnections(browser)).containsExactly(CLIENT + " -> " + SERVER);
    assertThat(tableRows(browser, true))
        .hasSize(4)
        .noneSatisfy(r -> assertThat(r).contains("UDP/53"));
    browser.findElement(By.id("search")).clear();
    browser.findElement(By.id("search")).sendKeys("no-such-workload");
    assertThat(visibleWorkloads(browser)).isEmpty();
    assertThat(tableRows(browser, true)).isEmpty();
    browser.findElement(By.id("search")).clear();
    browser.executeScript("document.getElementById('search').dispatchEvent(new Event('input'))");
    assertThat(visibleWorkloads(browser)).hasSize(4);

    // A click on the client's node lists its egress proposal with the evidence of each port.
    click(browser, CLIENT);
    WebElement details = browser.findElement(By.id("details"));
    assertThat(details.findElement(By.tagName("h3")).getText()).isEqualTo("demo/http-client");
    assertThat(details.findElements(By.cssSelector("ul.proposal[data-direction='Egress'] > li")))
        .hasSize(3);
    assertThat(details.findElements(By.cssSelector("ul.proposal[data-direction='Ingress']")))
        .isEmpty();
    List<String> evidence =
        details.findElements(By.cssSelector("li.evidence")).stream()
            .map(WebElement::getText)
            .toList();
    assertThat(evidence)
        .hasSize(4)
        .allSatisfy(
            e ->
                assertThat(e)
                    .containsPattern(
                        "^(TCP|UDP)/\\d+: \\d+ seen, first \\d{4}-\\d\\d-\\d\\dT.*Z, last \\d{4}-\\d\\d-\\d\\dT.*Z"
                            // Every call of the client was first reported at the client.
                            + " \\(seen as source-record\\)$"));
    click(browser, COREDNS);
    assertThat(details.findElement(By.tagName("h3")).getText()).isEqualTo("kube-system/coredns");
    assertThat(
            details.findElements(
                By.cssSelector("ul.proposal[data-direction='Ingress'] li.evidence")))
        .singleElement()
        .satisfies(e -> assertThat(e.getText()).startsWith("UDP/53: "));

    // The node's connection was dropped at ingest, with its count; the internet egress was learned.
    assertThat(droppedRows(browser))
        .contains("ingest|host|1")
        .noneMatch(r -> r.startsWith("ingest|external|"));

    // The table view shows the same rules as the graph.
    browser.findElement(By.id("show-table")).click();
    assertThat(browser.findElement(By.id("table-view")).isDisplayed()).isTrue();
    assertThat(browser.findElement(By.id("graph-view")).isDisplayed()).isFalse();
    assertThat(tableRows(browser, true)).isEqualTo(rulesFromManifests(out));
  }

  @Test
  void goldmaneReportShowsTheSameGraph() {
    Path out =
        learn(
            "goldmane",
            "goldmane-flows.jsonl",
            "--cluster-state",
            sample("cluster-state.json").toString());
    ChromeDriver browser = open(out.resolve("report.html"));

    assertRenderedOffline(browser);
    // Goldmane names no address for a public network: the learned rule is "anywhere outside the
    // cluster".
    assertThat(workloads(browser)).containsExactlyInAnyOrder(CLIENT, SERVER, COREDNS, OUTSIDE);
    assertThat(edgePorts(browser))
        .isEqualTo(
            Set.of(
                CLIENT + " -> " + SERVER + " TCP/18080", CLIENT + " -> " + SERVER + " UDP/18081",
                CLIENT + " -> " + COREDNS + " UDP/53", CLIENT + " -> " + OUTSIDE + " TCP/443"));
    assertThat(edgePortsWithCounts(browser)).isEqualTo(edgesFromManifests(out));
    assertThat(tableRows(browser, false)).isEqualTo(rulesFromManifests(out)).hasSize(7);
  }

  @Test
  void ztunnelReportShowsTheIstioPrincipalAsAServiceAccountNode() {
    Path out =
        learn(
            "ztunnel", "ztunnel.jsonl", "--cluster-state", sample("cluster-state.json").toString());
    ChromeDriver browser = open(out.resolve("report.html"));

    assertRenderedOffline(browser);
    assertThat(workloads(browser)).containsExactlyInAnyOrder(SERVER, CLIENT_SA);
    assertThat(edgePorts(browser)).containsExactly(CLIENT_SA + " -> " + SERVER + " TCP/18080");
    assertThat(tableRows(browser, false))
        .isEqualTo(rulesFromManifests(out))
        .hasSize(1)
        .allSatisfy(
            r ->
                assertThat(r)
                    .startsWith(
                        "demo/deployment-http-server-ingress|cluster.local/ns/demo/sa/"
                            + "http-client-sa|TCP/18080|"));
    click(browser, CLIENT_SA);
    assertThat(browser.findElement(By.cssSelector("#details")).getText())
        .contains("peer only")
        .contains("Ingress of demo/http-server");
  }

  /** The page as a person sees it, kept at target/report-screenshot.png for review. */
  @Test
  void screenshotOfTheHubbleReport() throws IOException {
    Path out =
        learn(
            "screenshot",
            "hubble-flows.jsonl",
            "--cluster-state",
            sample("cluster-state.json").toString());
    ChromeDriver browser = open(out.resolve("report.html"));
    click(browser, CLIENT);
    Path png = Path.of("target", "report-screenshot.png");
    Files.createDirectories(png.getParent());
    Files.copy(
        browser.getScreenshotAs(OutputType.FILE).toPath(),
        png,
        StandardCopyOption.REPLACE_EXISTING);

    BufferedImage image = ImageIO.read(png.toFile());
    Rectangle graph = browser.findElement(By.id("graph")).getRect();
    // The learned workloads are drawn in the graph's area in their fill colour (#ddf4ff).
    long learnedPixels = 0;
    for (int x = graph.x; x < graph.x + graph.width && x < image.getWidth(); x++) {
      for (int y = graph.y; y < graph.y + graph.height && y < image.getHeight(); y++) {
        if ((image.getRGB(x, y) & 0xffffff) == 0xddf4ff) {
          learnedPixels++;
        }
      }
    }
    assertThat(learnedPixels)
        .as("pixels of learned workload nodes in " + png.toAbsolutePath())
        .isGreaterThan(1000);
  }

  private static Path learn(String name, String capture, String... more) {
    Path out = dir.resolve(name);
    List<String> args =
        new ArrayList<>(
            List.of(
                "learn",
                "--input",
                sample(capture).toString(),
                "--output-dir",
                out.toString(),
                "--report",
                out.resolve("report.html").toString()));
    args.addAll(List.of(more));
    CliRun run = CliRun.run(args.toArray(String[]::new));
    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).contains("report:              " + out.resolve("report.html"));
    return out;
  }

  private static ChromeDriver open(Path report) {
    ChromeDriver browser = chromium.driver();
    browser.get(report.toUri().toString());
    return browser;
  }

  /** Drawn, and no request for anything but the file itself was made. */
  private static void assertRenderedOffline(ChromeDriver browser) {
    assertThat(browser.findElements(By.cssSelector("#graph canvas"))).isNotEmpty();
    assertThat(
            ((Number)
                    browser.executeScript("return window.networkEnforcerReport.cy.nodes().length"))
                .intValue())
        .isPositive();
    assertThat(
            (List<?>)
                browser.executeScript(
                    "return performance.getEntriesByType('resource').map(function (e) { return e.name; })"))
        .isEmpty();
    assertThat(
            browser.findElements(By.cssSelector("script[src], link[href], img[src]:not([src=''])")))
        .isEmpty();
  }

  @SuppressWarnings("unchecked")
  private static List<String> strings(ChromeDriver browser, String script) {
    return (List<String>) browser.executeScript(script);
  }

  private static List<String> workloads(ChromeDriver browser) {
    return strings(
        browser,
        "return window.networkEnforcerReport.cy.nodes('.workload').map(function (n) { return n.id(); })");
  }

  private static List<String> namespaces(ChromeDriver browser) {
    return strings(
        browser,
        "return window.networkEnforcerReport.cy.nodes('.namespace').map(function (n) { return n.id(); })");
  }

  private static List<String> visibleWorkloads(ChromeDriver browser) {
    return strings(browser, "return window.networkEnforcerReport.visibleWorkloads()");
  }

  private static List<String> visibleConnections(ChromeDriver browser) {
    return strings(browser, "return window.networkEnforcerReport.visibleConnections()");
  }

  /** "source -> target PROTO/port" for every port in every edge label of the graph. */
  private static Set<String> edgePorts(ChromeDriver browser) {
    Set<String> out = new TreeSet<>();
    edgePortsWithCounts(browser).forEach(e -> out.add(e.replaceFirst(" \u00d7\\d+$", "")));
    return out;
  }

  private static Set<String> edgePortsWithCounts(ChromeDriver browser) {
    Set<String> out = new TreeSet<>();
    for (String edge :
        strings(
            browser,
            "return window.networkEnforcerReport.cy.edges().map(function (e) { "
                + "return e.source().id() + ' -> ' + e.target().id() + '\\n' + e.data('label'); })")) {
      String[] lines = edge.split("\n");
      for (int i = 1; i < lines.length; i++) {
        out.add(lines[0] + " " + lines[i]);
      }
    }
    return out;
  }

  /**
   * "proposal|peer|PROTO/port|count|first|last" per row of the rules table (only the visible rows
   * if asked).
   */
  private static Set<String> tableRows(ChromeDriver browser, boolean visibleOnly) {
    Set<String> out = new TreeSet<>();
    for (WebElement row : browser.findElements(By.cssSelector("#rules tbody tr"))) {
      if (visibleOnly && row.getAttribute("hidden") != null) {
        continue;
      }
      List<String> c =
          row.findElements(By.tagName("td")).stream()
              .map(td -> td.getAttribute("textContent"))
              .toList();
      out.add(String.join("|", c.get(8), c.get(2), c.get(4), c.get(5), c.get(6), c.get(7)));
    }
    return out;
  }

  private static List<String> droppedRows(ChromeDriver browser) {
    return browser.findElements(By.cssSelector("#dropped tbody tr")).stream()
        .map(
            row ->
                String.join(
                    "|",
                    row.findElements(By.tagName("td")).stream()
                        .limit(3)
                        .map(td -> td.getAttribute("textContent"))
                        .toList()))
        .toList();
  }

  private static void chooseNamespace(ChromeDriver browser, String namespace) {
    browser.findElement(By.id("namespace-filter")).click();
    browser
        .findElement(By.cssSelector("#namespace-filter option[value='" + namespace + "']"))
        .click();
    assertThat(browser.findElement(By.id("namespace-filter")).getDomProperty("value"))
        .isEqualTo(namespace);
  }

  /** A real mouse click on the node, at its rendered position inside the graph. */
  private static void click(ChromeDriver browser, String nodeId) {
    @SuppressWarnings("unchecked")
    Map<String, Number> pos =
        (Map<String, Number>)
            browser.executeScript(
                "return window.networkEnforcerReport.cy.getElementById(arguments[0]).renderedPosition()",
                nodeId);
    HeadlessChromium.clickInGraph(browser, pos.get("x").doubleValue(), pos.get("y").doubleValue());
  }

  private static Map<String, WorkloadNetworkPolicyProposal> manifests(Path out) {
    Map<String, WorkloadNetworkPolicyProposal> proposals = new TreeMap<>();
    try (Stream<Path> files = Files.walk(out)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".yaml")).toList()) {
        WorkloadNetworkPolicyProposal p =
            SERIALIZATION.unmarshal(Files.readString(f), WorkloadNetworkPolicyProposal.class);
        proposals.put(p.getMetadata().getNamespace() + "/" + p.getMetadata().getName(), p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    assertThat(proposals).isNotEmpty();
    return proposals;
  }

  /**
   * The rows the table must have: one per port of each rule's evidence in the written manifests.
   */
  private static Set<String> rulesFromManifests(Path out) {
    Set<String> rows = new TreeSet<>();
    manifests(out)
        .forEach(
            (name, p) ->
                p.getStatus()
                    .getEvidence()
                    .forEach(
                        rule ->
                            rule.getPorts()
                                .forEach(
                                    port ->
                                        rows.add(
                                            String.join(
                                                "|",
                                                name,
                                                rule.getPeer(),
                                                port.getProtocol() + "/" + port.getPort(),
                                                Long.toString(port.getCount()),
                                                port.getFirstSeen(),
                                                port.getLastSeen())))));
    return rows;
  }

  /**
   * The edges the graph must have for Kubernetes proposals (whose peers are ns/Kind/name): from the
   * connecting workload to the one it connects to, with the larger count of the two ends' evidence.
   */
  private static Set<String> edgesFromManifests(Path out) {
    Map<String, Long> counts = new TreeMap<>();
    manifests(out)
        .values()
        .forEach(
            p -> {
              String target =
                  p.getMetadata().getNamespace()
                      + "/"
                      + p.getSpec().getTargetRef().getKind()
                      + "/"
                      + p.getSpec().getTargetRef().getName();
              boolean ingress = p.getSpec().getDirection().name().equals("Ingress");
              p.getStatus()
                  .getEvidence()
                  .forEach(
                      rule ->
                          rule.getPorts()
                              .forEach(
                                  port ->
                                      counts.merge(
                                          (ingress
                                                  ? rule.getPeer() + " -> " + target
                                                  : target + " -> " + rule.getPeer())
                                              + " "
                                              + port.getProtocol()
                                              + "/"
                                              + port.getPort(),
                                          port.getCount(),
                                          Math::max)));
            });
    Set<String> edges = new TreeSet<>();
    counts.forEach((edge, n) -> edges.add(edge + " \u00d7" + n));
    return edges;
  }
}
