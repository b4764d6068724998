package io.kubewarden.networkenforcer.cli.replay;

import io.kubewarden.networkenforcer.cli.config.ClusterOptions;
import io.kubewarden.networkenforcer.cli.config.ClusterRangeOptions;
import io.kubewarden.networkenforcer.cli.config.ConfigFileOption;
import io.kubewarden.networkenforcer.cli.config.KafkaClientOptions;
import io.kubewarden.networkenforcer.cli.config.LearningOptions;
import io.kubewarden.networkenforcer.cli.config.LogLevels;
import io.kubewarden.networkenforcer.cli.history.KafkaReachability;
import io.kubewarden.networkenforcer.cli.history.TimeWindow;
import io.kubewarden.networkenforcer.cli.history.WindowLossReader;
import io.kubewarden.networkenforcer.cli.learn.CaptureLoss;
import io.kubewarden.networkenforcer.cli.learn.LearnSummary;
import io.kubewarden.networkenforcer.cli.learn.ProposalManifests;
import io.kubewarden.networkenforcer.cli.ranges.ClusterRanges;
import io.kubewarden.networkenforcer.cli.services.ProviderNameOption;
import io.kubewarden.networkenforcer.cli.version.VersionProvider;
import io.kubewarden.networkenforcer.common.config.ConfigException;
import io.kubewarden.networkenforcer.common.config.Durations;
import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.policy.Backend;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.processor.config.LearningSettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code network-enforcer replay}: rebuilds proposals from the flows of a past window of the flows
 * topic, in isolation from the live processor, and writes them as manifests or publishes them
 * marked with their window.
 */
@Command(
    name = "replay",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    sortOptions = false,
    description = {
      "Rebuilds proposals from the flows of a past window of the flows topic. The window's flows are read from "
          + "offsetsForTimes(--from) up to --to (or the end seen at start), committed records only, and learned by "
          + "the processor topology in this process, as learn runs it, under its own application id and state: "
          + "the live processor, its consumer group, its state, violations and policy status are never touched.",
      "",
      "Writes DIR/<namespace>/<name>.yaml like learn (--output-dir), and/or publishes the proposals to the "
          + "proposals topic annotated networkenforcer.kubewarden.io/replayed-from=<from>/<to> (--publish), "
          + "which the writer applies as WNPPs. How far back is possible is the retention of the flows topic "
          + "(--kafka-flows-retention-ms, chart kafka.flowsRetentionMs, default 7 days)."
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:proposals written or published",
      "1:nothing could be learned from the window, or a failure",
      "2:bad options, or a window the flows topic no longer holds (the message names the oldest time available)"
    })
