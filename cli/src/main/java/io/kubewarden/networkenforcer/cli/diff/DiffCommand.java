package io.kubewarden.networkenforcer.cli.diff;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kubewarden.networkenforcer.cli.VersionProvider;
import io.kubewarden.networkenforcer.cli.config.ConfigFileOption;
import io.kubewarden.networkenforcer.cli.config.ReportOptions;
import io.kubewarden.networkenforcer.cli.history.PolicyDocuments;
import io.kubewarden.networkenforcer.common.config.ConfigException;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicy;
import io.kubewarden.networkenforcer.common.json.Json;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
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
@Command(name = "diff", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
    sortOptions = false,
    description = {
        "Compares proposals with the policies of the same targets (namespace, targetRef and direction) by what "
            + "they let through: the peers and ports a proposal adds to its policy and those it removes, not a "
            + "YAML diff.",
        "",
        "Proposals come from --proposal (learn or replay output, or kubectl get wnpp -o yaml). Policies come "
            + "from --policy, or without it from the cluster (--kubeconfig, KUBECONFIG, ~/.kube/config or "
            + "in-cluster)."},
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {"0:no difference", "1:runtime failure (API server unreachable, ...)",
        "2:bad options or a file that is not a proposal/policy", "3:differences found (see the report)"})
public final class DiffCommand implements Callable<Integer> {
  public static final int EXIT_DIFFERENT = 3;
  private static final Set<String> PROPOSAL_KINDS = Set.of("WorkloadNetworkPolicyProposal");
  private static final Set<String> POLICY_KINDS = Set.of("WorkloadNetworkPolicy", "WorkloadNetworkPolicyProposal");

  @Spec
  CommandSpec spec;

  @Option(names = {"-f", "--proposal"}, paramLabel = "FILE|DIR|-",
      description = "The proposals (required): a file of one or several documents, a directory (read recursively, "
          + "as learn writes it) or - for standard input.")
  Path proposal;

  @Option(names = "--policy", paramLabel = "FILE|DIR|-",
      description = "The policies to compare with (a file, a directory or -); without it they are read from the "
          + "cluster.")
  Path policy;

  @Option(names = "--kubeconfig", paramLabel = "FILE",
      description = "kubeconfig for reading policies from the cluster; default KUBECONFIG, ~/.kube/config or in-cluster.")
  Path kubeconfig;

  @Mixin
  ReportOptions report;

  @Mixin
  ConfigFileOption configFile;

  @Override
  public Integer call() {
    boolean json = report.start();
    if (proposal == null) {
      throw new ConfigException("--proposal FILE is required: the proposals to compare");
    }
    if (policy != null && kubeconfig != null) {
      throw new ConfigException("--policy and --kubeconfig exclude each other: compare with a file or with the cluster");
    }
    if (policy != null && PolicyDocuments.STDIN.equals(proposal.toString())
        && PolicyDocuments.STDIN.equals(policy.toString())) {
      throw new ConfigException("--proposal - and --policy - both name standard input; give one of them as a file "
          + "or a directory");
    }
    List<WorkloadPolicies.Named> proposals = WorkloadPolicies.read(proposal, "--proposal", PROPOSAL_KINDS);
    Map<String, WorkloadPolicies.Named> policies = new HashMap<>();
    String policySource;
    if (policy != null) {
      WorkloadPolicies.read(policy, "--policy", POLICY_KINDS).forEach(p -> policies.put(p.targetKey(), p));
      policySource = policy.toString();
    } else {
      policySource = readCluster(proposals, policies);
    }
    List<ConnectivityDiff> diffs = new ArrayList<>();
    List<String> withoutPolicy = new ArrayList<>();
    for (WorkloadPolicies.Named p : proposals) {
      Optional.ofNullable(policies.get(p.targetKey())).ifPresentOrElse(q -> diffs.add(ConnectivityDiff.of(p, q)),
          () -> withoutPolicy.add(p.label() + " (" + p.target().key() + " " + p.direction() + ")"));
    }
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      json(out, policySource, diffs, withoutPolicy);
    } else {
      text(out, policySource, diffs, withoutPolicy);
    }
    out.flush();
    return diffs.stream().anyMatch(ConnectivityDiff::changed) ? EXIT_DIFFERENT : 0;
  }

  /** The WorkloadNetworkPolicies of the proposals' namespaces, keyed by target. */
  private String readCluster(List<WorkloadPolicies.Named> proposals, Map<String, WorkloadPolicies.Named> out) {
    try (KubernetesClient client = client()) {
      String url = String.valueOf(client.getConfiguration().getMasterUrl());
      for (String ns : proposals.stream().map(p -> p.target().namespace()).distinct().toList()) {
        for (WorkloadNetworkPolicy wnp : client.resources(WorkloadNetworkPolicy.class).inNamespace(ns).list()
            .getItems()) {
          String label = "WorkloadNetworkPolicy " + ns + "/" + wnp.getMetadata().getName();
          WorkloadPolicies.Named named = WorkloadPolicies.named(label, ns, wnp.getSpec(), "the cluster's");
          out.put(named.targetKey(), named);
        }
      }
      return "the cluster at " + url;
    } catch (KubernetesClientException e) {
      throw new IllegalStateException("cannot read WorkloadNetworkPolicies from the API server: " + e.getMessage()
          + "; set --kubeconfig or KUBECONFIG, or compare with a file (--policy)", e);
    }
  }

  private KubernetesClient client() {
    if (kubeconfig == null) {
      return new KubernetesClientBuilder().build();
    }
    try {
      return new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(Files.readString(kubeconfig))).build();
    } catch (IOException e) {
      throw new ConfigException("cannot read kubeconfig " + kubeconfig + ": " + e.getMessage() + "; fix --kubeconfig");
    }
  }

  private static void text(PrintWriter out, String source, List<ConnectivityDiff> diffs, List<String> withoutPolicy) {
    out.println("Compared " + diffs.size() + " " + (diffs.size() == 1 ? "proposal" : "proposals")
        + " with their policies from " + source + ".");
    for (ConnectivityDiff d : diffs) {
      out.println();
      out.println(d.target() + " " + d.direction() + ": " + d.proposal() + " against " + d.policy()
          + (d.changed() ? "" : ": same connectivity") + " (" + d.unchanged() + " unchanged)");
      if (d.pods() != null) {
        out.println("  ~ applies to other pods: " + d.pods());
      }
      d.added().forEach(pp -> out.println("  + " + pp.peer() + ": " + String.join(", ", pp.ports())));
      d.removed().forEach(pp -> out.println("  - " + pp.peer() + ": " + String.join(", ", pp.ports())));
    }
    if (!withoutPolicy.isEmpty()) {
      out.println();
      out.println("No policy for the target of:");
      withoutPolicy.forEach(w -> out.println("  " + w));
    }
  }

  private static void json(PrintWriter out, String source, List<ConnectivityDiff> diffs, List<String> withoutPolicy) {
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("policies", source);
    doc.put("different", diffs.stream().anyMatch(ConnectivityDiff::changed));
    doc.put("targets", diffs);
    doc.put("withoutPolicy", withoutPolicy);
    try {
      out.println(Json.mapper().writer().with(SerializationFeature.INDENT_OUTPUT).writeValueAsString(doc));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write the report: " + e.getMessage(), e);
    }
  }
}
