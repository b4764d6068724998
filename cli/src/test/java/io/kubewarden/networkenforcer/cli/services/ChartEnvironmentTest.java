package io.kubewarden.networkenforcer.cli.services;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.cli.CliRun;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Helm chart configures the containers through NE_* variables; every variable a workload
 * template sets (directly or through an {@code ne.env.*} helper) must be read by an option of the
 * command in its {@code args}, or the setting would be silently ignored.
 */
class ChartEnvironmentTest {
  private static final Path TEMPLATES =
      CliRun.repoRoot().resolve("charts/network-enforcer/templates");

  /** A helper runs from its define to the next define (its body has nested ends of its own). */
  private static final Pattern DEFINE =
      Pattern.compile(
          "\\{\\{-? define \"(ne\\.env\\.[a-zA-Z]+)\" -?}}(.*?)(?=\\{\\{-? define |\\z)",
          Pattern.DOTALL);

  private static final Pattern ENV_NAME = Pattern.compile("- name: (NE_[A-Z0-9_]+)");
  private static final Pattern INCLUDE = Pattern.compile("\"(ne\\.env\\.[a-zA-Z]+)\"");
  private static final Pattern ARGS = Pattern.compile("args: \\[\"([a-z]+)\"]");

  @ParameterizedTest
  @ValueSource(strings = {"ingest.yaml", "processor.yaml", "writer.yaml", "standalone.yaml"})
  void everyVariableTheChartSetsIsAnOption(String template) throws Exception {
    Map<String, Set<String>> helpers = new HashMap<>();
    Matcher d = DEFINE.matcher(Files.readString(TEMPLATES.resolve("_helpers.tpl")));
    while (d.find()) {
      helpers.put(d.group(1), names(d.group(2)));
    }
    String text = Files.readString(TEMPLATES.resolve(template));
    Matcher args = ARGS.matcher(text);
    assertThat(args.find()).as("args of " + template).isTrue();
    String command = args.group(1);

    Set<String> set = new TreeSet<>(names(text));
    Matcher include = INCLUDE.matcher(text);
    while (include.find()) {
      assertThat(helpers).as("helper " + include.group(1)).containsKey(include.group(1));
      set.addAll(helpers.get(include.group(1)));
    }
    // Resolved through the helpers: every workload gets the common and Kafka variables.
    assertThat(set)
        .as(template + " sets NE_* variables")
        .contains("NE_MANAGEMENT_PORT", "NE_KAFKA_PARTITIONS", "NE_PROVIDER");
    Set<String> options = DockerComposeTest.optionEnvNames(command);
    assertThat(options)
        .as("options of '" + command + "' for the variables " + template + " sets")
        .containsAll(set);
  }

  private static Set<String> names(String text) {
    Set<String> out = new TreeSet<>();
    Matcher m = ENV_NAME.matcher(text);
    while (m.find()) {
      out.add(m.group(1));
    }
    return out;
  }
}
