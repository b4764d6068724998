package io.kubewarden.networkenforcer.cli.learn;

import io.kubewarden.networkenforcer.common.policy.Backend;
import io.kubewarden.networkenforcer.common.policy.Labels;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.common.report.ProposalRules;
import io.kubewarden.networkenforcer.ingest.file.CaptureFormat;
import io.kubewarden.networkenforcer.ingest.file.CaptureSummary;
import io.kubewarden.networkenforcer.ingest.parsing.DropReason;
import io.kubewarden.networkenforcer.processor.config.LearningSettings;
import io.kubewarden.networkenforcer.processor.learning.ExternalPeerRule;
import io.kubewarden.networkenforcer.processor.metrics.ProcessorMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * What {@code learn} prints at the end: records read, dropped by reason, events lost, proposals,
 * their files and how many converged over the capture's window.
 */
public final class LearnSummary {
  private final Path input;
  private final CaptureFormat format;
  private final Backend backend;
  private final boolean clusterStateGiven;
  private final CaptureSummary capture;
  private final MeterRegistry registry;
  private final List<ProposalSnapshot> proposals;
  private final List<Path> files;
  private final LearningSettings learning;
  private Optional<Path> unreadableLinesFile = Optional.empty();
  private int manifestsRemoved;
  private Optional<String> truncation = Optional.empty();

  LearnSummary(
      Path input,
      CaptureFormat format,
      Backend backend,
      boolean clusterStateGiven,
      CaptureSummary capture,
      MeterRegistry registry,
      List<ProposalSnapshot> proposals,
      List<Path> files,
      LearningSettings learning) {
    this.learning = learning;
    this.input = input;
    this.format = format;
    this.backend = backend;
    this.clusterStateGiven = clusterStateGiven;
    this.capture = capture;
    this.registry = registry;
    this.proposals = proposals;
    this.files = files;
  }

  /**
   * The unreadable-lines file (when lines were unreadable) and how many old manifests --overwrite
   * removed.
   */
  LearnSummary withOutputFiles(Optional<Path> unreadableLines, int removed) {
    this.unreadableLinesFile = unreadableLines;
    this.manifestsRemoved = removed;
    return this;
  }

  /** Where the capture broke off (a truncated .gz), the first warning. */
  LearnSummary withTruncation(Optional<String> truncation) {
    this.truncation = truncation;
    return this;
  }

  Path input() {
    return input;
  }

  CaptureFormat format() {
    return format;
  }

  Backend backend() {
    return backend;
  }

  CaptureSummary capture() {
    return capture;
  }

  /**
   * How many proposals the summary names one by one; {@code --verbose} names all, with their rules.
   */
  static final int LISTED = 10;

  /** Every proposal with every rule: what {@code learn --verbose} prints. */
  void print(PrintWriter out) {
    print(out, true);
  }

  /**
   * The summary: the warnings that decide whether the proposals can be trusted (events lost, nodes
   * unreadable, not converged) first, then the counts, then the files; a terminal's worth by
   * default, every rule with {@code verbose}.
   */
  void print(PrintWriter out, boolean verbose) {
    warnings().forEach(w -> out.printf(Locale.ROOT, "WARNING: %s%n", w));
    out.printf(
        Locale.ROOT,
        "Learned from %s (%s, backend %s, selectors from %s)%n",
        input,
        format.source(),
        backend,
        clusterStateGiven ? "the cluster-state file" : "the capture's pod labels");
    out.printf(Locale.ROOT, "  records read:        %d%n", capture.lines());
    out.printf(Locale.ROOT, "  flows published:     %d%n", capture.published());
    out.printf(
        Locale.ROOT,
        "  dropped at ingest:   %d%s%n",
        capture.droppedTotal(),
        reasons(dropReasons()));
    out.printf(
        Locale.ROOT,
        "  unreadable lines:    %d%s%n",
        capture.badLines(),
        capture.badLines() == 0
            ? ""
            : unreadableLinesFile
                .map(f -> " (kept in " + f + ")")
                .orElse(" (kept in the dead-letter topic)"));
    capture.errors().stream().limit(5).forEach(e -> out.printf(Locale.ROOT, "      %s%n", e));
    Map<String, Long> notLearned = processorSkips();
    if (!notLearned.isEmpty()) {
      out.printf(
          Locale.ROOT,
          "  not learned:         %d%s%n",
          notLearned.values().stream().mapToLong(Long::longValue).sum(),
          reasons(notLearned));
    }
    long inferredProposals = inferredProposals();
    if (capture.inferredFlows() > 0 || inferredProposals > 0) {
      out.printf(
          Locale.ROOT,
          "  inferred workloads:  %d flows, %d proposals (workload and selector inferred from pod "
              + "names and labels; those proposals carry the annotation %s: review their selectors)%n",
          capture.inferredFlows(),
          inferredProposals,
          Labels.INFERRED_WORKLOADS);
    }
    if (manifestsRemoved > 0) {
      out.printf(Locale.ROOT, "  old manifests removed (--overwrite): %d%n", manifestsRemoved);
    }
    out.printf(Locale.ROOT, "  proposals written:   %d%n", proposals.size());
    List<String> tooLarge = tooLarge();
    if (!tooLarge.isEmpty()) {
      out.printf(
          Locale.ROOT,
          "  too large to store:  %d (%s; a rule per peer is over the 1.5 MiB Kubernetes keeps per "
              + "object: write a WorkloadNetworkPolicy for those workloads by hand, for example one rule for all "
              + "namespaces)%n",
          tooLarge.size(),
          String.join(", ", tooLarge));
    }
    if (proposals.isEmpty() || convergedCount() == proposals.size()) {
      // Otherwise it is a warning, at the top.
      out.printf(Locale.ROOT, "  converged:           %s%n", convergence());
    }
    int listed = verbose ? proposals.size() : Math.min(LISTED, proposals.size());
    for (int i = 0; i < listed; i++) {
      List<String> rules = ProposalRules.describe(proposals.get(i));
      if (verbose) {
        out.printf(Locale.ROOT, "    %s%n", files.get(i));
        rules.forEach(rule -> out.printf(Locale.ROOT, "        %s%n", rule));
      } else {
        out.printf(
            Locale.ROOT,
            "    %s (%d %s)%n",
            files.get(i),
            rules.size(),
            rules.size() == 1 ? "rule" : "rules");
      }
    }
    if (listed < proposals.size()) {
      out.printf(Locale.ROOT, "    ... and %d more%n", proposals.size() - listed);
    }
    if (!verbose && !proposals.isEmpty()) {
      out.printf(
          Locale.ROOT,
          "  (--verbose lists every rule of every proposal; -o json gives this summary to tools)%n");
    }
  }

