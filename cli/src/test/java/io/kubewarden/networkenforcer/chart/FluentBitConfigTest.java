package io.kubewarden.networkenforcer.chart;

import static io.kubewarden.networkenforcer.chart.HelmChart.FULLNAME;
import static io.kubewarden.networkenforcer.chart.HelmChart.values;
import static io.kubewarden.networkenforcer.chart.Manifests.container;
import static io.kubewarden.networkenforcer.chart.Manifests.mounts;
import static io.kubewarden.networkenforcer.chart.Manifests.texts;
import static io.kubewarden.networkenforcer.chart.Manifests.volume;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.kubewarden.networkenforcer.common.json.Json;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The fluent-bit pipeline of the Istio provider: ztunnel log files in, the records the ingest uses
 * out.
 */
class FluentBitConfigTest {
  private static Manifests manifests;
  private static FluentBitConfig config;
  private static FluentBitConfig parsers;

  @BeforeAll
  static void render() {
    manifests = HelmChart.render(values("controller.provider.name", "istio"));
    JsonNode configMap = manifests.get("ConfigMap", FULLNAME + "-fluent-bit");
    config = FluentBitConfig.parse(configMap.path("data").path("fluent-bit.conf").asText());
    parsers = FluentBitConfig.parse(configMap.path("data").path("parsers.conf").asText());
  }

  @Test
  void tailsTheZtunnelContainerLogsWithTheCriParser() {
    Map<String, List<String>> input = config.section("INPUT");
    assertThat(input.get("Name")).containsExactly("tail");
    assertThat(input.get("Path"))
        .containsExactly("/var/log/containers/ztunnel-*_istio-system_istio-proxy-*.log");
    assertThat(input.get("multiline.parser")).containsExactly("cri");
    // Offsets survive a restart (hostPath), so a restart does not resend old flows.
    assertThat(input.get("DB").get(0)).startsWith("/var/lib/fluent-bit/");
    JsonNode daemonSet = manifests.get("DaemonSet", FULLNAME + "-istio-fluent-bit");
    assertThat(mounts(container(daemonSet, "fluent-bit")))
        .containsEntry("state", "/var/lib/fluent-bit")
        .containsEntry("varlog", "/var/log")
        .containsEntry("config", "/fluent-bit/etc/network-enforcer");
    assertThat(volume(daemonSet, "state").orElseThrow().path("hostPath").path("type").asText())
        .isEqualTo("DirectoryOrCreate");
    assertThat(texts(container(daemonSet, "fluent-bit").path("args")))
        .containsExactly("-c", "/fluent-bit/etc/network-enforcer/fluent-bit.conf");
    assertThat(config.section("SERVICE").get("Parsers_File"))
        .containsExactly("/fluent-bit/etc/network-enforcer/parsers.conf");
  }

  @Test
  void parsesTheZtunnelJsonWithItsTimeFormat() {
    FluentBitConfig.Section parser = config.filter("parser");
    assertThat(parser.single("Key_Name")).isEqualTo("log");
    String parserName = parser.single("Parser");
    FluentBitConfig.Section definition =
        parsers.all("PARSER").stream()
            .filter(p -> p.single("Name").equals(parserName))
            .findFirst()
            .orElseThrow();
    assertThat(definition.single("Format")).isEqualTo("json");
    assertThat(definition.single("Time_Key")).isEqualTo("time");
    String format = definition.single("Time_Format");
    assertThat(format).isEqualTo("%Y-%m-%dT%H:%M:%S.%LZ");
    // The strptime format must read ztunnel's microsecond UTC stamps: translate it and parse one.
    DateTimeFormatter java =
        DateTimeFormatter.ofPattern(
                format
                    .replace("%Y", "yyyy")
                    .replace("%m", "MM")
                    .replace("%d", "dd")
                    .replace("%H", "HH")
                    .replace("%M", "mm")
                    .replace("%S", "ss")
                    .replace("%L", "SSSSSS")
                    .replace("T", "'T'")
                    .replace("Z", "'Z'"))
            .withZone(ZoneOffset.UTC);
    assertThat(Instant.from(java.parse("2026-08-03T15:48:10.413052Z")))
        .isEqualTo(Instant.parse("2026-08-03T15:48:10.413052Z"));
  }

