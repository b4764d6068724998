package io.kubewarden.networkenforcer.common.evaluation;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The in-place principal match agrees with Istio's rules applied to FlowEndpoint.principal(). */
class IstioPrincipalMatcherTest {

  static Stream<Arguments> cases() {
    String sa = "spiffe://cluster.local/ns/prod/sa/web";
    return Stream.of(
        Arguments.of("exact", "cluster.local/ns/prod/sa/web", sa, true),
        Arguments.of("exact, one character short", "cluster.local/ns/prod/sa/we", sa, false),
        Arguments.of(
            "exact never includes the scheme", "spiffe://cluster.local/ns/prod/sa/web", sa, false),
        Arguments.of("presence", "*", sa, true),
        Arguments.of("presence, unauthenticated", "*", null, false),
        Arguments.of("presence, empty identity", "*", "", false),
        Arguments.of("prefix", "cluster.local/*", sa, true),
        Arguments.of("prefix does not look into the scheme", "spiffe://*", sa, false),
        Arguments.of("prefix, other trust domain", "example.org/*", sa, false),
        Arguments.of("suffix", "*/sa/web", sa, true),
        Arguments.of("suffix, other account", "*/sa/api", sa, false),
        Arguments.of(
            "suffix longer than the principal", "*xcluster.local/ns/prod/sa/web", sa, false),
        Arguments.of("suffix checked before prefix, as Istio does", "*/sa/web*", sa, false),
        Arguments.of(
            "identity without scheme",
            "cluster.local/ns/prod/sa/web",
            "cluster.local/ns/prod/sa/web",
            true),
        Arguments.of("empty pattern", "", sa, false));
  }

  @ParameterizedTest(name = "{0}: {1} vs {2} = {3}")
  @MethodSource("cases")
  void matches(String name, String pattern, String identity, boolean expected) {
    int start = IstioPrincipalMatcher.principalStart(identity);
    assertThat(IstioPrincipalMatcher.matches(pattern, identity, start)).isEqualTo(expected);
    String principal = FlowEndpoint.builder().identity(identity).build().principal().orElse(null);
    assertThat(start < 0 ? null : identity.substring(start))
        .as("same principal as FlowEndpoint.principal()")
        .isEqualTo(principal);
  }
}