  /** What a reviewer must know before trusting any proposal, most important first. */
  List<String> warnings() {
    List<String> out = new ArrayList<>();
    truncation.ifPresent(out::add);
    long lost = lostEvents();
    if (lost > 0) {
      out.add(
          "lost events: "
              + lost
              + " (the capture is INCOMPLETE: Hubble dropped events before they were "
              + "recorded; rules for the lost connections may be missing, so no proposal is Converged; raise the Hubble "
              + "buffer or record for less time)");
    }
    if (!capture.unreadableNodes().isEmpty()) {
      out.add(
          "unreadable nodes: "
              + String.join(", ", capture.unreadableNodes())
              + " (the capture is INCOMPLETE: "
              + "Hubble Relay could not read them for a while, so their flows of that time are missing and no proposal "
              + "is Converged; record again with every node connected)");
    }
    if (!proposals.isEmpty() && convergedCount() < proposals.size()) {
      out.add("converged: " + convergence());
    }
    long everywhere = widenedWithoutExcept();
    if (everywhere > 0) {
      out.add(
          "outside rules without except: "
              + everywhere
              + " proposals allow 0.0.0.0/0 and ::/0 on some ports, the cluster's own pods and "
              + "services included (many outside addresses on one port, or a data plane that reports "
              + "no address); pass --cluster-cidr with the pod and service ranges to except them, "
              + "or --discover-cluster-cidrs to read them from the cluster"
              + (backend == Backend.cilium
                  ? ", or --cilium-entities to allow Cilium's entity world instead"
                  : ""));
    }
    return out;
  }

  /**
   * Proposals with the widened outside rule while no cluster range is known: it then excepts
   * nothing (Cilium's entity world needs no range).
   */
  private long widenedWithoutExcept() {
    if (!learning.clusterCidrs().isEmpty() || learning.ciliumEntities()) {
      return 0;
    }
    return proposals.stream()
        .filter(
            p ->
                p.evidence().stream()
                    .anyMatch(r -> ExternalPeerRule.OUTSIDE_KEY.equals(r.getPeer())))
        .count();
  }

