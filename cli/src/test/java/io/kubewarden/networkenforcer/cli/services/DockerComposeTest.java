package io.kubewarden.networkenforcer.cli.services;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.kubewarden.networkenforcer.cli.CliRun;
import io.kubewarden.networkenforcer.cli.NetworkEnforcerCommand;
import io.kubewarden.networkenforcer.cli.config.EnvironmentDefaults;
import io.kubewarden.networkenforcer.common.json.Json;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * docker-compose.yml against the commands, without an engine: services, images, ports, and every
 * NE_* variable must be an option of the command the service runs; with the file's values (defaults
 * of ${VAR:-default} taken) each service's configuration must pass its own validation. The file is
 * also run for real, by {@code cli.compose.DockerComposeEndToEndIT}.
 */
class DockerComposeTest {
  private static final Pattern SUBSTITUTION = Pattern.compile("\\$\\{([A-Z0-9_]+)(?::?-([^}]*))?}");
  private static final List<String> SERVICES = List.of("ingest", "processor", "writer");
  static JsonNode compose;

  @TempDir Path dir;

  @BeforeAll
  static void read() throws Exception {
    compose = Json.yaml().readTree(CliRun.repoRoot().resolve("docker-compose.yml").toFile());
  }

  @Test
  void kafkaIsOneKraftNodeThatTheServicesReach() {
    JsonNode kafka = compose.at("/services/kafka");
    // The official image unless NE_KAFKA_IMAGE names another (the tests' local one).
    assertThat(kafka.path("image").asText()).startsWith("${NE_KAFKA_IMAGE:-");
    assertThat(substitute(kafka.path("image").asText())).startsWith("apache/kafka:");
    JsonNode env = kafka.path("environment");
    assertThat(env.path("KAFKA_PROCESS_ROLES").asText()).isEqualTo("broker,controller");
    assertThat(env.path("KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR").asText()).isEqualTo("1");
    assertThat(env.path("KAFKA_TRANSACTION_STATE_LOG_MIN_ISR").asText()).isEqualTo("1");
    String advertised = env.path("KAFKA_ADVERTISED_LISTENERS").asText().replace("PLAINTEXT://", "");
    assertThat(kafka.path("healthcheck").path("test").toString())
        .contains("kafka-broker-api-versions.sh");
    for (String service : SERVICES) {
      JsonNode s = compose.at("/services/" + service);
      assertThat(s.at("/environment/NE_KAFKA_BOOTSTRAP_SERVERS").asText())
          .as(service)
          .isEqualTo(advertised);
      assertThat(s.at("/depends_on/kafka/condition").asText())
          .as(service)
          .isEqualTo("service_healthy");
      // One broker: the topics the services create cannot ask for more replicas.
      assertThat(s.at("/environment/NE_KAFKA_REPLICATION_FACTOR").asText()).isEqualTo("1");
    }
  }

  @Test
  void theServicesRunTheImageWithTheirCommandAndExposeTheManagementPort() {
    String image = compose.at("/services/ingest/image").asText();
    assertThat(image).contains("network-enforcer:");
    for (String service : SERVICES) {
      JsonNode s = compose.at("/services/" + service);
      assertThat(s.path("image").asText()).isEqualTo(image);
      assertThat(s.path("command").get(0).asText()).isEqualTo(service);
      String managementPort = s.at("/environment/NE_MANAGEMENT_PORT").asText();
      assertThat(containerPorts(s)).as(service).contains(managementPort);
    }
    assertThat(containerPorts(compose.at("/services/ingest")))
        .contains(compose.at("/services/ingest/environment/NE_OTLP_PORT").asText())
        .contains(compose.at("/services/ingest/environment/NE_OTLP_HTTP_PORT").asText());
    // The provider is chosen by one variable, the same for every service.
    for (String service : SERVICES) {
      assertThat(compose.at("/services/" + service + "/environment/NE_PROVIDER").asText())
          .startsWith("${NE_PROVIDER:-");
    }
    // Ingest and writer reach the API server through the mounted kubeconfig.
    for (String service : List.of("ingest", "writer")) {
      JsonNode s = compose.at("/services/" + service);
      assertThat(s.at("/environment/KUBECONFIG").asText()).isEqualTo("/kube/config");
      assertThat(s.path("volumes").toString()).contains(":/kube/config:ro");
    }
  }

