package io.kubewarden.networkenforcer.cli.learn;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposalStatus;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Writes proposals as Kubernetes manifests, one file per target at {@code
 * <dir>/<namespace>/<name>.yaml}, ready for review and {@code kubectl apply --server-side -f}.
 */
public final class ProposalManifests {
  /**
   * fabric8's mapping of the resource to maps and lists (its field order and inclusion); one per
   * thread.
   */
  private static final ThreadLocal<KubernetesSerialization> SERIALIZATION =
      ThreadLocal.withInitial(KubernetesSerialization::new);

  /** Below this many proposals, a second thread costs more than it saves. */
  private static final int PARALLEL_FROM = 64;

  /** etcd's default limit on one object: a created proposal is stored as its spec and metadata. */
  static final int STORE_MAX_BYTES = 1536 * 1024;

  /** Fewer rules cannot come near the limit, so their spec is not serialized again to find out. */
  private static final int RULES_WORTH_MEASURING = 1_000;

  private ProposalManifests() {}

  /**
   * Whether the API server cannot store the proposal: its spec alone, a rule per peer, is over the
   * 1.5 MiB etcd keeps per object (a target with thousands of peers, such as the cluster DNS).
   */
  public static boolean tooLargeToStore(ProposalSnapshot snapshot) {
    return specBytes(snapshot) > STORE_MAX_BYTES;
  }

  private static long specBytes(ProposalSnapshot snapshot) {
    if (snapshot.evidence().size() < RULES_WORTH_MEASURING) {
      return 0;
    }
    try {
      return Json.mapper().writeValueAsBytes(snapshot.spec()).length;
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  static WorkloadNetworkPolicyProposal toResource(ProposalSnapshot snapshot) {
    WorkloadNetworkPolicyProposal proposal = new WorkloadNetworkPolicyProposal();
    proposal.setMetadata(
        new ObjectMetaBuilder()
            .withName(snapshot.name())
            .withNamespace(snapshot.namespace())
            .withAnnotations(
                snapshot.metadataAnnotations().isEmpty() ? null : snapshot.metadataAnnotations())
            .build());
    proposal.setSpec(snapshot.spec());
    if (!snapshot.evidence().isEmpty() || snapshot.convergence() != null) {
      WorkloadNetworkPolicyProposalStatus status =
          new WorkloadNetworkPolicyProposalStatus(new ArrayList<>(snapshot.evidence()));
      if (snapshot.convergence() != null) {
        status.setConditions(List.of(snapshot.convergence().toCondition()));
      }
      proposal.setStatus(status);
    }
    return proposal;
  }

  /** Writes every proposal and returns the files written, in the order given. */
  static List<Path> write(Path dir, Collection<ProposalSnapshot> proposals, String source) {
    return write(dir, proposals, "network-enforcer learn", source);
  }

  /**
   * As {@link #write(Path, Collection, String)}, naming the command that learned them in the
   * header.
   */
  public static List<Path> write(
      Path dir, Collection<ProposalSnapshot> proposals, String command, String source) {
    // Busy targets have thousands of lines of YAML; files are independent.
    Stream<ProposalSnapshot> each =
        proposals.size() >= PARALLEL_FROM ? proposals.parallelStream() : proposals.stream();
    return each.map(snapshot -> write(dir, snapshot, command, source)).toList();
  }

  private static String tooLargeWarning(ProposalSnapshot snapshot) {
    long bytes = specBytes(snapshot);
    if (bytes <= STORE_MAX_BYTES) {
      return "";
    }
    return String.format(
        Locale.ROOT,
        "# TOO LARGE for the API server to store: the spec of %d rules is %.1f MiB, over "
            + "the 1.5 MiB etcd keeps per object.%n# Write a WorkloadNetworkPolicy for this workload by hand instead "
            + "(for example one rule for all namespaces).%n",
        snapshot.evidence().size(),
        bytes / 1048576.0);
  }

  private static Path write(Path dir, ProposalSnapshot snapshot, String command, String source) {
    Path file = dir.resolve(snapshot.namespace()).resolve(snapshot.name() + ".yaml");
    String yaml =
        "# Learned by '"
            + command
            + "' from "
            + source
            + ".\n"
            + "# Review, then: kubectl apply --server-side -f "
            + file.getFileName()
            + " (status.evidence is informational; the API server keeps only spec on create).\n"
            + "# Server-side: a client-side apply copies the object into an annotation of at most 256 KiB, which a\n"
            + "# target with a thousand peers (the cluster DNS) outgrows.\n"
            + tooLargeWarning(snapshot)
            + ManifestYaml.of(SERIALIZATION.get().convertValue(toResource(snapshot), Map.class));
    try {
      Files.createDirectories(file.getParent());
      Files.writeString(file, yaml, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot write " + file + ": " + e.getMessage() + "; choose a writable --output-dir", e);
    }
    return file;
  }
}
