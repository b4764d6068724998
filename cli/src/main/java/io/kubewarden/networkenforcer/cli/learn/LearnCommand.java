package io.kubewarden.networkenforcer.cli.learn;

import io.kubewarden.networkenforcer.cli.config.ClusterOptions;
import io.kubewarden.networkenforcer.cli.config.ClusterRangeOptions;
import io.kubewarden.networkenforcer.cli.config.ConfigFileOption;
import io.kubewarden.networkenforcer.cli.config.LearningOptions;
import io.kubewarden.networkenforcer.cli.config.LogLevels;
import io.kubewarden.networkenforcer.cli.config.OutputFormat;
import io.kubewarden.networkenforcer.cli.ranges.ClusterRanges;
import io.kubewarden.networkenforcer.cli.version.VersionProvider;
import io.kubewarden.networkenforcer.common.config.Durations;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.policy.Backend;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.ingest.file.CaptureFormat;
import io.kubewarden.networkenforcer.ingest.resolution.ClusterView;
import io.kubewarden.networkenforcer.processor.config.LearningSettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code network-enforcer learn}: runs the real pipeline over a capture file and writes the learned
 * proposals as manifests, then prints what happened.
 */
@Command(
    name = "learn",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    sortOptions = false,
    description = {
      "Learns proposals offline from a capture file: runs ingest and the stream processor's topology in this "
          + "process (no Kafka broker) and writes one WorkloadNetworkPolicyProposal per workload and direction to "
          + "DIR/<namespace>/<name>.yaml.",
      "",
      "Captures: 'hubble observe -o jsonpb' lines (or Hubble exporter files), Goldmane FlowResult or Flow JSON "
          + "lines, ztunnel logs (default text or JSON). Plain or gzip, UTF-8 or UTF-16 with a byte-order mark; "
          + "a directory of rotated files; '-' reads standard input.",
      "Cluster state: 'kubectl get ns,deploy,sts,ds,rs,pods -A -o json' (JSON or YAML). Without it, selectors "
          + "come from the pod labels in the capture (ztunnel captures have none and need it)."
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:proposals written",
      "1:nothing could be learned, or the pipeline failed",
      "2:bad options or unusable input files (the message says what to fix)"
    })
