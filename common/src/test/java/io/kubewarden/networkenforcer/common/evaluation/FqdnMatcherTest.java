package io.kubewarden.networkenforcer.common.evaluation;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.common.crd.CiliumPolicy.FqdnSelector;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Cilium's matchName / matchPattern, with the examples of its CRD's field documentation. */
class FqdnMatcherTest {

  @ParameterizedTest(name = "matchName {0} vs {1}: {2}")
  @CsvSource({
    "api.example.com, api.example.com, true",
    "api.example.com, API.Example.COM., true",
    "api.example.com., api.example.com, true",
    "api.example.com, example.com, false",
    "api.example.com, www.api.example.com, false",
    "api.example.com, api.example.co, false",
  })
  void matchName(String selector, String name, boolean expected) {
    assertThat(FqdnMatcher.matches(FqdnSelector.name(selector), name)).isEqualTo(expected);
  }

  @ParameterizedTest(name = "matchPattern {0} vs {1}: {2}")
  @CsvSource({
    "*, anything.at.all, true",
    "*, example.com, true",
    "*.cilium.io, www.cilium.io, true",
    "*.cilium.io, blog.cilium.io, true",
    "*.cilium.io, cilium.io, false",
    "*.cilium.io, a.b.cilium.io, false",
    "*.cilium.io, google.com, false",
    "*cilium.io, cilium.io, true",
    "*cilium.io, subcilium.io, true",
    "*cilium.io, sub-cilium.io, true",
    "*cilium.io, www.cilium.io, false",
    "sub*.cilium.io, sub.cilium.io, true",
    "sub*.cilium.io, subdomain.cilium.io, true",
    "sub*.cilium.io, www.cilium.io, false",
    "sub*.cilium.io, cilium.io, false",
    "**.cilium.io, app.cilium.io, true",
    "**.cilium.io, test.app.cilium.io, true",
    "**.cilium.io, cilium.io, false",
    "api.example.com, api.example.com, true",
    "api.example.com, apixexample.com, false",
    "*.EXAMPLE.com., Api.example.com, true",
  })
  void matchPattern(String selector, String name, boolean expected) {
    assertThat(FqdnMatcher.matches(FqdnSelector.pattern(selector), name)).isEqualTo(expected);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"empty selector", "empty name"})
  void emptySelectsNothing(String which) {
    FqdnSelector selector =
        which.equals("empty selector") ? new FqdnSelector() : FqdnSelector.pattern("*");
    String name = which.equals("empty name") ? "" : "api.example.com";
    assertThat(FqdnMatcher.matches(selector, name)).isFalse();
  }

  @Test
  void anyNameOfTheFlowMatchingAnySelectorIsEnough() {
    List<FqdnSelector> selectors =
        List.of(FqdnSelector.name("db.example.net"), FqdnSelector.name("api.example.com"));
    assertThat(FqdnMatcher.anyMatches(selectors, List.of("cdn.example.org", "api.example.com")))
        .isTrue();
    assertThat(FqdnMatcher.anyMatches(selectors, List.of("cdn.example.org"))).isFalse();
    assertThat(FqdnMatcher.anyMatches(selectors, List.of())).isFalse();
  }
}
