package io.kubewarden.networkenforcer.cli.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kubewarden.networkenforcer.cli.CliRun;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;

/**
 * {@code learn --report} over a synthetic capture of 20 and of 1,000 workloads ({@link
 * SyntheticCapture}), opened in headless Chromium: what the page shows first, whether its text can
 * be read, and how long it takes. Prints "report NNNN workloads: ..." figures and keeps a
 * screenshot per size under target/ (report-scale-20.png, report-scale-1000.png); no assertion is
 * on a time.
 */
class ReportAtScaleInBrowserTest {
  private static final long SEED = 37;

  @TempDir static Path dir;
  private static HeadlessChromium chromium;

  @BeforeAll
  static void startBrowser() {
    chromium =
        new HeadlessChromium("--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>");
  }

  @AfterAll
  static void stopBrowser() {
    if (chromium != null) {
      chromium.close();
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {20, 1000})
  void reportOfALargeCluster(int size) throws IOException {
    Path out = dir.resolve("scale-" + size);
    Files.createDirectories(out);
    Path capture = out.resolve("hubble-flows.jsonl");
    List<SyntheticCapture.Workload> cluster = SyntheticCapture.write(capture, size, SEED);
    Path report = out.resolve("report.html");
    CliRun run =
        CliRun.run(
            "learn",
            "--input",
            capture.toString(),
            "--output-dir",
            out.resolve("proposals").toString(),
            "--report",
            report.toString());
    assertThat(run.exitCode()).as(run.err()).isZero();
    Files.copy(
        report,
        Path.of("target", "report-scale-" + size + ".html"),
        StandardCopyOption.REPLACE_EXISTING);
    Map<String, List<String>> byNamespace =
        cluster.stream()
            .collect(
                Collectors.groupingBy(
                    SyntheticCapture.Workload::namespace,
                    TreeMap::new,
                    Collectors.mapping(
                        w -> w.namespace() + "/" + w.kind() + "/" + w.name(),
                        Collectors.toList())));

    ChromeDriver browser = chromium.driver();
    browser.get(report.toUri().toString());
    await().atMost(Duration.ofSeconds(60)).until(() -> timing(browser, "firstRenderMs") != null);
    long firstRender = timing(browser, "firstRenderMs");
    long layout = timing(browser, "layoutMs");
    screenshot(browser, "report-scale-" + size + ".png");

    // The warnings come first: above the summary and the graph, naming the loss and the
    // convergence.
    WebElement warnings = browser.findElement(By.id("warnings"));
    assertThat(warnings.isDisplayed()).isTrue();
    assertThat(warnings.getRect().y)
        .isLessThan(browser.findElement(By.id("summary")).getRect().y)
        .isLessThan(browser.findElement(By.id("graph")).getRect().y);
    assertThat(warnings.findElements(By.tagName("li")))
        .extracting(WebElement::getText)
        .anySatisfy(w -> assertThat(w).startsWith("lost events: 37 "))
        .anySatisfy(w -> assertThat(w).startsWith("converged: 0 of "));

    // One group per namespace (and one for the outside world); all open at 20 workloads, all closed
    // at 1,000.
    Set<String> groups =
        new TreeSet<>(
            strings(
                browser,
                "return window.networkEnforcerReport.cy.nodes('.namespace')"
                    + ".map(function (n) { return n.data('namespace'); })"));
    Set<String> expectedGroups = new TreeSet<>(byNamespace.keySet());
    expectedGroups.add("(outside the cluster)");
    assertThat(groups).isEqualTo(expectedGroups);
    List<String> shown = strings(browser, "return window.networkEnforcerReport.shownWorkloads()");
    if (shown.size() <= 60) {
      assertThat(collapsed(browser)).isEmpty();
      assertThat(visibleWorkloads(browser)).containsExactlyInAnyOrderElementsOf(shown);
    } else {
      assertThat(collapsed(browser)).containsExactlyInAnyOrderElementsOf(expectedGroups);
      assertThat(visibleWorkloads(browser)).isEmpty();
    }
    assertReadable(browser);

    // Closed (all of them, by their button, where they start open), a click on the largest
    // namespace opens
    // it in place; closing it again leaves every namespace closed.
    if (collapsed(browser).isEmpty()) {
      browser.findElement(By.id("collapse-all")).click();
    }
    assertThat(collapsed(browser)).containsExactlyInAnyOrderElementsOf(expectedGroups);
    String largest =
        byNamespace.entrySet().stream()
            .max(Comparator.comparingInt(e -> e.getValue().size()))
            .orElseThrow()
            .getKey();
    clickNamespace(browser, largest);
    assertThat(collapsed(browser)).doesNotContain(largest).hasSize(expectedGroups.size() - 1);
    assertThat(visibleWorkloads(browser))
        .containsExactlyInAnyOrderElementsOf(byNamespace.get(largest));
    assertReadable(browser);
    browser.executeScript("window.networkEnforcerReport.toggleNamespace(arguments[0])", largest);
    assertThat(collapsed(browser)).containsExactlyInAnyOrderElementsOf(expectedGroups);

    // Filtering to a mid-sized namespace lays out only it and its peers, and hides everything else.
    List<String> bySize =
        byNamespace.entrySet().stream()
            .filter(e -> e.getKey().startsWith("team"))
            .sorted(Comparator.comparingInt(e -> e.getValue().size()))
            .map(Map.Entry::getKey)
            .toList();
    String chosen = bySize.get(bySize.size() / 2);
    browser.findElement(By.id("namespace-filter")).click();
    browser.findElement(By.cssSelector("#namespace-filter option[value='" + chosen + "']")).click();
    long filterMs = timing(browser, "filterMs");
    long filterLayoutMs = timing(browser, "layoutMs");
    screenshot(browser, "report-scale-" + size + "-filtered.png");
    // The chosen namespace is open even though the reader closed every one.
    assertThat(collapsed(browser)).doesNotContain(chosen);
    assertThat(visibleWorkloads(browser)).containsAll(byNamespace.get(chosen));
    assertThat(
            strings(
                browser,
                "return window.networkEnforcerReport.cy.nodes('.namespace')"
                    + ".map(function (n) { return n.data('namespace'); })"))
        .hasSizeLessThan(groups.size());
    assertThat(visibleWorkloads(browser))
        .allSatisfy(
            id ->
                assertThat(id.startsWith(chosen + "/") || connected(browser, id, chosen))
                    .as(id + " is in " + chosen + " or a peer of it")
                    .isTrue());
    // Its peers elsewhere pass the filter too; their namespaces, and only those, are drawn (closed,
    // as left).
    List<String> passing = strings(browser, "return window.networkEnforcerReport.shownWorkloads()");
    assertThat(passing)
        .anySatisfy(id -> assertThat(id).doesNotStartWith(chosen + "/"))
        .allSatisfy(
            id ->
                assertThat(id.startsWith(chosen + "/") || connected(browser, id, chosen)).isTrue());
    assertThat(
            new TreeSet<>(
                strings(
                    browser,
                    "return window.networkEnforcerReport.cy.nodes('.namespace')"
                        + ".map(function (n) { return n.data('namespace'); })")))
        .isEqualTo(
            passing.stream()
                .map(
                    id ->
                        (String)
                            browser.executeScript(
                                "var id = arguments[0]; return window.networkEnforcerReport.data"
                                    + ".workloads.filter(function (w) { return w.id === id; })[0].namespace",
                                id))
                .collect(Collectors.toCollection(TreeSet::new)));
    // Laid out again: the chosen namespace first, at the top left, and no two boxes on top of each
    // other.
    assertThat(
            (List<?>)
                browser.executeScript(
                    "var cy = window.networkEnforcerReport.cy, o = {includeLabels: false},"
                        + " all = cy.nodes().boundingBox(o), b = cy.getElementById('namespace:' + arguments[0]).boundingBox(o);"
                        + " return [b.x1 - all.x1, b.y1 - all.y1 < b.h / 2 ? 0 : b.y1 - all.y1];",
                    // Within the margin a grid keeps around its workloads (an open box starts 20-48
                    // px in).
                    chosen))
        .as("left edge, first row")
        .allSatisfy(d -> assertThat(((Number) d).doubleValue()).isLessThan(49));
    assertNoOverlapInGrids(browser);
    assertReadable(browser);

    // Every namespace open, all namespaces: every workload drawn (the slowest view, timed).
    browser.findElement(By.id("namespace-filter")).click();
    browser.findElement(By.cssSelector("#namespace-filter option[value='']")).click();
    browser.findElement(By.id("expand-all")).click();
    long openAllMs = timing(browser, "filterMs");
    assertThat(collapsed(browser)).isEmpty();
    assertThat(visibleWorkloads(browser)).hasSize(shown.size());
    assertNoOverlapInGrids(browser);
    screenshot(browser, "report-scale-" + size + "-open.png");
    browser.findElement(By.id("collapse-all")).click();
    assertThat(collapsed(browser)).containsExactlyInAnyOrderElementsOf(expectedGroups);

    System.out.printf(
        Locale.ROOT,
        "report %d workloads: %d bytes, first render %d ms (layout %d ms); namespace "
            + "filter to %s (%d workloads) %d ms (layout %d ms); every namespace open %d ms%n",
        size,
        Files.size(report),
        firstRender,
        layout,
        chosen,
        byNamespace.get(chosen).size(),
        filterMs,
        filterLayoutMs,
        openAllMs);
  }

  /**
   * Every label drawn is at least 10 px at the zoom the page chose; the page's text at least 12 px.
   */
  private static void assertReadable(ChromeDriver browser) {
    List<String> small =
        strings(
            browser,
            "var cy = window.networkEnforcerReport.cy, z = cy.zoom();"
                + "return cy.elements().filter(function (e) { return e.data('label') &&"
                + " parseFloat(e.style('font-size')) * z < 10; }).map(function (e) { return e.id(); })");
    assertThat(small).as("labels drawn below 10 px").isEmpty();
    assertThat(
            ((Number)
                    browser.executeScript("return window.networkEnforcerReport.cy.nodes().length"))
                .intValue())
        .isPositive();
    for (String css : List.of("#summary", "#warnings li", "#filter-status", "#controls label")) {
      String px = browser.findElement(By.cssSelector(css)).getCssValue("font-size");
      // The page's text size (report.css: body 14px), at every graph size.
      assertThat(Double.parseDouble(px.replace("px", ""))).as(css + " font-size").isEqualTo(14.0);
    }
  }

  /** Namespaces are laid out as grids: no two boxes overlap. */
  private static void assertNoOverlapInGrids(ChromeDriver browser) {
    assertThat(overlaps(browser)).isEmpty();
  }

  /** Pairs of drawn workloads or closed namespaces whose boxes overlap. */
  private static List<String> overlaps(ChromeDriver browser) {
    return strings(
        browser,
        "var n = window.networkEnforcerReport.cy.nodes().filter(function (x) { return x.isChildless(); }),"
            + " b = n.map(function (x) { return x.boundingBox({includeLabels: false}); }), out = [];"
            + "for (var i = 0; i < b.length; i++) { for (var j = i + 1; j < b.length; j++) {"
            + " if (b[i].x1 < b[j].x2 && b[j].x1 < b[i].x2 && b[i].y1 < b[j].y2 && b[j].y1 < b[i].y2) {"
            + " out.push(n[i].id() + ' / ' + n[j].id()); } } } return out;");
  }

  private static boolean connected(ChromeDriver browser, String id, String namespace) {
    return (Boolean)
        browser.executeScript(
            "var d = window.networkEnforcerReport.data, id = arguments[0], ns = arguments[1] + '/';"
                + "return d.connections.some(function (c) { return (c.source === id && c.target.indexOf(ns) === 0)"
                + " || (c.target === id && c.source.indexOf(ns) === 0); });",
            id,
            namespace);
  }

  /**
   * A real click on the namespace: its box when closed, its name (above its workloads) when open.
   */
  private static void clickNamespace(ChromeDriver browser, String namespace) {
    @SuppressWarnings("unchecked")
    Map<String, Number> box =
        (Map<String, Number>)
            browser.executeScript(
                "var n = window.networkEnforcerReport.cy.getElementById('namespace:' + arguments[0]);"
                    + "var b = n.renderedBoundingBox({includeLabels: false}), l = n.renderedBoundingBox();"
                    + "return n.hasClass('collapsed') ? {x: (b.x1 + b.x2) / 2, y: (b.y1 + b.y2) / 2}"
                    + " : {x: (b.x1 + b.x2) / 2, y: (l.y1 + b.y1) / 2};",
                namespace);
    HeadlessChromium.clickInGraph(browser, box.get("x").doubleValue(), box.get("y").doubleValue());
  }

  private static List<String> collapsed(ChromeDriver browser) {
    return strings(browser, "return window.networkEnforcerReport.collapsedNamespaces()");
  }

  private static List<String> visibleWorkloads(ChromeDriver browser) {
    return strings(browser, "return window.networkEnforcerReport.visibleWorkloads()");
  }

  private static Long timing(ChromeDriver browser, String name) {
    Object v =
        browser.executeScript(
            "return window.networkEnforcerReport ? window.networkEnforcerReport.timings[arguments[0]]"
                + " : null",
            name);
    return v == null ? null : ((Number) v).longValue();
  }

  @SuppressWarnings("unchecked")
  private static List<String> strings(ChromeDriver browser, String script, Object... args) {
    return (List<String>) browser.executeScript(script, args);
  }

  private static void screenshot(ChromeDriver browser, String name) throws IOException {
    Path png = Path.of("target", name);
    Files.createDirectories(png.getParent());
    Files.copy(
        browser.getScreenshotAs(OutputType.FILE).toPath(),
        png,
        StandardCopyOption.REPLACE_EXISTING);
  }
}
