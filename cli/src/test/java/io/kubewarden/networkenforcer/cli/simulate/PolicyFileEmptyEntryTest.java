package io.kubewarden.networkenforcer.cli.simulate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubewarden.networkenforcer.common.config.ConfigException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A bare "-" in a policy's rule list, the two ways the fuzzer found it. */
class PolicyFileEmptyEntryTest {
  @TempDir Path dir;

  @Test
  void anEmptyAuthorizationPolicyRuleIsReadAsTheApiServerReadsIt() throws IOException {
    Path file =
        Files.writeString(
            dir.resolve("ap.yaml"),
            """
            apiVersion: security.istio.io/v1
            kind: AuthorizationPolicy
            metadata: {name: allow-client, namespace: demo}
            spec:
              action: ALLOW
              selector: {matchLabels: {app: http-server}}
              rules:
              -
            """);
    assertThat(PolicyFile.load(file))
        .singleElement()
        .satisfies(p -> assertThat(p.rules()).hasSize(1));
  }

  @Test
  void anEmptyCiliumRuleIsAnErrorThatNamesIt() throws IOException {
    Path file =
        Files.writeString(
            dir.resolve("cnp.yaml"),
            """
            apiVersion: networkenforcer.kubewarden.io/v1alpha1
            kind: WorkloadNetworkPolicyProposal
            metadata: {name: deployment-http-client-egress, namespace: demo}
            spec:
              backend: cilium
              targetRef: {kind: Deployment, name: http-client}
              direction: Egress
              cilium:
                endpointSelector: {matchLabels: {app: http-client}}
                egress:
                - toEntities: [world]
                -
            """);
    assertThatThrownBy(() -> PolicyFile.load(file))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("spec.cilium.egress[1] is empty");
  }
}