  /**
   * The summary as one document ({@code learn -o json|yaml}): the same figures as the text, with
   * every written file and its rule count.
   */
  Map<String, Object> document(Optional<Path> report) {
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("input", input.toString());
    doc.put("format", format.source());
    doc.put("backend", backend.name());
    doc.put("selectorsFrom", clusterStateGiven ? "cluster-state" : "capture");
    doc.put("warnings", warnings());
    doc.put("recordsRead", capture.lines());
    doc.put("flowsPublished", capture.published());
    doc.put("droppedAtIngest", capture.droppedTotal());
    doc.put("droppedByReason", dropReasons());
    doc.put("lostEvents", lostEvents());
    doc.put("unreadableNodes", capture.unreadableNodes());
    doc.put("unreadableLines", capture.badLines());
    unreadableLinesFile.ifPresent(f -> doc.put("unreadableLinesFile", f.toString()));
    doc.put("notLearnedByReason", processorSkips());
    doc.put("inferredFlows", capture.inferredFlows());
    doc.put("inferredProposals", inferredProposals());
    doc.put("oldManifestsRemoved", manifestsRemoved);
    doc.put("proposalsWritten", proposals.size());
    doc.put("converged", convergedCount());
    doc.put("convergence", convergence());
    doc.put("tooLargeToStore", tooLarge());
    List<Map<String, Object>> written = new ArrayList<>();
    for (int i = 0; i < proposals.size(); i++) {
      ProposalSnapshot p = proposals.get(i);
      Map<String, Object> f = new LinkedHashMap<>();
      f.put("file", files.get(i).toString());
      f.put("namespace", p.namespace());
      f.put("name", p.name());
      f.put("direction", String.valueOf(p.spec().getDirection()));
      f.put("rules", ProposalRules.describe(p).size());
      f.put("converged", p.convergence() != null && p.convergence().converged());
      written.add(f);
    }
    doc.put("proposals", written);
    report.ifPresent(r -> doc.put("report", r.toString()));
    return doc;
  }

  private long lostEvents() {
    return Math.max(capture.lostEvents(), CaptureLoss.lostEvents(registry));
  }

  private long convergedCount() {
    return proposals.stream()
        .filter(p -> p.convergence() != null && p.convergence().converged())
        .count();
  }

  private long inferredProposals() {
    return proposals.stream().filter(p -> !p.inferredWorkloads().isEmpty()).count();
  }

  private List<String> tooLarge() {
    return proposals.stream()
        .filter(ProposalManifests::tooLargeToStore)
        .map(p -> p.namespace() + "/" + p.name())
        .toList();
  }

  String convergence() {
    return convergence(proposals, learning.quietPeriod(), "capture");
  }

  /**
   * How many proposals converged, and whether the flows could show it at all: flows that span less
   * than the quiet period cannot prove that traffic of a longer cycle (a daily job) is covered.
   * {@code learn} says it of its capture, {@code replay} of its window.
   *
   * @param what what the flows came from, for the message ("capture", "window")
   */
  public static String convergence(
      List<ProposalSnapshot> proposals, Duration quietPeriod, String what) {
    long converged =
        proposals.stream()
            .filter(p -> p.convergence() != null && p.convergence().converged())
            .count();
    Instant first = null;
    Instant last = null;
    for (ProposalSnapshot p : proposals) {
      for (var rule : p.evidence()) {
        if (rule.getFirstSeen() != null) {
          Instant f = Instant.parse(rule.getFirstSeen());
          first = first == null || f.isBefore(first) ? f : first;
        }
        if (rule.getLastSeen() != null) {
          Instant l = Instant.parse(rule.getLastSeen());
          last = last == null || l.isAfter(last) ? l : last;
        }
      }
    }
    String text = converged + " of " + proposals.size();
    if (first == null) {
      return text;
    }
    Duration span = Duration.between(first, last);
    text +=
        " (the "
            + what
            + " spans "
            + span.toString().substring(2).toLowerCase(Locale.ROOT)
            + ", quiet period "
            + quietPeriod.toString().substring(2).toLowerCase(Locale.ROOT)
            + ")";
    if (span.compareTo(quietPeriod) < 0) {
      text +=
          "; a "
              + what
              + " shorter than the quiet period cannot show that traffic of a longer cycle (a daily or "
              + "weekly job) is covered";
    }
    return text;
  }

  /** The reason to give when no proposal came out. */
  String whyNothingLearned() {
    if (capture.published() == 0) {
      Map<String, Long> drops = dropReasons();
      String hint =
          drops.containsKey(DropReason.UNKNOWN_POD.tag())
                  || drops.containsKey(DropReason.UNKNOWN_WORKLOAD.tag())
              ? (clusterStateGiven
                  ? "; the cluster-state file lacks the pods or workloads the flows name (export it "
                      + "while the capture's pods run)"
                  : "; pass --cluster-state FILE")
              : "";
      return "no flow of "
          + input
          + " could be used ("
          + capture.lines()
          + " records, "
          + capture.droppedTotal()
          + " dropped"
          + reasons(drops)
          + ", "
          + capture.badLines()
          + " unreadable)"
          + hint;
    }
    return "the "
        + capture.published()
        + " flows of "
        + input
        + " produced no proposal"
        + reasons(processorSkips());
  }

  Map<String, Long> dropReasons() {
    Map<String, Long> out = new TreeMap<>();
    capture.dropped().forEach((reason, n) -> out.put(reason.tag(), n));
    return out;
  }

  Map<String, Long> processorSkips() {
    return new ProcessorMetrics(registry).notLearnedByReason();
  }

  private static String reasons(Map<String, Long> byReason) {
    if (byReason.isEmpty()) {
      return "";
    }
    return byReason.entrySet().stream()
        .map(e -> e.getKey() + " " + e.getValue())
        .collect(Collectors.joining(", ", " (", ")"));
  }
}
