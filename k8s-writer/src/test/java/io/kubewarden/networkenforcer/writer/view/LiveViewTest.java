package io.kubewarden.networkenforcer.writer.view;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A writer without the caches (a standby, or a leader still syncing) has no page, and says how to
 * find one.
 */
class LiveViewTest {
  @Test
  void aStandbyAnswers503WithTheCommandsThatReachTheLeader() {
    LiveView.Page page =
        new LiveView(
                Optional::empty,
                "writer-1",
                "network-enforcer",
                "ne-network-enforcer-writer",
                Clock.systemUTC())
            .render();
    assertThat(page.status()).isEqualTo(503);
    assertThat(page.contentType()).startsWith("text/plain");
    assertThat(page.body())
        .startsWith("writer writer-1 is not the leader")
        .contains(
            "kubectl -n network-enforcer get lease ne-network-enforcer-writer "
                + "-o jsonpath='{.spec.holderIdentity}'")
        .contains("kubectl -n network-enforcer port-forward pod/<that pod>");
  }
}
