package io.kubewarden.networkenforcer.chart;

import static io.kubewarden.networkenforcer.chart.HelmChart.values;

import com.fasterxml.jackson.databind.JsonNode;
import io.kubewarden.networkenforcer.common.json.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Every PromQL query the chart ships, by where it is: each dashboard panel's targets, the
 * dashboards' variable queries, and each alert of the PrometheusRule as helm renders it.
 */
final class MonitoringQueries {
  private static final Pattern LABEL_VALUES = Pattern.compile("label_values\\(\\s*([^,]+),");

  private MonitoringQueries() {}

  static List<Path> dashboardFiles() {
    try (Stream<Path> files = Files.list(HelmChart.chartDir().resolve("dashboards"))) {
      return files.filter(f -> f.toString().endsWith(".json")).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static JsonNode dashboard(Path file) {
    try {
      return Json.mapper().readTree(file.toFile());
    } catch (IOException e) {
      throw new UncheckedIOException("dashboard " + file + " is not JSON", e);
    }
  }

  /** The panels of a dashboard, those inside rows included. */
  static List<JsonNode> panels(JsonNode dashboard) {
    List<JsonNode> out = new ArrayList<>();
    for (JsonNode panel : dashboard.path("panels")) {
      out.add(panel);
      panel.path("panels").forEach(out::add);
    }
    return out;
  }

  /** "dashboard file / panel title" -> its queries; variables as "dashboard file / $name". */
  static Map<String, List<String>> dashboardQueries() {
    Map<String, List<String>> out = new LinkedHashMap<>();
    for (Path file : dashboardFiles()) {
      JsonNode dashboard = dashboard(file);
      for (JsonNode panel : panels(dashboard)) {
        List<String> exprs = new ArrayList<>();
        panel.path("targets").forEach(t -> exprs.add(t.path("expr").asText()));
        if (!exprs.isEmpty()) {
          out.put(file.getFileName() + " / " + panel.path("title").asText(), exprs);
        }
      }
      for (JsonNode variable : dashboard.path("templating").path("list")) {
        if ("query".equals(variable.path("type").asText())) {
          JsonNode query = variable.path("query");
          Matcher m =
              LABEL_VALUES.matcher(
                  query.isObject() ? query.path("query").asText() : query.asText());
          if (!m.find()) {
            throw new AssertionError(
                "variable "
                    + variable.path("name").asText()
                    + " of "
                    + file
                    + " is not a label_values(<selector>, <label>) query");
          }
          out.put(
              file.getFileName() + " / $" + variable.path("name").asText(), List.of(m.group(1)));
        }
      }
    }
    return out;
  }

  /**
   * The rendered PrometheusRule (namespace {@link HelmChart#NAMESPACE}, chart defaults otherwise).
   */
  static JsonNode prometheusRule() {
    return HelmChart.render(values("metrics.prometheusRule.enabled", "true"))
        .ofKind("PrometheusRule")
        .get(0);
  }

  /** Alert name -> expression. */
  static Map<String, String> alertQueries() {
    Map<String, String> out = new LinkedHashMap<>();
    for (JsonNode group : prometheusRule().path("spec").path("groups")) {
      for (JsonNode rule : group.path("rules")) {
        out.put(rule.path("alert").asText(), rule.path("expr").asText());
      }
    }
    return out;
  }
}
