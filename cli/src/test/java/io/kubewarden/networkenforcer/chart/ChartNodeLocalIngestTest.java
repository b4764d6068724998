package io.kubewarden.networkenforcer.chart;

import static io.kubewarden.networkenforcer.chart.HelmChart.FULLNAME;
import static io.kubewarden.networkenforcer.chart.HelmChart.values;
import static io.kubewarden.networkenforcer.chart.Manifests.container;
import static io.kubewarden.networkenforcer.chart.Manifests.elements;
import static io.kubewarden.networkenforcer.chart.Manifests.env;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.kubewarden.networkenforcer.cli.CliRun;
import io.kubewarden.networkenforcer.cli.NetworkEnforcerCommand;
import io.kubewarden.networkenforcer.cli.config.EnvironmentDefaults;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * {@code controller.provider.cilium.nodeLocal.enabled}: off by default (one ingest Deployment
 * reading Relay); on, ingest is a DaemonSet whose pods each read their own node's Hubble server,
 * replaced node by node with never two readers of one node, on every node (tainted ones too), and
 * what the chart sets is what the ingest command accepts.
 */
class ChartNodeLocalIngestTest {
  private static final String INGEST = FULLNAME + "-ingest";

  private static Map<String, String> cilium(String... more) {
    Map<String, String> v =
        values(
            "mode",
            "distributed",
            "kafka.bootstrapServers",
            Combination.BOOTSTRAP,
            "controller.provider.name",
            "cilium",
            "networkPolicy.enabled",
            "true");
    v.putAll(values(more));
    return v;
  }

  @Test
  void offByDefaultOneDeploymentReadsRelay() {
    Manifests m = HelmChart.render(cilium());
    assertThat(m.find("DaemonSet", INGEST)).isEmpty();
    Map<String, String> env = env(container(m.get("Deployment", INGEST), "ingest"));
    assertThat(env)
        .containsEntry("NE_HUBBLE_ENDPOINT", "hubble-relay.kube-system.svc:443")
        .doesNotContainKeys("NE_HUBBLE_NODE_LOCAL", "NE_NODE_NAME", "NE_NODE_IP");
  }

  @Test
  void enabledEveryNodeRunsOneReaderOfItsOwnHubbleServer() {
    Manifests m =
        HelmChart.render(
            cilium(
                "controller.provider.cilium.nodeLocal.enabled",
                "true",
                "controller.provider.cilium.nodeLocal.clusterName",
                "prod-eu"));
    assertThat(m.find("Deployment", INGEST)).isEmpty();
    assertThat(m.find("PodDisruptionBudget", INGEST)).isEmpty();
    JsonNode ds = m.get("DaemonSet", INGEST);
    // The old pod of a node is gone before the new one starts: never two readers of one node's
    // stream.
    JsonNode update = ds.path("spec").path("updateStrategy");
    assertThat(update.path("type").asText()).isEqualTo("RollingUpdate");
    assertThat(update.path("rollingUpdate").path("maxSurge").asInt()).isZero();
    assertThat(update.path("rollingUpdate").path("maxUnavailable").asInt()).isEqualTo(1);
    assertThat(elements(Manifests.podSpec(ds).path("tolerations")))
        .singleElement()
        .satisfies(t -> assertThat(t.path("operator").asText()).isEqualTo("Exists"));

    Map<String, String> env = env(container(ds, "ingest"));
    assertThat(env)
        .containsEntry("NE_HUBBLE_NODE_LOCAL", "true")
        .containsEntry("NE_NODE_NAME", "fieldRef:spec.nodeName")
        .containsEntry("NE_NODE_IP", "fieldRef:status.hostIP")
        .containsEntry("NE_HUBBLE_NODE_PORT", "4244")
        .containsEntry("NE_CILIUM_CLUSTER_NAME", "prod-eu")
        .containsEntry("NE_PROVIDER_TLS_SECRET_NAME", "hubble-relay-client-certs")
        // Relay's address and name would contradict the node's.
        .doesNotContainKeys("NE_HUBBLE_ENDPOINT", "NE_PROVIDER_TLS_SERVER_NAME");
    assertThat(ingestOptionEnvNames())
        .containsAll(
            env.keySet().stream()
                .filter(k -> k.startsWith(EnvironmentDefaults.ENV_PREFIX))
                .toList());

    // Its NetworkPolicy lets it reach the agent's Hubble port (443 stays open: the API server's).
    JsonNode policy = m.get("NetworkPolicy", INGEST);
    assertThat(
            elements(policy.path("spec").path("egress")).stream()
                .flatMap(rule -> elements(rule.path("ports")).stream())
                .map(p -> p.path("port").asInt()))
        .containsExactlyInAnyOrder(53, 53, 443, 6443, 9093, 4244);
  }

