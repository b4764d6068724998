package io.kubewarden.networkenforcer.chart;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kubewarden.networkenforcer.common.json.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chart's alerts as Prometheus evaluates them: the rule groups of the PrometheusRule helm
 * renders are written to a rules file and run through {@code promtool check rules} and {@code
 * promtool test rules} with the cases of {@code src/test/resources/chart/alerts-test.yaml}, where
 * every alert fires in one case and stays silent in another.
 */
class ChartAlertRulesTest {
  @TempDir static Path dir;

  private static JsonNode cases;

  @BeforeAll
  static void writeRulesAndCases() throws Exception {
    ObjectNode rules = Json.mapper().createObjectNode();
    rules.set("groups", MonitoringQueries.prometheusRule().path("spec").path("groups"));
    Files.writeString(dir.resolve("rules.yaml"), Json.yaml().writeValueAsString(rules));
    Path testFile =
        Path.of(ChartAlertRulesTest.class.getResource("/chart/alerts-test.yaml").toURI());
    Files.copy(testFile, dir.resolve("alerts-test.yaml"));
    cases = Json.yaml().readTree(testFile.toFile());
  }

  @Test
  void theRenderedRulesAreValidPrometheusRules() throws Exception {
    Promtool.Result result = Promtool.run(dir, "check", "rules", "rules.yaml");
    assertThat(result.exitCode()).as(result.output()).isZero();
    assertThat(result.output())
        .contains("SUCCESS: " + MonitoringQueries.alertQueries().size() + " rules found");
  }

  @Test
  void everyAlertFiresAndStaysSilentAsTheCasesSay() throws Exception {
    Promtool.Result result = Promtool.run(dir, "test", "rules", "alerts-test.yaml");
    assertThat(result.exitCode()).as(result.output()).isZero();
    assertThat(result.output()).contains("SUCCESS");
  }

  @Test
  void everyAlertHasACaseWhereItFiresAndOneWhereItDoesNot() {
    Map<String, Set<String>> outcomes = new TreeMap<>();
    for (JsonNode test : cases.path("tests")) {
      for (JsonNode check : test.path("alert_rule_test")) {
        outcomes
            .computeIfAbsent(check.path("alertname").asText(), a -> new TreeSet<>())
            .add(check.path("exp_alerts").isEmpty() ? "silent" : "fires");
      }
    }
    Map<String, Set<String>> expected = new TreeMap<>();
    MonitoringQueries.alertQueries()
        .keySet()
        .forEach(alert -> expected.put(alert, Set.of("fires", "silent")));
    assertThat(outcomes).isEqualTo(expected);
  }
}
