package io.kubewarden.networkenforcer.cli.report;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.interactions.Actions;

/**
 * Debian's headless Chromium driven through Debian's ChromeDriver (installed by
 * hack/tools/chromium.sh). Both paths are given explicitly so Selenium Manager never looks for, or
 * downloads, a browser or a driver. Every instance gets a fresh profile directory.
 */
final class HeadlessChromium implements AutoCloseable {
  static final Path CHROMIUM = Path.of(System.getProperty("ne.chromium", "/usr/bin/chromium"));
  static final Path CHROMEDRIVER =
      Path.of(System.getProperty("ne.chromedriver", "/usr/bin/chromedriver"));

  private final Path profile;
  private final ChromeDriver driver;

  /**
   * @param extraArguments further Chromium switches, e.g. a proxy that refuses every connection
   */
  HeadlessChromium(String... extraArguments) {
    if (!Files.isExecutable(CHROMIUM) || !Files.isExecutable(CHROMEDRIVER)) {
      throw new IllegalStateException(
          "Chromium ("
              + CHROMIUM
              + ") and ChromeDriver ("
              + CHROMEDRIVER
              + ") are needed by the report's browser tests; install them with: bash hack/tools/chromium.sh");
    }
    System.setProperty(ChromeDriverService.CHROME_DRIVER_EXE_PROPERTY, CHROMEDRIVER.toString());
    try {
      profile = Files.createTempDirectory("ne-chromium-profile");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<String> args =
        new ArrayList<>(
            List.of(
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--window-size=1400,1000",
                "--user-data-dir=" + profile));
    args.addAll(List.of(extraArguments));
    ChromeOptions options = new ChromeOptions().setBinary(CHROMIUM.toFile()).addArguments(args);
    ChromeDriverService service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(new File(CHROMEDRIVER.toString()))
            .usingAnyFreePort()
            .build();
    driver = new ChromeDriver(service, options);
  }

  ChromeDriver driver() {
    return driver;
  }

  @Override
  public void close() {
    try {
      driver.quit();
    } finally {
      try (Stream<Path> files = Files.walk(profile)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      } catch (IOException ignored) {
        // A leftover temp profile is harmless.
      }
    }
  }

  /**
   * A real mouse click at a point of the report's graph, in the graph's own pixels (a rendered
   * position), at viewport coordinates: an element offset would be from the centre of the part in
   * view.
   */
  static void clickInGraph(ChromeDriver browser, double x, double y) {
    // Scrolled into view, then two frames: Cytoscape re-reads where its container is on the scroll
    // event, which comes with the next frame; a click before it would land where the graph was.
    @SuppressWarnings("unchecked")
    Map<String, Number> graph =
        (Map<String, Number>)
            browser.executeAsyncScript(
                "var done = arguments[0],"
                    + " g = document.getElementById('graph'); g.scrollIntoView({block: 'start'});"
                    + "requestAnimationFrame(function () { requestAnimationFrame(function () {"
                    + " var r = g.getBoundingClientRect(); done({x: r.left, y: r.top}); }); });");
    new Actions(browser)
        .moveToLocation(
            (int) Math.round(graph.get("x").doubleValue() + x),
            (int) Math.round(graph.get("y").doubleValue() + y))
        .click()
        .perform();
  }
}