  /**
   * Only this machine reaches a local run (its Kafka and OTLP ports have no TLS and no
   * authentication, its management ports are open), and the product does not run as root.
   */
  @Test
  void publishedPortsAreOnLoopbackAndTheServicesAreNotRoot() {
    List<String> published = new ArrayList<>();
    compose.path("services").forEach(s -> s.path("ports").forEach(p -> published.add(p.asText())));
    assertThat(published).isNotEmpty().allSatisfy(p -> assertThat(p).startsWith("127.0.0.1:"));
    for (String service : SERVICES) {
      JsonNode s = compose.at("/services/" + service);
      assertThat(s.path("user").asText()).as(service).startsWith("${NE_USER:-");
      assertThat(substitute(s.path("user").asText())).as(service).isEqualTo("65532:65532");
      // The probes on a port of their own, published too.
      assertThat(containerPorts(s))
          .as(service)
          .contains(s.at("/environment/NE_PROBE_PORT").asText());
      assertThat(substitute(s.at("/environment/NE_MANAGEMENT_AUTH").asText()))
          .as(service)
          .isEqualTo("none");
    }
    // No named volume the non-root user could not write.
    assertThat(compose.at("/services/processor/volumes").isMissingNode()).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"ingest", "processor", "writer"})
  void everyVariableIsAnOptionOfTheServiceCommand(String service) {
    JsonNode s = compose.at("/services/" + service);
    String command = s.path("command").get(0).asText();
    Set<String> envNames = optionEnvNames(command);
    List<String> unknown = new ArrayList<>();
    s.path("environment")
        .fieldNames()
        .forEachRemaining(
            name -> {
              if (name.startsWith(EnvironmentDefaults.ENV_PREFIX) && !envNames.contains(name)) {
                unknown.add(name);
              }
            });
    assertThat(unknown)
        .as("NE_* variables of " + service + " that no option of '" + command + "' reads")
        .isEmpty();
    assertThat(envNames)
        .contains("NE_KAFKA_BOOTSTRAP_SERVERS", "NE_MANAGEMENT_PORT", "NE_PROVIDER");
  }

  @ParameterizedTest
  @ValueSource(strings = {"ingest", "processor", "writer"})
  void theFilesValuesPassTheServicesValidation(String service) {
    JsonNode s = compose.at("/services/" + service);
    Map<String, String> env = new HashMap<>();
    s.path("environment")
        .fields()
        .forEachRemaining(e -> env.put(e.getKey(), substitute(e.getValue().asText())));
    env.computeIfPresent("NE_STATE_DIR", (k, v) -> dir.toString());
    CliRun run = CliRun.run(env, s.path("command").get(0).asText(), "--check-config");
    assertThat(run.exitCode()).as(run.err()).isZero();
  }

  /** Every NE_* name the options of a command read. */
  static Set<String> optionEnvNames(String command) {
    CommandLine cl =
        NetworkEnforcerCommand.commandLine(new EnvironmentDefaults(Map.of(), Map.of()));
    CommandLine sub = cl.getSubcommands().get(command);
    assertThat(sub).as("command " + command).isNotNull();
    Set<String> names = new TreeSet<>();
    for (OptionSpec o : sub.getCommandSpec().options()) {
      if (o.longestName().startsWith("--")) {
        names.add(EnvironmentDefaults.envName(o.longestName()));
      }
    }
    names.add(EnvironmentDefaults.ENV_PREFIX + "CONFIG");
    return names;
  }

  private static List<String> containerPorts(JsonNode service) {
    List<String> ports = new ArrayList<>();
    service
        .path("ports")
        .forEach(
            p -> {
              String[] parts = p.asText().split(":");
              ports.add(parts[parts.length - 1].replaceAll("/.*", ""));
            });
    return ports;
  }

  /** ${VAR:-default} -> default, as docker compose does with VAR unset. */
  private static String substitute(String value) {
    Matcher m = SUBSTITUTION.matcher(value);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      m.appendReplacement(out, Matcher.quoteReplacement(m.group(2) == null ? "" : m.group(2)));
    }
    m.appendTail(out);
    return out.toString();
  }
}
