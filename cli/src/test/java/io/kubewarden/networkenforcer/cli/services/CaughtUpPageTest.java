package io.kubewarden.networkenforcer.cli.services;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.cli.management.ManagementServer;
import io.kubewarden.networkenforcer.processor.progress.Progress;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class CaughtUpPageTest {
  @Test
  void aRunningProcessorAnswersItsProgressAsJson() {
    assertThat(CaughtUpPage.render(Optional.of(new Progress(4, 9, false))))
        .isEqualTo(
            new ManagementServer.Page(
                200,
                "application/json",
                "{\"caughtUp\":false,\"flowsConsumed\":4,\"flowsPublished\":9}\n"));
  }

  @Test
  void aProcessorNotYetStartedIsUnavailable() {
    assertThat(CaughtUpPage.render(Optional.empty()))
        .isEqualTo(
            new ManagementServer.Page(
                503, "application/json", "{\"caughtUp\":false,\"started\":false}\n"));
  }
}