  @Test
  void grepKeepsOnlyTheRecordsTheIngestUses() throws Exception {
    FluentBitConfig.Section grep = config.filter("grep");
    assertThat(grep.single("Logical_Op")).isEqualToIgnoringCase("and");
    List<String[]> rules =
        grep.entries().get("Regex").stream().map(r -> r.split("\\s+", 2)).toList();
    assertThat(rules).extracting(r -> r[0]).containsExactlyInAnyOrder("scope", "message");

    // ztunnel records as the parser lifts them (shapes of wire-formats.md C.3-C.5), and whether we
    // need them.
    Map<String, Boolean> records =
        Map.of(
            "{\"level\":\"info\",\"scope\":\"access\",\"message\":\"connection complete\",\"direction\":\"inbound\"}",
                true,
            "{\"level\":\"error\",\"scope\":\"access\",\"message\":\"connection complete\",\"error\":\"policy rejection\"}",
                true,
            "{\"level\":\"info\",\"scope\":\"ztunnel::state\",\"message\":\"dry-run: deny policy match\",\"policy\":\"d/p\"}",
                true,
            "{\"level\":\"info\",\"scope\":\"ztunnel::state\",\"message\":\"deny policy match\",\"policy\":\"d/p\"}",
                true,
            "{\"level\":\"info\",\"scope\":\"ztunnel::state\",\"message\":\"dry-run: no allow policies match\"}",
                true,
            "{\"level\":\"info\",\"scope\":\"ztunnel::state\",\"message\":\"no allow policies matched\"}",
                true,
            "{\"level\":\"debug\",\"scope\":\"ztunnel::state\",\"message\":\"dry-run deny policy match\"}",
                true,
            "{\"level\":\"info\",\"scope\":\"ztunnel::state\",\"message\":\"allow policy match\",\"policy\":\"d/p\"}",
                false,
            "{\"level\":\"debug\",\"scope\":\"access\",\"message\":\"connection opened\"}", false,
            "{\"level\":\"info\",\"scope\":\"xds::client\",\"message\":\"received response\"}",
                false);
    for (Map.Entry<String, Boolean> record : records.entrySet()) {
      JsonNode fields = Json.mapper().readTree(record.getKey());
      boolean kept =
          rules.stream()
              .allMatch(
                  rule -> Pattern.compile(rule[1]).matcher(fields.path(rule[0]).asText()).find());
      assertThat(kept).as(record.getKey()).isEqualTo(record.getValue());
    }
  }

  @Test
  void sendsOtlpOverGrpcToTheIngestService() {
    Map<String, List<String>> output = config.section("OUTPUT");
    assertThat(output.get("Name")).containsExactly("opentelemetry");
    assertThat(output.get("grpc")).containsExactly("on");
    JsonNode service = manifests.get("Service", FULLNAME + "-istio-otlp");
    assertThat(output.get("Host").get(0))
        .startsWith(service.path("metadata").path("name").asText() + ".");
    assertThat(output.get("Port"))
        .containsExactly(service.path("spec").path("ports").get(0).path("port").asText());
    // The certificate name fluent-bit checks is one the receiver's certificate carries.
    String serverNames =
        volume(manifests.get("StatefulSet", FULLNAME + "-standalone"), "provider-certs")
            .orElseThrow()
            .path("csi")
            .path("volumeAttributes")
            .path("csi.cert-manager.io/dns-names")
            .asText();
    assertThat(List.of(serverNames.split(","))).contains(output.get("tls.vhost").get(0));
    // Every stage reads what the one before it tagged.
    assertThat(config.sections())
        .filteredOn(s -> !s.name().equals("SERVICE") && !s.name().equals("INPUT"))
        .allSatisfy(s -> assertThat(s.single("Match")).isEqualTo("ztunnel.*"));
    assertThat(config.section("INPUT").get("Tag")).containsExactly("ztunnel.*");
  }

  @Test
  void checksTheReceiversNameWhenTlsIsOn() {
    Map<String, List<String>> output = config.section("OUTPUT");
    assertThat(output.get("tls.verify")).containsExactly("on");
    assertThat(output.get("tls.verify_hostname")).containsExactly("on");
  }

  @Test
  void imageMayBeGivenAsOneString() {
    Manifests m =
        HelmChart.render(
            values("controller.provider.istio.fluentBit.image", "registry.local/fluent-bit:4.2.0"));
    assertThat(
            container(m.get("DaemonSet", FULLNAME + "-istio-fluent-bit"), "fluent-bit")
                .path("image")
                .asText())
        .isEqualTo("registry.local/fluent-bit:4.2.0");
    assertThat(
            container(manifests.get("DaemonSet", FULLNAME + "-istio-fluent-bit"), "fluent-bit")
                .path("image")
                .asText())
        .isEqualTo("cr.fluentbit.io/fluent/fluent-bit:4.2.0");
  }

  @Test
  void ownPortChangesBothEndsOfTheHop() {
    Manifests m = HelmChart.render(values("controller.provider.istio.endpoint", "14317"));
    FluentBitConfig changed =
        FluentBitConfig.parse(
            m.get("ConfigMap", FULLNAME + "-fluent-bit")
                .path("data")
                .path("fluent-bit.conf")
                .asText());
    assertThat(changed.section("OUTPUT").get("Port")).containsExactly("14317");
    assertThat(
            m.get("Service", FULLNAME + "-istio-otlp")
                .path("spec")
                .path("ports")
                .get(0)
                .path("port")
                .asInt())
        .isEqualTo(14317);
    assertThat(
            Manifests.env(
                container(m.get("StatefulSet", FULLNAME + "-standalone"), "network-enforcer")))
        .containsEntry("NE_OTLP_PORT", "14317");
  }
}