public final class LearnCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(
      names = {"-f", "--input"},
      paramLabel = "FILE|DIR|-",
      required = true,
      description = "The capture: a file, a directory of rotated files, or - for standard input.")
  Path input;

  @Option(
      names = "--format",
      paramLabel = "hubble|goldmane|ztunnel",
      description = "Format of the capture; detected from its first records when not given.")
  String format;

  @Option(
      names = "--cluster-state",
      paramLabel = "FILE|-",
      description =
          "Namespaces, workloads, ReplicaSets and pods the flows refer to (kubectl get ... -o json|yaml); "
              + "- reads it from standard input.")
  Path clusterState;

  @Option(
      names = "--provider",
      paramLabel = "istio|calico|cilium",
      description =
          "The data plane the capture comes from, which decides the policy model (istio: Istio "
              + "AuthorizationPolicy; calico, cilium: NetworkPolicy), as for the services (env NE_PROVIDER); default "
              + "from the capture: cilium for hubble, calico for goldmane, istio for ztunnel.")
  String provider;

  /**
   * The policy model, where the provider allows more than one: a Hubble capture renders
   * NetworkPolicies by default, CiliumNetworkPolicies with {@code cilium}.
   */
  @Option(
      names = "--backend",
      paramLabel = "kubernetes|istio|cilium",
      description =
          "The policy model to write: kubernetes (NetworkPolicy), istio (AuthorizationPolicy) or "
              + "cilium (CiliumNetworkPolicy: external egress by DNS name; Hubble captures only); "
              + "default: the provider's (istio for ztunnel, kubernetes otherwise).")
  String backend;

  @Option(
      names = "--output-dir",
      paramLabel = "DIR",
      required = true,
      description = "Where the manifests go; must be empty or new unless --overwrite is given.")
  Path outputDir;

  @Option(
      names = "--overwrite",
      description =
          "Reuse a non-empty --output-dir: the manifests and unreadable-lines file of an earlier run are "
              + "removed first.")
  boolean overwrite;

  @Option(
      names = "--report",
      paramLabel = "FILE.html",
      description =
          "Also write a self-contained HTML page with the connectivity graph, the rules and what was dropped.")
  Path report;

  @Option(
      names = "--timeout",
      paramLabel = "DURATION",
      defaultValue = "10m",
      description =
          "Longest time to wait for processing once the capture is read (default: ${DEFAULT-VALUE}).")
  String timeout;

  @Option(
      names = {"-v", "--verbose"},
      description =
          "List every rule of every proposal (the summary lists the first "
              + LearnSummary.LISTED
              + " files with their rule counts).")
  boolean verbose;

  @Option(
      names = {"-o", "--output"},
      paramLabel = "text|json|yaml",
      defaultValue = "text",
      description =
          "Summary format (default: ${DEFAULT-VALUE}): json or yaml give the summary and every file "
              + "written to tools.")
  String output;

  @Option(
      names = "--timings",
      description =
          "Also print how long each phase took (to standard error): where a slow run spends its time.")
  boolean timings;

  @Option(
      names = "--log-level",
      paramLabel = "LEVEL",
      defaultValue = "warn",
      description = "debug, info, warn or error (default: ${DEFAULT-VALUE}); logs go to stderr.")
  String logLevel;

  @Mixin ConfigFileOption configFile;

  @Mixin LearningOptions learning = new LearningOptions();

  @Mixin ClusterRangeOptions ranges = new ClusterRangeOptions();

  /** The cluster whose ranges --discover-cluster-cidrs reads; learn reads nothing else from it. */
  @Mixin ClusterOptions cluster = new ClusterOptions();

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    LogLevels.quiet(logLevel);
    LearnRequest request = validate();
    LearnProgress progress = new LearnProgress(System.err, TimeUnit.SECONDS.toNanos(2));
    try (StdinCapture stdin = request.fromStdin() ? StdinCapture.spool(System.in) : null;
        StdinCapture state =
            request.clusterState().filter(f -> STDIN.equals(f.toString())).isPresent()
                ? StdinCapture.spool(System.in)
                : null) {
      if (state != null) {
        // kubectl get ... -o json | network-enforcer learn --cluster-state - ...
        request = request.withClusterState(state.file());
      }
      Path capture = request.input();
      if (stdin != null) {
        capture = stdin.file();
        progress.phaseDone("standard input spooled");
      }
      return learn(request, capture, out, progress);
    } catch (OutOfMemoryError e) {
      throw OutOfMemoryAdvice.advice(e);
    } catch (RuntimeException e) {
      // Out of memory on another thread arrives wrapped (a failed decode, the topology's thread).
      throw OutOfMemoryAdvice.whenOutOfMemory(e);
    }
  }

  private Integer learn(LearnRequest request, Path capture, PrintWriter out, LearnProgress progress)
      throws InterruptedException {
    CaptureFormat captureFormat = CaptureInspection.inspect(capture, request.format());
    providerGiven
        .filter(p -> p != LearnSetup.providerOf(captureFormat))
        .ifPresent(
            p -> {
              throw new LearnInputException(
                  "--provider "
                      + p
                      + " does not fit the capture: "
                      + captureFormat.source()
                      + " records come from "
                      + LearnSetup.providerOf(captureFormat)
                      + "; drop --provider (or fix NE_PROVIDER)");
            });
    Backend chosenBackend =
        request.backend().orElse(LearnSetup.providerOf(captureFormat).backend());
    // Before the capture is read: an unreachable cluster fails in seconds, not after it.
    LearningSettings learningSettings =
        ClusterRanges.forCommandLine(
            learning.settings(), ranges, cluster, spec.commandLine().getErr());
    LearnSetup.checkBackend(captureFormat, chosenBackend, learningSettings);
    progress.phaseDone("options and capture format");

    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    LearnResult result;
    Optional<Path> unreadable;
    Optional<String> truncation;
    List<Path> removed;
    try (InProcessPipeline pipeline = new InProcessPipeline(registry, learningSettings)) {
      // The topology is built while the cluster state loads.
      pipeline.startBuilding(captureFormat, chosenBackend);
      // Handed to the pipeline, which lets it go once the capture is read.
      AtomicReference<ClusterView> view =
          new AtomicReference<>(
              request
                  .clusterState()
                  .<ClusterView>map(file -> ClusterStates.load(file, spec.commandLine().getErr()))
                  .orElseGet(() -> CaptureClusterState.derive(capture, captureFormat)));
      progress.phaseDone(
          request.clusterState().isPresent() ? "cluster state" : "cluster state from the capture");
      // Only once every input is known to be usable: an earlier run's manifests go now.
      removed = OutputDirectory.prepare(request.outputDir(), request.overwrite());
      try (UnreadableLinesFile unreadableLines = new UnreadableLinesFile(request.outputDir())) {
        result =
            pipeline.run(
                capture,
                captureFormat,
                chosenBackend,
                view,
                request.timeout(),
                progress,
                unreadableLines);
        truncation =
            pipeline
                .truncation()
                .map(
                    t ->
                        t.replace(
                            capture.toString(),
                            String.valueOf(
                                request.fromStdin() ? "from standard input" : request.input())));
        unreadable = unreadableLines.written();
      }
    }
    long lostEvents = Math.max(result.capture().lostEvents(), CaptureLoss.lostEvents(registry));
    List<ProposalSnapshot> proposals =
        CaptureLoss.mark(
            List.copyOf(result.proposals().values()),
            lostEvents,
            result.capture().unreadableNodes());
    String source =
        request.fromStdin() ? "standard input" : request.input().getFileName().toString();
    List<Path> files = ProposalManifests.write(request.outputDir(), proposals, source);
    progress.phaseDone("manifests written");
    LearnSummary summary =
        new LearnSummary(
                request.fromStdin() ? Path.of("-") : request.input(),
                captureFormat,
                chosenBackend,
                request.clusterState().isPresent(),
                result.capture(),
                registry,
                proposals,
                files,
                learningSettings)
            .withOutputFiles(unreadable, removed.size())
            .withTruncation(truncation);
    if (report != null) {
      LearnReport.write(report, proposals, summary);
    }
    if (request.output() == OutputFormat.TEXT) {
      summary.print(out, verbose);
      if (report != null) {
        out.println("  report:              " + report);
      }
    } else {
      out.print(request.output().render(summary.document(Optional.ofNullable(report))));
    }
    out.flush();
    progress.phaseDone("summary");
    if (timings) {
      progress.phases().print(spec.commandLine().getErr());
    }
    if (proposals.isEmpty()) {
      spec.commandLine().getErr().println("error: " + summary.whyNothingLearned());
      return 1;
    }
    return 0;
  }

  /** The options, checked, with messages that say what to fix. */
  record LearnRequest(
      Path input,
      Optional<CaptureFormat> format,
      Optional<Path> clusterState,
      Optional<Backend> backend,
      Path outputDir,
      Duration timeout,
      boolean overwrite,
      OutputFormat output) {

    boolean fromStdin() {
      return STDIN.equals(input.toString());
    }

    LearnRequest withClusterState(Path file) {
      return new LearnRequest(
          input, format, Optional.of(file), backend, outputDir, timeout, overwrite, output);
    }
  }

  private static final String STDIN = "-";

  /** The --provider given, checked against the capture's format once it is known. */
  private Optional<Provider> providerGiven = Optional.empty();

  LearnRequest validate() {
    OutputDirectory.check(outputDir, overwrite);

    Optional<CaptureFormat> f = Optional.empty();
    if (format != null && !format.isBlank()) {
      try {
        f = Optional.of(CaptureFormat.parse(format));
      } catch (IllegalArgumentException e) {
        throw new LearnInputException("--format: " + e.getMessage());
      }
    }
    Optional<Backend> b = Optional.empty();
    if (provider != null && !provider.isBlank()) {
      String p = provider.trim();
      if (!Set.of("istio", "calico", "cilium").contains(p)) {
        throw new LearnInputException(
            "--provider '" + provider + "' must be istio, calico or cilium (NE_PROVIDER)");
      }
      b = Optional.of(Provider.parse(p).backend());
      providerGiven = Optional.of(Provider.parse(p));
    }
    if (backend != null && !backend.isBlank()) {
      try {
        // Whether it fits the provider is checked with the capture's provider (ProcessorConfig).
        b = Optional.of(Backend.parse(backend.trim()));
      } catch (IllegalArgumentException e) {
        throw new LearnInputException("--backend: " + e.getMessage());
      }
    }
    if (clusterState != null
        && STDIN.equals(clusterState.toString())
        && STDIN.equals(input.toString())) {
      throw new LearnInputException(
          "--input - and --cluster-state - both name standard input; give one of them as "
              + "a file");
    }
    if (clusterState != null
        && !STDIN.equals(clusterState.toString())
        && !Files.isRegularFile(clusterState)) {
      throw new LearnInputException(
          "cluster-state file "
              + clusterState
              + " does not exist; fix --cluster-state "
              + "or write it with: kubectl get ns,deploy,sts,ds,rs,pods -A -o json > "
              + clusterState.getFileName());
    }
    if (report != null) {
      LearnReport.check(report);
    }
    Duration t = Durations.parse("--timeout", timeout);
    OutputFormat o;
    try {
      o = OutputFormat.parse(output);
    } catch (RuntimeException e) {
      throw new LearnInputException(e.getMessage());
    }
    return new LearnRequest(
        input, f, Optional.ofNullable(clusterState), b, outputDir, t, overwrite, o);
  }
}
