package io.kubewarden.networkenforcer.testing;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The rules that jump to a cluster's chains are deleted word for word as {@code iptables -S} prints
 * them.
 */
class HostStateWordsTest {

  @Test
  void aQuotedCommentStaysOneWord() {
    assertThat(
            HostState.words(
                "-A OUTPUT -m comment --comment \"kubernetes service portals\" -j KUBE-SERVICES"))
        .containsExactly(
            "-A",
            "OUTPUT",
            "-m",
            "comment",
            "--comment",
            "kubernetes service portals",
            "-j",
            "KUBE-SERVICES");
  }

  @Test
  void escapedQuotesAndEmptyCommentsSurvive() {
    assertThat(HostState.words("-A CNI-X -m comment --comment \"name: \\\"ne-test\\\"\" -j ACCEPT"))
        .containsExactly(
            "-A", "CNI-X", "-m", "comment", "--comment", "name: \"ne-test\"", "-j", "ACCEPT");
    assertThat(HostState.words("-A X --comment \"\" -j Y"))
        .containsExactly("-A", "X", "--comment", "", "-j", "Y");
  }
}
