package io.kubewarden.networkenforcer.common.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

class DurationsTest {

  @ParameterizedTest
  @CsvSource({
    "30s, PT30S",
    "5m, PT5M",
    "1h, PT1H",
    "2d, PT48H",
    "250ms, PT0.25S",
    "1h30m, PT1H30M",
    "1m30s500ms, PT1M30.5S",
    "' 45s ', PT45S",
    "PT10S, PT10S",
    "0s, PT0S",
    "0, PT0S",
    // Go's time.ParseDuration forms (Helm values are Go durations).
    "1m30s, PT1M30S",
    "1.5h, PT1H30M",
    "0.5s, PT0.5S",
    "300us, PT0.0003S",
    "10ns, PT0.00000001S",
    "2h45m0.5s, PT2H45M0.5S"
  })
  void parsesWhatUsersWrite(String text, String expected) {
    assertThat(Durations.parse("controller.wnpStatusUpdateInterval", text))
        .isEqualTo(Duration.parse(expected));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "30",
        "s",
        "-5s",
        "5 m",
        "1.h",
        ".5h",
        "5M",
        "30sec",
        "1h 30m",
        "P",
        "PTxS",
        "99999999999999999999s",
        "9999999999999999d"
      })
  void rejectsEverythingElseNamingTheSetting(String text) {
    assertThatThrownBy(() -> Durations.parse("controller.wnpStatusUpdateInterval", text))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("controller.wnpStatusUpdateInterval")
        .hasMessageContaining("'" + text + "'")
        .hasMessageContaining("30s");
  }

  @ParameterizedTest
  @NullAndEmptySource
  @ValueSource(strings = {"  "})
  void rejectsEmpty(String text) {
    assertThatThrownBy(() -> Durations.parse("interval", text))
        .isInstanceOf(ConfigException.class)
        .hasMessage("interval is empty; write a duration such as 30s, 5m or 1h");
  }
}
