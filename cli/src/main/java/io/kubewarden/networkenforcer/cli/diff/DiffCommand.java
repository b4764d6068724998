package io.kubewarden.networkenforcer.cli.diff;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kubewarden.networkenforcer.cli.config.ClusterOptions;
import io.kubewarden.networkenforcer.cli.config.ConfigFileOption;
import io.kubewarden.networkenforcer.cli.config.OutputFormat;
import io.kubewarden.networkenforcer.cli.config.ReportOptions;
import io.kubewarden.networkenforcer.cli.history.PolicyDocuments;
import io.kubewarden.networkenforcer.cli.version.VersionProvider;
import io.kubewarden.networkenforcer.common.config.ConfigException;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicy;
import java.io.PrintWriter;
import java.net.ConnectException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code network-enforcer diff}: proposals against the policies of the same targets, in
 * connectivity terms (peers and ports added and removed), offline from two files or against the
 * WorkloadNetworkPolicies in the cluster.
 */
@Command(
    name = "diff",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    sortOptions = false,
    description = {
      "Compares proposals with the policies of the same targets (namespace, targetRef and direction) by what "
          + "they let through: the peers and ports a proposal adds to its policy and those it removes, not a "
          + "YAML diff. The report covers every target: in both (with +/- peers and ports), only in the "
          + "proposals (everything added) and only in the policies (everything removed).",
      "",
      "Proposals come from --proposal (learn or replay output, or kubectl get wnpp -o yaml). Policies come "
          + "from --policy, or without it from the cluster's WorkloadNetworkPolicies in the proposals' "
          + "namespaces (--kubeconfig, KUBECONFIG, ~/.kube/config or in-cluster)."
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:no difference: every target has a proposal and a policy that allow the same",
      "1:runtime failure (API server unreachable, ...)",
      "2:bad options or a file that is not a proposal/policy",
      "3:differences: a target whose proposal and policy differ, or that has only one of them"
    })
public final class DiffCommand implements Callable<Integer> {
  public static final int EXIT_DIFFERENT = 3;
  private static final Set<String> PROPOSAL_KINDS = Set.of("WorkloadNetworkPolicyProposal");
  private static final Set<String> POLICY_KINDS =
      Set.of("WorkloadNetworkPolicy", "WorkloadNetworkPolicyProposal");

  @Spec CommandSpec spec;

  @Option(
      names = {"-f", "--proposal"},
      paramLabel = "FILE|DIR|-",
      required = true,
      description =
          "The proposals: a file of one or several documents, a directory (read recursively, "
              + "as learn writes it) or - for standard input.")
  Path proposal;

  @Option(
      names = "--policy",
      paramLabel = "FILE|DIR|-",
      description =
          "The policies to compare with (a file, a directory or -); without it they are read from the "
              + "cluster.")
  Path policy;

  @Mixin ClusterOptions cluster;

  @Option(
      names = {"-n", "--namespace"},
      paramLabel = "NS",
      description =
          "Compare only the targets of this namespace, repeatable (default: every namespace of the "
              + "proposals; the cluster is read in those namespaces).")
  List<String> namespaces = new ArrayList<>();

  @Mixin ReportOptions report;

  @Mixin ConfigFileOption configFile;

  @Override
  public Integer call() {
    OutputFormat format = report.start();
    if (policy != null && cluster.given()) {
      throw new ConfigException(
          "--policy and --kubeconfig/--context exclude each other: compare with a file or "
              + "with the cluster");
    }
    if (policy != null
        && PolicyDocuments.STDIN.equals(proposal.toString())
        && PolicyDocuments.STDIN.equals(policy.toString())) {
      throw new ConfigException(
          "--proposal - and --policy - both name standard input; give one of them as a file "
              + "or a directory");
    }
    List<WorkloadPolicies.Named> proposals =
        WorkloadPolicies.read(proposal, "--proposal", PROPOSAL_KINDS).stream()
            .filter(this::selected)
            .toList();
    Map<String, WorkloadPolicies.Named> policies = new TreeMap<>();
    String policySource;
    if (policy != null) {
      WorkloadPolicies.read(policy, "--policy", POLICY_KINDS).stream()
          .filter(this::selected)
          .forEach(p -> policies.put(p.targetKey(), p));
      policySource =
          PolicyDocuments.STDIN.equals(policy.toString()) ? "standard input" : policy.toString();
    } else {
      policySource = readCluster(proposals, policies);
    }
    Report r = compare(policySource, proposals, policies);
    PrintWriter out = spec.commandLine().getOut();
    if (format == OutputFormat.TEXT) {
      text(out, r);
    } else {
      document(out, format, r);
    }
    out.flush();
    return r.different() ? EXIT_DIFFERENT : 0;
  }

  /**
   * The whole comparison.
   *
   * @param targets targets with a proposal and a policy
   * @param onlyInProposals targets with a proposal and no policy: everything is added
   * @param onlyInPolicies targets with a policy and no proposal: everything is removed
   */
  record Report(
      String policies,
      boolean different,
      int proposalCount,
      int policyCount,
      List<ConnectivityDiff> targets,
      List<ConnectivityDiff> onlyInProposals,
      List<ConnectivityDiff> onlyInPolicies) {}

