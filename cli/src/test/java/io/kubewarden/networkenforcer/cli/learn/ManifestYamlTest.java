package io.kubewarden.networkenforcer.cli.learn;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/**
 * The manifest YAML reads back as exactly what was written, by fabric8 and by a plain YAML 1.2
 * parser, with the strings that trip YAML readers: number- and boolean-like words (a YAML 1.1
 * reader such as kubectl's takes {@code yes} for true), empty, multi-line, quotes, controls, C1,
 * the Unicode line separator, long messages, and keys that cannot be plain.
 */
class ManifestYamlTest {
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  private static final String TRICKY =
      """
      {"apiVersion": "networkenforcer.kubewarden.io/v1alpha1", "kind": "WorkloadNetworkPolicyProposal",
       "metadata": {"name": "deployment-web-ingress", "namespace": "shop",
         "annotations": {"yes": "no", "8080": "on", "a b": "x: y", "networkenforcer.kubewarden.io/replay-window": "2026-12-01T00:00:00Z/2026-12-02T00:00:00Z",
           "empty": "", "lines": "one\\ntwo\\r\\nthree\\ttab", "quotes": "say \\"hi\\" \\\\ 'there'",
           "controls": "\\u0001\\u007f\\u0085\\u2028\\ufeff end", "unicode": "ünïcødé ✓ 𝄞",
           "long": "%s", "null": "null", "tilde": "~", "float": "1e3", "octal": "0o17", "hex": "0x1F",
           "colon": "a:b", "hash": "# not a comment", "dash": "- item", "star": "*alias", "amp": "&anchor"}},
       "spec": {"backend": "istio", "targetRef": {"kind": "Deployment", "name": "web"}, "direction": "Ingress",
         "istio": {"selector": {"matchLabels": {"app": "web", "true": "false"}},
           "rules": [{"from": [{"source": {"principals": ["cluster.local/ns/shop/sa/client"]}}],
                      "to": [{"operation": {"ports": ["18080", "9090"]}}]}, {}]}},
       "status": {"evidence": []}}
      """
          .formatted(
              "x".repeat(150)
                  + " and a long message after it, longer than any line width a YAML writer folds at");

  @Test
  void whatIsWrittenReadsBackTheSameWithFabric8AndWithAYaml12Parser() {
    WorkloadNetworkPolicyProposal proposal =
        SERIALIZATION.unmarshal(TRICKY, WorkloadNetworkPolicyProposal.class);
    @SuppressWarnings("unchecked")
    Map<String, Object> tree = SERIALIZATION.convertValue(proposal, Map.class);

    String yaml = ManifestYaml.of(tree);

    assertThat(SERIALIZATION.unmarshal(yaml, WorkloadNetworkPolicyProposal.class))
        .isEqualTo(proposal)
        .isEqualTo(
            SERIALIZATION.unmarshal(
                SERIALIZATION.asYaml(proposal), WorkloadNetworkPolicyProposal.class));
    assertThat(new Load(LoadSettings.builder().build()).loadFromString(yaml)).isEqualTo(tree);
    // Strings stay strings for a YAML 1.1 reader too: values always quoted, reserved words as keys
    // too.
    assertThat(yaml)
        .contains("\"yes\": \"no\"", "\"8080\": \"on\"", "- \"18080\"", "\"true\": \"false\"")
        .contains("\\u0085", "\\u2028", "\\ufeff")
        .doesNotContain("\u0085", "\u2028");
  }

  @Test
  void layoutIsFabric8sBlockStyle() {
    Map<String, Object> tree = new LinkedHashMap<>();
    tree.put("kind", "K");
    tree.put(
        "spec",
        Map.of(
            "ports",
            List.of(Map.of("port", 53), 7),
            "none",
            List.of(),
            "nested",
            List.of(List.of("a"))));

    String yaml = ManifestYaml.of(tree);

    assertThat(yaml)
        .startsWith("kind: \"K\"\nspec:\n  ")
        .contains("  ports:\n  - port: 53\n  - 7\n")
        .contains("  none: []\n")
        .contains("  nested:\n  -\n    - \"a\"\n");
    assertThat(new Load(LoadSettings.builder().build()).loadFromString(yaml)).isEqualTo(tree);
  }
}
