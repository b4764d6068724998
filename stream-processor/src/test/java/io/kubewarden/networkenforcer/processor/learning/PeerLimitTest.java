package io.kubewarden.networkenforcer.processor.learning;

import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.COREDNS;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.COREDNS_INGRESS;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.common.policy.Backend;
import io.kubewarden.networkenforcer.common.policy.TargetKey;
import io.kubewarden.networkenforcer.processor.config.LearningSettings;
import io.kubewarden.networkenforcer.processor.fixtures.BasicFixture;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A target learns at most so many peers: a proposal carries every one, and past tens of thousands
 * its record no longer fits a Kafka message and stopped the stream thread. What it has keeps
 * learning.
 */
class PeerLimitTest {
  private static final TargetKey DNS = TargetKey.parse(COREDNS_INGRESS);
  private static final Instant T = Instant.parse("2026-08-03T15:40:00Z");

  @Test
  void aNewPeerBeyondTheLimitIsNotLearnedButAKnownPeersNewPortIs() {
    AllowListLearner learner =
        new AllowListLearner(Backend.kubernetes, LearningSettings.DEFAULTS, 3);
    LearnedAllowList state = null;
    for (int i = 0; i < 3; i++) {
      AllowListLearner.Outcome outcome =
          learner.learn(state, DNS, dnsQuery(client(i), Protocol.UDP));
      assertThat(outcome).isInstanceOf(AllowListLearner.Learned.class);
      state = ((AllowListLearner.Learned) outcome).state();
    }
    assertThat(learner.learn(state, DNS, dnsQuery(client(3), Protocol.UDP)))
        .isEqualTo(new AllowListLearner.Skipped(AllowListLearner.TOO_MANY_PEERS));
    assertThat(state.peers()).hasSize(3);

    AllowListLearner.Outcome tcp = learner.learn(state, DNS, dnsQuery(client(1), Protocol.TCP));
    assertThat(tcp)
        .isInstanceOfSatisfying(
            AllowListLearner.Learned.class,
            learned -> {
              assertThat(learned.allowListChanged()).isTrue();
              assertThat(learned.state().peers()).hasSize(3);
              assertThat(learned.state().peers().get("demo/Deployment/client-1").ports())
                  .hasSize(2);
            });
  }

  @Test
  void theServiceLearnsTenThousandPeersOfOneTarget() {
    assertThat(AllowListLearner.MAX_PEERS).isEqualTo(10_000);
    AllowListLearner learner = new AllowListLearner(Backend.kubernetes);
    LearnedAllowList state = null;
    for (int i = 0; i < AllowListLearner.MAX_PEERS; i++) {
      state =
          ((AllowListLearner.Learned) learner.learn(state, DNS, dnsQuery(client(i), Protocol.UDP)))
              .state();
    }
    assertThat(state.peers()).hasSize(AllowListLearner.MAX_PEERS);
    assertThat(
            learner.learn(state, DNS, dnsQuery(client(AllowListLearner.MAX_PEERS), Protocol.UDP)))
        .isEqualTo(new AllowListLearner.Skipped(AllowListLearner.TOO_MANY_PEERS));
  }

  private static FlowEndpoint client(int i) {
    String name = "client-" + i;
    return BasicFixture.endpoint(
        "demo", name, Map.of("app", name), name + "-5d8f7c9b4-x2k9p", "10.244.1." + i % 250, name);
  }

  private static FlowRecord dnsQuery(FlowEndpoint client, Protocol protocol) {
    return BasicFixture.forwarded(
        Provider.calico, T, client, COREDNS, protocol, 53, 1, Reporter.DESTINATION);
  }
}