  static Report compare(
      String source,
      List<WorkloadPolicies.Named> proposals,
      Map<String, WorkloadPolicies.Named> policies) {
    List<ConnectivityDiff> both = new ArrayList<>();
    List<ConnectivityDiff> onlyProposals = new ArrayList<>();
    Set<String> proposed = new HashSet<>();
    for (WorkloadPolicies.Named p : proposals) {
      proposed.add(p.targetKey());
      WorkloadPolicies.Named q = policies.get(p.targetKey());
      if (q == null) {
        onlyProposals.add(ConnectivityDiff.onlyProposal(p));
      } else {
        both.add(ConnectivityDiff.of(p, q));
      }
    }
    List<ConnectivityDiff> onlyPolicies =
        policies.values().stream()
            .filter(q -> !proposed.contains(q.targetKey()))
            .map(ConnectivityDiff::onlyPolicy)
            .toList();
    boolean different =
        !onlyProposals.isEmpty()
            || !onlyPolicies.isEmpty()
            || both.stream().anyMatch(ConnectivityDiff::changed);
    return new Report(
        source, different, proposals.size(), policies.size(), both, onlyProposals, onlyPolicies);
  }

  private boolean selected(WorkloadPolicies.Named n) {
    return namespaces.isEmpty() || namespaces.contains(n.target().namespace());
  }

  /** The WorkloadNetworkPolicies of the proposals' namespaces, keyed by target. */
  private String readCluster(
      List<WorkloadPolicies.Named> proposals, Map<String, WorkloadPolicies.Named> out) {
    String url = "?";
    cluster.validate();
    try (KubernetesClient client = cluster.commandLineClient()) {
      url = String.valueOf(client.getConfiguration().getMasterUrl());
      List<String> read =
          namespaces.isEmpty()
              ? proposals.stream().map(p -> p.target().namespace()).distinct().toList()
              : namespaces;
      for (String ns : read) {
        for (WorkloadNetworkPolicy wnp :
            client.resources(WorkloadNetworkPolicy.class).inNamespace(ns).list().getItems()) {
          String label = "WorkloadNetworkPolicy " + ns + "/" + wnp.getMetadata().getName();
          WorkloadPolicies.Named named =
              WorkloadPolicies.named(label, ns, wnp.getSpec(), "the cluster's");
          out.put(named.targetKey(), named);
        }
      }
      return "the cluster at " + url;
    } catch (KubernetesClientException e) {
      throw new IllegalStateException(
          "cannot read WorkloadNetworkPolicies from the API server at "
              + url
              + ": "
              + e.getMessage()
              + causeOf(e)
              + " ("
              + ClusterOptions.commandLineBound()
              + ", from "
              + cluster.source()
              + "); set --kubeconfig or KUBECONFIG and --context, or compare with a file (--policy)",
          e);
    }
  }

  /** fabric8 often says only "An error has occurred."; the innermost cause says what. */
  private static String causeOf(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
      if (root instanceof ConnectException) {
        // The JDK client's refused connection carries no message, only a closed channel under it.
        return " (ConnectException: Connection refused)";
      }
    }
    return root == e
        ? ""
        : " ("
            + root.getClass().getSimpleName()
            + (root.getMessage() == null ? "" : ": " + root.getMessage())
            + ")";
  }

  private static void text(PrintWriter out, Report r) {
    long changed = r.targets().stream().filter(ConnectivityDiff::changed).count();
    out.println(
        "Compared "
            + plural(r.proposalCount(), "proposal")
            + " with "
            + plural(r.policyCount(), "policy")
            + " from "
            + r.policies()
            + ": "
            + plural(r.targets().size(), "target")
            + " in both ("
            + changed
            + " different), "
            + r.onlyInProposals().size()
            + " only in the proposals, "
            + r.onlyInPolicies().size()
            + " only in the policies.");
    for (ConnectivityDiff d : r.targets()) {
      out.println();
      out.println(
          d.target()
              + " "
              + d.direction()
              + ": "
              + d.proposal()
              + " against "
              + d.policy()
              + (d.changed() ? "" : ": same connectivity")
              + " ("
              + d.unchanged()
              + " unchanged)");
      peers(out, d);
    }
    if (!r.onlyInProposals().isEmpty()) {
      out.println();
      out.println("Only in the proposals (no policy for the target yet; everything is added):");
      for (ConnectivityDiff d : r.onlyInProposals()) {
        out.println(d.target() + " " + d.direction() + ": " + d.proposal());
        peers(out, d);
      }
    }
    if (!r.onlyInPolicies().isEmpty()) {
      out.println();
      out.println("Only in the policies (no proposal for the target; everything is removed):");
      for (ConnectivityDiff d : r.onlyInPolicies()) {
        out.println(d.target() + " " + d.direction() + ": " + d.policy());
        peers(out, d);
      }
    }
  }

  private static void peers(PrintWriter out, ConnectivityDiff d) {
    if (d.pods() != null) {
      out.println("  ~ applies to other pods: " + d.pods());
    }
    d.added().forEach(pp -> out.println("  + " + pp.peer() + ": " + String.join(", ", pp.ports())));
    d.removed()
        .forEach(pp -> out.println("  - " + pp.peer() + ": " + String.join(", ", pp.ports())));
  }

  private static String plural(int n, String noun) {
    if (n == 1) {
      return "1 " + noun;
    }
    return n
        + " "
        + (noun.endsWith("y") ? noun.substring(0, noun.length() - 1) + "ies" : noun + "s");
  }

  private static void document(PrintWriter out, OutputFormat format, Report r) {
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("policies", r.policies());
    doc.put("different", r.different());
    doc.put("targets", r.targets());
    doc.put("onlyInProposals", r.onlyInProposals());
    doc.put("onlyInPolicies", r.onlyInPolicies());
    ReportOptions.write(out, format, doc);
  }
}
