package io.kubewarden.networkenforcer.cli.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubewarden.networkenforcer.common.config.ConfigException;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class HistoryProgressAndWindowTest {
  static final Instant NOW = Instant.parse("2026-12-01T10:00:00Z");

  @Test
  void progressLineGivesRateAndTimeLeft() {
    HistoryProgress p = HistoryProgress.silent();
    p.start(100_000, 0);
    assertThat(p.line(25_000, TimeUnit.SECONDS.toNanos(5), false))
        .isEqualTo(": 25000 of 100000 records (25%), 5000/s, ETA 15 s");
    assertThat(p.line(100_000, TimeUnit.SECONDS.toNanos(20), true))
        .isEqualTo(": 100000 of 100000 records (100%), 5000/s, done in 20.0 s");
  }

  @Test
  void timesAreInstantsOrDurationsBeforeNow() {
    TimeWindow w = TimeWindow.parse("24h", null, NOW);
    assertThat(w.from()).isEqualTo(Instant.parse("2026-11-30T10:00:00Z"));
    assertThat(w.to()).isEqualTo(NOW);
    TimeWindow x = TimeWindow.parse("2026-12-01T08:00:00+01:00", "2026-12-01T09:30:00Z", NOW);
    assertThat(x.from()).isEqualTo(Instant.parse("2026-12-01T07:00:00Z"));
    assertThat(x.contains(x.from().toEpochMilli())).isTrue();
    assertThat(x.contains(x.to().toEpochMilli())).isFalse();
  }

  @Test
  void badTimesSayWhatToWrite() {
    assertThatThrownBy(() -> TimeWindow.parse(null, null, NOW))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--from TIME is required");
    assertThatThrownBy(() -> TimeWindow.parse("yesterday", null, NOW))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--from = 'yesterday' is neither a time");
    assertThatThrownBy(() -> TimeWindow.parse("2026-13-01T00:00:00Z", null, NOW))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("is not a time");
    assertThatThrownBy(() -> TimeWindow.parse("1h", "2h", NOW))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("the window is empty");
  }
}