  @Test
  void theEnvironmentThePodGetsPassesTheIngestsValidation() {
    // Kafka in plain text: the client files the chart mounts for TLS are not on this machine, and
    // the node-local options are what is checked here (security.ThreatModelTest connects with those
    // files).
    JsonNode ds =
        HelmChart.render(
                cilium(
                    "controller.provider.cilium.nodeLocal.enabled",
                    "true",
                    "kafka.tls.enabled",
                    "false",
                    "kafka.insecurePlaintext",
                    "true"))
            .get("DaemonSet", INGEST);
    Map<String, String> env = kubeletFilled(env(container(ds, "ingest")));
    CliRun ok = CliRun.run(env, "ingest", "--check-config");
    assertThat(ok.exitCode()).as(ok.err()).isZero();

    // A pod without its node's address (no downward API) is refused with the option to fix.
    env.remove("NE_NODE_IP");
    CliRun refused = CliRun.run(env, "ingest", "--check-config");
    assertThat(refused.exitCode()).isNotZero();
    assertThat(refused.err()).contains("--node-ip");
  }

  @Test
  void refusedWhereThereIsNoDaemonSetToRun() {
    HelmChart.Result standalone =
        HelmChart.template(
            values(
                "controller.provider.name",
                "cilium",
                "controller.provider.cilium.nodeLocal.enabled",
                "true"));
    assertThat(standalone.exitCode()).isNotZero();
    assertThat(standalone.stderr()).contains("nodeLocal.enabled needs mode=distributed");

    HelmChart.Result replicas =
        HelmChart.template(
            cilium("controller.provider.cilium.nodeLocal.enabled", "true", "ingest.replicas", "1"));
    assertThat(replicas.exitCode()).isNotZero();
    assertThat(replicas.stderr()).contains("ingest.replicas cannot be set");
  }

  /** What the kubelet puts in the downward API references of a node-local pod. */
  private static Map<String, String> kubeletFilled(Map<String, String> env) {
    Map<String, String> filled = new HashMap<>();
    env.forEach(
        (k, v) ->
            filled.put(
                k,
                switch (v) {
                  case "fieldRef:spec.nodeName" -> "ip-10-0-3-7.eu-west-1.compute.internal";
                  case "fieldRef:status.hostIP" -> "10.0.3.7";
                  case "fieldRef:metadata.name" -> INGEST + "-x7k2p";
                  case "fieldRef:metadata.namespace" -> "network-enforcer";
                  default -> v;
                }));
    return filled;
  }

  private static Set<String> ingestOptionEnvNames() {
    CommandLine ingest =
        NetworkEnforcerCommand.commandLine(new EnvironmentDefaults(Map.of(), Map.of()))
            .getSubcommands()
            .get("ingest");
    Set<String> names = new TreeSet<>();
    for (OptionSpec o : ingest.getCommandSpec().options()) {
      if (o.longestName().startsWith("--")) {
        names.add(EnvironmentDefaults.envName(o.longestName()));
      }
    }
    return names;
  }
}
