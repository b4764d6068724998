package io.kubewarden.networkenforcer.cli.learn;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Reads the manifests {@code learn} wrote back with the CRD classes and describes them compactly.
 */
final class LearnedProposals {
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  private LearnedProposals() {}

  /** "namespace/name" -> proposal, for every YAML file under dir. */
  static Map<String, WorkloadNetworkPolicyProposal> read(Path dir) {
    Map<String, WorkloadNetworkPolicyProposal> out = new TreeMap<>();
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".yaml")).toList()) {
        WorkloadNetworkPolicyProposal p =
            SERIALIZATION.unmarshal(Files.readString(f), WorkloadNetworkPolicyProposal.class);
        assertThat(p.getApiVersion()).isEqualTo("networkenforcer.kubewarden.io/v1alpha1");
        assertThat(p.getKind()).isEqualTo("WorkloadNetworkPolicyProposal");
        // The file sits where the contract says: <dir>/<namespace>/<name>.yaml.
        assertThat(dir.relativize(f).toString())
            .isEqualTo(p.getMetadata().getNamespace() + "/" + p.getMetadata().getName() + ".yaml");
        out.put(p.getMetadata().getNamespace() + "/" + p.getMetadata().getName(), p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  /** A Kubernetes rule as "peer-namespace peer-selector -> [PROTO/port, ...]". */
  static Set<String> kubernetesRules(WorkloadNetworkPolicyProposal p) {
    var k = p.getSpec().getKubernetes();
    Set<String> rules = new TreeSet<>();
    if (k.getIngress() != null) {
      k.getIngress().forEach(r -> rules.add(rule(r.getFrom(), r.getPorts())));
    }
    if (k.getEgress() != null) {
      k.getEgress().forEach(r -> rules.add(rule(r.getTo(), r.getPorts())));
    }
    return rules;
  }

  private static String rule(List<NetworkPolicyPeer> peers, List<NetworkPolicyPort> ports) {
    String peer =
        peers.stream()
            .map(
                pe -> {
                  if (pe.getIpBlock() != null) {
                    // A peer outside the cluster: nothing else may be set beside the block.
                    assertThat(pe.getNamespaceSelector()).isNull();
                    assertThat(pe.getPodSelector()).isNull();
                    return pe.getIpBlock().getCidr();
                  }
                  return pe.getNamespaceSelector()
                          .getMatchLabels()
                          .get("kubernetes.io/metadata.name")
                      + " "
                      + selector(pe.getPodSelector());
                })
            .collect(Collectors.joining(" | "));
    String portList =
        ports.stream()
            .map(po -> po.getProtocol() + "/" + po.getPort().getIntVal())
            .sorted()
            .collect(Collectors.joining(","));
    return peer + " -> " + portList;
  }

  static String selector(LabelSelector s) {
    assertThat(s.getMatchExpressions() == null || s.getMatchExpressions().isEmpty()).isTrue();
    return new TreeMap<>(s.getMatchLabels()).toString();
  }
}
