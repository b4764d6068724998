package io.kubewarden.networkenforcer.processor.observation;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.processor.fixtures.BasicFixture;
import io.kubewarden.networkenforcer.processor.fixtures.ProcessorTestDriver;
import io.kubewarden.networkenforcer.processor.topology.NetworkEnforcerTopology;
import io.kubewarden.networkenforcer.processor.topology.StoreNames;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.Test;

/** The combiner in front of the repartition: fewer records, the same proposals, nothing held outside a store. */
class ObservationCombinerTest {

  private static List<FlowRecord> manyFlows() {
    List<FlowRecord> flows = new ArrayList<>();
    for (int i = 0; i < 600; i++) {
      flows.add(BasicFixture.forwarded(Provider.cilium, ProcessorTestDriver.START.plusMillis(i * 7L),
          BasicFixture.CLIENT, i % 3 == 0 ? BasicFixture.COREDNS : BasicFixture.SERVER,
          i % 3 == 0 ? Protocol.UDP : Protocol.TCP, i % 3 == 0 ? 53 : 18080 + (i % 2), 1 + (i % 4),
          i % 5 == 0 ? Reporter.DESTINATION : Reporter.SOURCE));
    }
    Collections.shuffle(flows, new Random(7));
    return flows;
  }

  @Test
  void combinedObservationsGiveTheSameProposalsAsSingleOnes() {
    List<FlowRecord> flows = manyFlows();
    Map<String, byte[]> combined;
    Map<String, byte[]> single;
    try (var driver = ProcessorTestDriver.kubernetesInMemory(ProcessorTestDriver.COMBINE_INTERVAL)) {
      driver.pipe(flows).flushEvidence();
      combined = driver.latestProposalBytes();
      // 600 flows, two observations each, folded into one per target, peer, port and reporter.
      String repartition = NetworkEnforcerTopology.observationsRepartitionTopic(driver.config());
      assertThat(driver.driver().producedTopicNames()).contains(repartition);
    }
    try (var driver = ProcessorTestDriver.kubernetesInMemory(java.time.Duration.ZERO)) {
      driver.pipe(flows).flushEvidence();
      single = driver.latestProposalBytes();
    }
    assertThat(combined.keySet()).containsExactlyInAnyOrder(BasicFixture.CLIENT_EGRESS, BasicFixture.SERVER_INGRESS,
        BasicFixture.COREDNS_INGRESS);
    assertThat(combined).allSatisfy((target, bytes) -> assertThat(new String(bytes))
        .as(target).isEqualTo(new String(single.get(target))));
    long count = flows.stream().filter(f -> f.dst() == BasicFixture.COREDNS).mapToLong(FlowRecord::count).sum();
    try (var driver = ProcessorTestDriver.kubernetesInMemory(ProcessorTestDriver.COMBINE_INTERVAL)) {
      ProposalSnapshot coredns = driver.pipe(flows).flushEvidence().latestProposals().get(BasicFixture.COREDNS_INGRESS);
      assertThat(coredns.evidence().get(0).getPorts().get(0).getCount()).isEqualTo(count);
    }
  }

  @Test
  void waitingObservationsLiveInTheChangeloggedStoreUntilTheyAreForwarded() {
    try (var driver = ProcessorTestDriver.kubernetes()) {
      driver.pipeWithoutWaiting(BasicFixture.hubbleFlows());

      KeyValueStore<Bytes, byte[]> pending = driver.driver().getKeyValueStore(StoreNames.COMBINER);
      // client→server TCP and UDP, client→coredns UDP; each side's reporter apart; two targets each.
      assertThat(pending.approximateNumEntries()).isEqualTo(12);
      assertThat(driver.newProposals()).isEmpty();
      // The driver commits after every record: what waits has reached the store's changelog.
      assertThat(driver.driver().producedTopicNames())
          .contains(driver.config().applicationId() + "-" + StoreNames.COMBINER + "-changelog");

      driver.combine();

      assertThat(pending.approximateNumEntries()).isZero();
      assertThat(driver.newProposals()).extracting(kv -> kv.key).containsOnly(
          BasicFixture.CLIENT_EGRESS, BasicFixture.SERVER_INGRESS, BasicFixture.COREDNS_INGRESS);
    }
  }
}
