package io.kubewarden.networkenforcer.cli.simulate;

import io.kubewarden.networkenforcer.cli.config.ConfigFileOption;
import io.kubewarden.networkenforcer.cli.config.KafkaClientOptions;
import io.kubewarden.networkenforcer.cli.config.OutputFormat;
import io.kubewarden.networkenforcer.cli.config.ReportOptions;
import io.kubewarden.networkenforcer.cli.history.CaptureFlows;
import io.kubewarden.networkenforcer.cli.history.FlowWindowReader;
import io.kubewarden.networkenforcer.cli.history.HistoryProgress;
import io.kubewarden.networkenforcer.cli.history.KafkaReachability;
import io.kubewarden.networkenforcer.cli.history.PolicyDocuments;
import io.kubewarden.networkenforcer.cli.history.TimeWindow;
import io.kubewarden.networkenforcer.cli.learn.StdinCapture;
import io.kubewarden.networkenforcer.cli.version.VersionProvider;
import io.kubewarden.networkenforcer.common.config.ConfigException;
import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.ingest.file.CaptureSummary;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code network-enforcer simulate}: what would a candidate policy deny of the traffic already
 * seen? Evaluates every flow of a capture (offline) or of a window of the flows topic against the
 * policies of a file with the project's evaluators, and exits non-zero when something would be
 * denied, so a CI job can gate a promotion on it.
 */
@Command(
    name = "simulate",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    sortOptions = false,
    description = {
      "Tests candidate policies against past traffic: every flow of a capture file (offline, no cluster) or "
          + "of a window of the flows topic is evaluated as if the policies were enforced; the report lists "
          + "what would be denied, grouped by target, direction, peer, protocol and port, with count, first "
          + "and last seen, and the rules that matched no flow.",
      "",
      "--policy takes one or several YAML documents: WorkloadNetworkPolicyProposal, WorkloadNetworkPolicy, "
          + "NetworkPolicy, Istio AuthorizationPolicy (ALLOW)."
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:nothing would be denied",
      "1:runtime failure (Kafka unreachable, ...)",
      "2:bad options, a file that is not a policy, unusable capture, or a window the topic no longer holds",
      "3:something would be denied (see the report)"
    })
public final class SimulateCommand implements Callable<Integer> {
  /** Something would be denied: distinct from failures so CI can tell them apart. */
  public static final int EXIT_WOULD_DENY = 3;

  @Spec CommandSpec spec;

  @Option(
      names = {"-f", "--policy"},
      paramLabel = "FILE|DIR|-",
      required = true,
      description =
          "The candidate policies: a file, a directory (read recursively, as learn writes it) "
              + "or - for standard input.")
  Path policy;

  @Option(
      names = "--input",
      paramLabel = "CAPTURE|-",
      description =
          "A capture file (hubble, goldmane or ztunnel lines) or - for standard input, evaluated offline.")
  Path input;

  @Option(
      names = "--cluster-state",
      paramLabel = "FILE",
      description =
          "With --input: namespaces, workloads and pods the flows refer to, as for learn.")
  Path clusterState;

  @Option(
      names = "--from",
      paramLabel = "TIME",
      description =
          "Start of the flows topic window: 2026-12-01T08:00:00Z, or a duration before now (24h).")
  String from;

  @Option(names = "--to", paramLabel = "TIME", description = "End of the window (default: now).")
  String to;

  @Mixin ReportOptions report;

  @Mixin KafkaClientOptions kafka;

  @Mixin ConfigFileOption configFile;

  @Override
  public Integer call() {
    OutputFormat format = report.start();
    boolean window = from != null || to != null;
    if (window == (input != null)) {
      throw new ConfigException(
          "name the traffic to test against: --input CAPTURE (offline) or --from TIME "
              + "[--to TIME] (the flows topic), not both");
    }
    if (clusterState != null && input == null) {
      throw new ConfigException(
          "--cluster-state goes with --input; flows in the topic are resolved already");
    }
    boolean captureFromStdin = input != null && PolicyDocuments.STDIN.equals(input.toString());
    if (captureFromStdin && PolicyDocuments.STDIN.equals(policy.toString())) {
      throw new ConfigException(
          "--policy - and --input - both name standard input; give one of them as a file");
    }
    List<CandidatePolicy> candidates = PolicyFile.load(policy);
    Simulation simulation = new Simulation(candidates);
    String source;
    if (input != null) {
      try (StdinCapture stdin = captureFromStdin ? StdinCapture.spool(System.in) : null) {
        Path file = stdin == null ? input : stdin.file();
        CaptureSummary capture =
            CaptureFlows.read(
                file,
                Optional.ofNullable(clusterState),
                simulation::accept,
                spec.commandLine().getErr());
        source =
            "capture "
                + (stdin == null ? input.getFileName() : "from standard input")
                + " ("
                + capture.format().source()
                + ")";
      }
    } else {
      TimeWindow w = TimeWindow.parse(from, to, Instant.now());
      KafkaSettings settings = kafka.settings(null);
      KafkaReachability.require(settings);
      FlowWindowReader reader = new FlowWindowReader(settings);
      reader.read(
          w,
          (key, flow, ts) -> simulation.accept(flow),
          HistoryProgress.every2s(spec.commandLine().getErr(), "reading flows"));
      source = "the flows topic, " + w.from() + " to " + w.to();
    }
    Simulation.Result result = simulation.result();
    PrintWriter out = spec.commandLine().getOut();
    if (format == OutputFormat.TEXT) {
      SimulationReport.text(out, source, result);
    } else {
      SimulationReport.document(out, format, source, result);
    }
    out.flush();
    return result.anyDenied() ? EXIT_WOULD_DENY : 0;
  }
}
