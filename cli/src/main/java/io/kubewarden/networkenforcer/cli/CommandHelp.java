package io.kubewarden.networkenforcer.cli;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Model.UsageMessageSpec;

/**
 * The parts of every {@code --help} that are the same kind of text for each command: an Examples
 * section and the exit codes. Kept here, in one place, so each command's class keeps to its job and
 * a test can check that no command goes without them.
 */
final class CommandHelp {
  private CommandHelp() {}

  /** Exit codes of the long-running services, which declare none of their own. */
  private static final List<String> SERVICE_EXIT_CODES =
      List.of(
          "0:stopped (SIGTERM)",
          "1:runtime failure (the message and the logs say what)",
          "2:bad configuration, or the API server, broker port or data directory unusable at start");

  private static final Map<String, List<String>> EXAMPLES = new LinkedHashMap<>();

  static {
    EXAMPLES.put(
        "network-enforcer",
        List.of(
            "# Learn from a Hubble capture, review, compare with what is enforced:",
            "hubble observe -o jsonpb --last 100000 > capture.jsonl",
            "network-enforcer learn -f capture.jsonl --output-dir proposals \\",
            "    --report review.html",
            "network-enforcer diff -f proposals/",
            "network-enforcer help learn"));
    EXAMPLES.put(
        "ingest",
        List.of(
            "network-enforcer ingest --provider cilium \\",
            "    --kafka-bootstrap-servers kafka:9092 \\",
            "    --hubble-endpoint hubble-relay.kube-system:443",
            "NE_PROVIDER=calico NE_KAFKA_BOOTSTRAP_SERVERS=kafka:9092 \\",
            "    network-enforcer ingest --check-config"));
    EXAMPLES.put(
        "processor",
        List.of(
            "network-enforcer processor --provider cilium \\",
            "    --kafka-bootstrap-servers kafka:9092 --state-dir /var/lib/ne \\",
            "    --discover-cluster-cidrs",
            "network-enforcer processor --config processor.yaml --check-config"));
    EXAMPLES.put(
        "writer",
        List.of(
            "network-enforcer writer --provider cilium \\",
            "    --kafka-bootstrap-servers kafka:9092 \\",
            "    --kubeconfig ~/.kube/config --context prod",
            "network-enforcer writer --provider istio \\",
            "    --kafka-bootstrap-servers kafka:9092 --live-view"));
    EXAMPLES.put(
        "standalone",
        List.of(
            "network-enforcer standalone --provider cilium --data-dir /var/lib/ne",
            "network-enforcer standalone --provider cilium --data-dir ./data \\",
            "    --context kind-dev --management-auth none",
            "network-enforcer standalone --provider calico --data-dir ./data \\",
            "    --check-config"));
    EXAMPLES.put(
        "learn",
        List.of(
            "# Offline from a file; a summary, every rule with --verbose:",
            "network-enforcer learn -f capture.jsonl --output-dir proposals",
            "# The cluster's objects for exact selectors; the capture from stdin:",
            "kubectl get ns,deploy,sts,ds,rs,pods -A -o json > cluster.json",
            "hubble observe -o jsonpb --last 100000 | network-enforcer learn -f - \\",
            "    --cluster-state cluster.json --output-dir proposals --overwrite \\",
            "    --report review.html",
            "# For a script: the summary as JSON",
            "network-enforcer learn -f capture.jsonl.gz --output-dir proposals -o json",
            "# The cluster's pod and service ranges read from it, excepted from outside rules:",
            "network-enforcer learn -f capture.jsonl --output-dir proposals \\",
            "    --discover-cluster-cidrs --context prod"));
    EXAMPLES.put(
        "simulate",
        List.of(
            "# What would the proposals deny of a capture? (exit 3 if anything)",
            "network-enforcer simulate -f proposals/ --input capture.jsonl \\",
            "    --cluster-state cluster.json",
            "# Against the last day of the flows topic, as JSON:",
            "network-enforcer simulate -f policy.yaml --from 24h \\",
            "    --kafka-bootstrap-servers kafka:9092 -o json"));
    EXAMPLES.put(
        "diff",
        List.of(
            "# Files or directories on both sides (exit 3 on any difference):",
            "network-enforcer diff -f proposals/ --policy policies/",
            "# Against a cluster's WorkloadNetworkPolicies, one namespace:",
            "network-enforcer diff -f proposals/ --context prod -n demo",
            "kubectl get wnpp -n demo -o yaml | network-enforcer diff -f - -o yaml"));
    EXAMPLES.put(
        "replay",
        List.of(
            "network-enforcer replay --from 24h --provider cilium \\",
            "    --kafka-bootstrap-servers kafka:9092 --output-dir proposals",
            "network-enforcer replay --from 2026-12-01T08:00:00Z \\",
            "    --to 2026-12-02T08:00:00Z -n demo --provider cilium \\",
            "    --kafka-bootstrap-servers kafka:9092 --report window.html"));
    EXAMPLES.put(
        "release-finalizers",
        List.of(
            "# After helm uninstall (the chart's post-delete hook runs it):",
            "network-enforcer release-finalizers --kubeconfig ~/.kube/config"));
    EXAMPLES.put(
        "completion",
        List.of(
            "source <(network-enforcer completion bash)",
            "source <(network-enforcer completion zsh)",
            "network-enforcer completion fish \\",
            "    > ~/.config/fish/completions/network-enforcer.fish"));
    EXAMPLES.put(
        "help", List.of("network-enforcer help learn", "network-enforcer help completion"));
  }

  /** Adds the examples and, where a command lists none, the exit codes, to the whole tree. */
  static void apply(CommandLine root) {
    applyTo(root);
  }

  private static void applyTo(CommandLine cl) {
    UsageMessageSpec usage = cl.getCommandSpec().usageMessage();
    List<String> examples = EXAMPLES.get(cl.getCommandName());
    if (examples != null) {
      usage.footerHeading("%nExamples:%n");
      usage.footer(examples.stream().map(e -> "  " + e.replace("%", "%%")).toArray(String[]::new));
    }
    if (usage.exitCodeList().isEmpty()) {
      usage.exitCodeListHeading("%nExit codes:%n");
      Map<String, String> codes = new LinkedHashMap<>();
      for (String code :
          cl.getCommandName().equals("completion") || cl.getCommandName().equals("help")
              ? List.of("0:printed", "2:an unknown shell or command")
              : SERVICE_EXIT_CODES) {
        int colon = code.indexOf(':');
        codes.put(code.substring(0, colon), code.substring(colon + 1));
      }
      usage.exitCodeList(codes);
    }
    cl.getSubcommands().values().stream().distinct().forEach(CommandHelp::applyTo);
  }

  /** Every command that has examples: the test checks each --help shows them. */
  static List<String> commandsWithExamples() {
    return List.copyOf(EXAMPLES.keySet());
  }
}
