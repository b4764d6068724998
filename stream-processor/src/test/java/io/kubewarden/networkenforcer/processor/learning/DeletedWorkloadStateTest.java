package io.kubewarden.networkenforcer.processor.learning;

import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.CLIENT;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.CLIENT_EGRESS;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.CLIENT_INGRESS;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.COREDNS;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.COREDNS_INGRESS;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.SERVER;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.SERVER_INGRESS;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.forwarded;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.processor.fixtures.ProcessorTestDriver;
import io.kubewarden.networkenforcer.processor.store.StoreNames;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.Test;

/**
 * What is left of a deleted workload in the stores once the writer has reset learning of its two
 * targets (the churn of issue #36: workloads come and go). Its own allow-lists and evidence are
 * dropped, and its flows still on their way when the reset came do not learn them again; its entry
 * as a peer of the workloads it called stays, on purpose (stream-processor README, "Workloads that
 * go").
 */
class DeletedWorkloadStateTest {
  private static final String CLIENT_PEER = "demo/Deployment/http-client";
  private static final String SERVER_PEER = "demo/Deployment/http-server";
  private static final String COREDNS_PEER = "kube-system/Deployment/coredns";
  private static final String TCP_8080 = new LearnedPort(Protocol.TCP, 8080).key();
  private static final String UDP_53 = new LearnedPort(Protocol.UDP, 53).key();

  private static FlowRecord flow(FlowEndpoint from, FlowEndpoint to, Protocol protocol, int port) {
    return forwarded(
        Provider.calico, ProcessorTestDriver.START, from, to, protocol, port, 1, Reporter.SOURCE);
  }

  @Test
  void resettingBothTargetsOfADeletedWorkloadDropsItsOwnStateButNotItsPeerEntries() {
    try (var driver = ProcessorTestDriver.kubernetes()) {
      driver.pipe(
          flow(CLIENT, SERVER, Protocol.TCP, 8080), flow(CLIENT, COREDNS, Protocol.UDP, 53));
      assertThat(keys(driver, StoreNames.LEARNED).keySet())
          .containsExactly(CLIENT_EGRESS, SERVER_INGRESS, COREDNS_INGRESS);
      assertThat(keys(driver, StoreNames.EVIDENCE).keySet())
          .containsExactly(
              EvidenceKey.of(CLIENT_EGRESS, SERVER_PEER, TCP_8080),
              EvidenceKey.of(CLIENT_EGRESS, COREDNS_PEER, UDP_53),
              EvidenceKey.of(SERVER_INGRESS, CLIENT_PEER, TCP_8080),
              EvidenceKey.of(COREDNS_INGRESS, CLIENT_PEER, UDP_53));

      // The client's Deployment is deleted: the writer resets both of its targets.
      driver.resetLearning(CLIENT_EGRESS).resetLearning(CLIENT_INGRESS);

      assertThat(keys(driver, StoreNames.LEARNED).keySet())
          .as("allow-lists left: the servers', not the deleted client's")
          .containsExactly(SERVER_INGRESS, COREDNS_INGRESS);
      assertThat(keys(driver, StoreNames.EVIDENCE).keySet())
          .as("evidence left: only the servers' entries of the deleted client as a peer")
          .containsExactly(
              EvidenceKey.of(SERVER_INGRESS, CLIENT_PEER, TCP_8080),
              EvidenceKey.of(COREDNS_INGRESS, CLIENT_PEER, UDP_53));
      KeyValueStore<String, LearnedAllowList> learned =
          driver.driver().getKeyValueStore(StoreNames.LEARNED);
      assertThat(learned.get(SERVER_INGRESS).peers().keySet())
          .as("the deleted client stays a peer of the server it called")
          .containsExactly(CLIENT_PEER);
    }
  }

  @Test
  void flowsSeenBeforeTheResetOfTheirTargetDoNotLearnItAgain() {
    try (var driver = ProcessorTestDriver.kubernetes()) {
      driver.pipe(flow(CLIENT, SERVER, Protocol.TCP, 8080));
      Instant reset = ProcessorTestDriver.START.plusSeconds(30);
      driver.resetLearning(CLIENT_EGRESS, reset).resetLearning(CLIENT_INGRESS, reset);
      assertThat(keys(driver, StoreNames.RESET_FENCES).keySet())
          .containsExactly(CLIENT_EGRESS, CLIENT_INGRESS);

      // Still on its way through the combiner and the repartition topic when the reset came: the
      // deleted client's last flow, seen ten seconds before the reset.
      driver.pipe(at(reset.minusSeconds(10), flow(CLIENT, COREDNS, Protocol.UDP, 53)));
      assertThat(keys(driver, StoreNames.LEARNED).keySet())
          .as("the late flow is learned by the target that was not reset only")
          .containsExactly(SERVER_INGRESS, COREDNS_INGRESS);
      assertThat(
              driver
                  .meterRegistry()
                  .counter("network_enforcer.processor.learning.skipped", "reason", "before-reset")
                  .count())
          .isEqualTo(1.0);

      // A client of the same name, created after the reset, is learned anew.
      driver.pipe(at(reset.plusSeconds(1), flow(CLIENT, COREDNS, Protocol.UDP, 53)));
      assertThat(keys(driver, StoreNames.LEARNED).keySet())
          .containsExactly(CLIENT_EGRESS, SERVER_INGRESS, COREDNS_INGRESS);
      assertThat(keys(driver, StoreNames.EVIDENCE).keySet())
          .contains(EvidenceKey.of(CLIENT_EGRESS, COREDNS_PEER, UDP_53))
          .doesNotContain(EvidenceKey.of(CLIENT_EGRESS, SERVER_PEER, TCP_8080));
    }
  }

  @Test
  void aResetFenceIsDroppedOnceFlowTimeHasLeftItBehind() {
    try (var driver = ProcessorTestDriver.kubernetes()) {
      driver.pipe(flow(CLIENT, SERVER, Protocol.TCP, 8080));
      driver.resetLearning(CLIENT_EGRESS, ProcessorTestDriver.START.plusSeconds(30));
      driver.pipeAndFlush(
          at(
              ProcessorTestDriver.START.plus(Duration.ofMinutes(11)),
              flow(SERVER, COREDNS, Protocol.UDP, 53)));
      assertThat(keys(driver, StoreNames.RESET_FENCES)).isEmpty();
    }
  }

  private static FlowRecord at(Instant time, FlowRecord flow) {
    return forwarded(
        flow.provider(),
        time,
        flow.src(),
        flow.dst(),
        flow.protocol(),
        flow.dstPort(),
        flow.count(),
        flow.reporter());
  }

  /** Every key of a store with its value, in key order. */
  private static Map<String, Object> keys(ProcessorTestDriver driver, String store) {
    KeyValueStore<String, Object> s = driver.driver().getKeyValueStore(store);
    Map<String, Object> all = new TreeMap<>();
    try (KeyValueIterator<String, Object> it = s.all()) {
      while (it.hasNext()) {
        KeyValue<String, Object> e = it.next();
        all.put(e.key, e.value);
      }
    }
    return all;
  }
}