public final class ReplayCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(
      names = "--from",
      paramLabel = "TIME",
      required = true,
      description =
          "Start of the window: " + "2026-12-01T08:00:00Z, or a duration before now (24h).")
  String from;

  @Option(
      names = "--to",
      paramLabel = "TIME",
      description = "End of the window, exclusive (default: now).")
  String to;

  @Option(
      names = {"-n", "--namespace"},
      paramLabel = "NS",
      description = "Only targets in this namespace; repeatable.")
  List<String> namespaces = new ArrayList<>();

  @Option(
      names = "--output-dir",
      paramLabel = "DIR",
      description = "Write the proposals here as manifests.")
  Path outputDir;

  @Option(
      names = "--publish",
      description = "Publish the proposals to the proposals topic, annotated with the window.")
  boolean publish;

  @Option(
      names = "--report",
      paramLabel = "FILE.html",
      description =
          "Also write the self-contained HTML page of "
              + "learn --report for the window: connectivity graph, rules with evidence, what was not replayed.")
  Path report;

  @Option(
      names = "--timeout",
      paramLabel = "DURATION",
      defaultValue = "30m",
      description =
          "Longest time to wait, once the window is read, for learning to finish (default: "
              + "${DEFAULT-VALUE}).")
  String timeout;

  @Option(
      names = "--log-level",
      paramLabel = "LEVEL",
      defaultValue = "warn",
      description = "debug, info, warn or error (default: ${DEFAULT-VALUE}); logs go to stderr.")
  String logLevel;

  @Mixin ProviderNameOption provider;

  @Option(
      names = "--backend",
      paramLabel = "kubernetes|istio|cilium",
      description =
          "The installation's policy model (NE_BACKEND): cilium for an installation learning "
              + "CiliumNetworkPolicies; default: the provider's (istio for istio, kubernetes otherwise).")
  String backend;

  /** As the installation learns (chart processor.learning.*), so the window gives its proposals. */
  @Mixin LearningOptions learning = new LearningOptions();

  /** The installation's ranges, read as its processor reads them (--discover-cluster-cidrs). */
  @Mixin ClusterRangeOptions ranges = new ClusterRangeOptions();

  /** The cluster --discover-cluster-cidrs reads; replay reads nothing else from it. */
  @Mixin ClusterOptions cluster = new ClusterOptions();

  @Mixin KafkaClientOptions kafka;

  @Mixin ConfigFileOption configFile;

  @Override
  public Integer call() throws Exception {
    LogLevels.quiet(logLevel);
    if (outputDir == null && !publish && report == null) {
      throw new ConfigException(
          "say where the proposals go: --output-dir DIR, --publish, --report FILE.html, "
              + "or several");
    }
    if (outputDir != null && Files.exists(outputDir) && !Files.isDirectory(outputDir)) {
      throw new ConfigException("--output-dir " + outputDir + " is a file; name a directory");
    }
    if (report != null) {
      ReplayReport.check(report);
    }
    Duration wait = Durations.parse("--timeout", timeout);
    TimeWindow window = TimeWindow.parse(from, to, Instant.now());
    Set<String> selected = new TreeSet<>(namespaces);
    KafkaSettings live = kafka.settings(null);
    var chosen = provider.provider();
    Backend chosenBackend = chosen.backend();
    if (backend != null && !backend.isBlank()) {
      try {
        chosenBackend = Backend.parse(backend.trim());
      } catch (IllegalArgumentException e) {
        throw new ConfigException("--backend (NE_BACKEND): " + e.getMessage());
      }
    }
    LearningSettings learningSettings =
        ClusterRanges.forCommandLine(
            learning.settings(), ranges, cluster, spec.commandLine().getErr());
    // Every option checked (a backend that does not fit the provider or the learning settings)
    // before the broker is contacted.
    ReplayPipeline.processorConfig(
        live, window, chosen, chosenBackend, learningSettings, Path.of("unused"));
    KafkaReachability.require(live);

    ReplayPipeline.Result result;
    try (ReplayPipeline pipeline = new ReplayPipeline(new SimpleMeterRegistry())) {
      result =
          pipeline.run(
              live,
              window,
              selected,
              chosen,
              chosenBackend,
              learningSettings,
              wait,
              spec.commandLine().getErr());
    }
    PrintWriter out = spec.commandLine().getOut();
    if (!result.providers().isEmpty()
        && result.providers().keySet().stream().noneMatch(p -> p.backend() == chosen.backend())) {
      spec.commandLine()
          .getErr()
          .println(
              "warning: the window's flows come from "
                  + result.providers().keySet()
                  + " but --provider is "
                  + chosen
                  + " (NE_PROVIDER), so the proposals use the "
                  + chosenBackend
                  + " backend; pass the --provider of the installation that recorded them");
    }
    out.println(
        "Replayed "
            + window.from()
            + " to "
            + window.to()
            + (selected.isEmpty() ? "" : " for namespaces " + String.join(", ", selected))
            + ": "
            + result.read().inWindow()
            + " flows in the window, "
            + result.replayed()
            + " replayed"
            + (result.read().unreadable() > 0
                ? ", " + result.read().unreadable() + " unreadable records skipped"
                : "")
            + ", "
            + result.proposals().size()
            + " proposals.");
    WindowLossReader.Loss loss =
        new WindowLossReader(live)
            .read(window, result.providers().keySet())
            .orElse(WindowLossReader.Loss.NONE);
    Map<String, ProposalSnapshot> learned = held(result.proposals(), loss);
    if (loss.unreadable() > 0) {
      spec.commandLine()
          .getErr()
          .println(
              "warning: "
                  + loss.unreadable()
                  + " records of the loss topic "
                  + live.topics().dataPlaneLoss().name()
                  + " could not be read: the data plane may have lost more events "
                  + "during the window than reported here");
    }
    if (loss.lostEvents() > 0) {
      out.println(
          "Lost events: "
              + loss.lostEvents()
              + " reported by the data plane during the window (on "
              + String.join(", ", loss.nodes())
              + "): the window's flows are incomplete, so every proposal is held "
              + "Converged=False (EventsLost).");
    }
    if (!loss.unreadableNodes().isEmpty()) {
      out.println(
          "Unreadable nodes: "
              + String.join(", ", loss.unreadableNodes())
              + " could not be read by the data "
              + "plane for a while during the window: their flows of that time are missing, so every proposal is held "
              + "Converged=False (EventsLost).");
    }
    List<ProposalSnapshot> proposals =
        learned.values().stream().map(p -> ProposalPublisher.annotated(p, window)).toList();
    if (!proposals.isEmpty()) {
      out.println(
          "Converged: "
              + LearnSummary.convergence(proposals, learningSettings.quietPeriod(), "window")
              + ".");
    }
    if (proposals.isEmpty()) {
      out.flush();
      spec.commandLine()
          .getErr()
          .println(
              "error: nothing to learn from "
                  + window.from()
                  + " to "
                  + window.to()
                  + (result.read().inWindow() == 0
                      ? ": the flows topic holds no flow in that window"
                      : ": no flow of the window belongs to a workload of the selected namespaces"));
      return 1;
    }
    if (outputDir != null) {
      for (Path file :
          ProposalManifests.write(
              outputDir,
              proposals,
              "network-enforcer replay",
              "the flows of " + window.from() + " to " + window.to())) {
        out.println("  " + file);
      }
    }
    if (report != null) {
      ReplayReport.write(
          report, live.topics().flows().name(), window, chosenBackend, result, proposals);
      out.println("  report: " + report);
    }
    if (publish) {
      int n = new ProposalPublisher(live).publish(learned, window);
      out.println("Published " + n + " proposals to " + live.topics().proposals().name() + ".");
    }
    out.flush();
    return 0;
  }

  /** The proposals, held not converged when the data plane lost events during the window. */
  private static Map<String, ProposalSnapshot> held(
      Map<String, ProposalSnapshot> proposals, WindowLossReader.Loss loss) {
    if (!loss.any()) {
      return proposals;
    }
    String message =
        "the data plane "
            + CaptureLoss.missed(loss.lostEvents(), loss.unreadableNodes())
            + " while the replayed window's flows were recorded: peers may be missing; replay a window without loss";
    Map<String, ProposalSnapshot> out = new TreeMap<>(proposals);
    out.replaceAll((key, p) -> CaptureLoss.held(p, message));
    return out;
  }
}
