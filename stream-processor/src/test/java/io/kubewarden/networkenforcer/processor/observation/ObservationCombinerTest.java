package io.kubewarden.networkenforcer.processor.observation;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.common.codec.WireWriter;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.FlowRecordCodec;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.common.topics.BinarySerde;
import io.kubewarden.networkenforcer.common.topics.DeadLetterHeaders;
import io.kubewarden.networkenforcer.processor.fixtures.BasicFixture;
import io.kubewarden.networkenforcer.processor.fixtures.ProcessorTestDriver;
import io.kubewarden.networkenforcer.processor.store.StoreNames;
import io.kubewarden.networkenforcer.processor.topology.NetworkEnforcerTopology;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.Test;

/**
 * The combiner in front of the repartition: fewer records, the same proposals, nothing held outside
 * a store.
 */
class ObservationCombinerTest {
  private static final FlowRecord CLIENT_TO_SERVER =
      BasicFixture.forwarded(
          Provider.cilium,
          ProcessorTestDriver.START,
          BasicFixture.CLIENT,
          BasicFixture.SERVER,
          Protocol.TCP,
          18080,
          1,
          Reporter.SOURCE);

  private static List<FlowRecord> manyFlows() {
    List<FlowRecord> flows = new ArrayList<>();
    for (int i = 0; i < 600; i++) {
      flows.add(
          BasicFixture.forwarded(
              Provider.cilium,
              ProcessorTestDriver.START.plusMillis(i * 7L),
              BasicFixture.CLIENT,
              i % 3 == 0 ? BasicFixture.COREDNS : BasicFixture.SERVER,
              i % 3 == 0 ? Protocol.UDP : Protocol.TCP,
              i % 3 == 0 ? 53 : 18080 + (i % 2),
              1 + (i % 4),
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
    try (var driver =
        ProcessorTestDriver.kubernetesInMemory(ProcessorTestDriver.COMBINE_INTERVAL)) {
      String repartition = NetworkEnforcerTopology.observationsRepartitionTopic(driver.config());
      var sent =
          driver
              .driver()
              .createOutputTopic(
                  repartition, new StringDeserializer(), new ByteArrayDeserializer());
      driver.pipe(flows).flushEvidence();
      combined = driver.latestProposalBytes();
      // 600 flows, two observations each, folded into one per target, peer, port and reporter:
      // the metric says how many records the repartition carried.
      long records = sent.readValuesToList().size();
      assertThat(records).isEqualTo(12);
      assertThat(driver.metrics().count("observations.combined")).isEqualTo(records);
      assertThat(driver.metrics().count("observations")).isEqualTo(1200.0);
    }
    try (var driver = ProcessorTestDriver.kubernetesInMemory(Duration.ZERO)) {
      driver.pipe(flows).flushEvidence();
      single = driver.latestProposalBytes();
      // Nothing combined: every observation is sent as it is.
      assertThat(driver.metrics().count("observations.combined")).isEqualTo(1200.0);
    }
    assertThat(combined.keySet())
        .containsExactlyInAnyOrder(
            BasicFixture.CLIENT_EGRESS, BasicFixture.SERVER_INGRESS, BasicFixture.COREDNS_INGRESS);
    assertThat(combined)
        .allSatisfy(
            (target, bytes) ->
                assertThat(new String(bytes)).as(target).isEqualTo(new String(single.get(target))));
    long count =
        flows.stream()
            .filter(f -> f.dst() == BasicFixture.COREDNS)
            .mapToLong(FlowRecord::count)
            .sum();
    try (var driver =
        ProcessorTestDriver.kubernetesInMemory(ProcessorTestDriver.COMBINE_INTERVAL)) {
      ProposalSnapshot coredns =
          driver.pipe(flows).flushEvidence().latestProposals().get(BasicFixture.COREDNS_INGRESS);
      assertThat(coredns.evidence().get(0).getPorts().get(0).getCount()).isEqualTo(count);
    }
  }

  @Test
  void peersRelabelledWithinOneIntervalEndWithTheirLatestSelectorAsSingleObservationsDo() {
    // Eight client workloads in a rollout while their flows were being combined: old pods (v=1),
    // then
    // new ones (v=2), then the old ones again (rolled back). The learner keeps the selector of the
    // latest flow, so the combinations must reach it in the order of their latest flows, not in the
    // order they were first seen (which would end with v=2).
    List<FlowRecord> flows = new ArrayList<>();
    for (String version : List.of("1", "2", "1")) {
      for (int i = 0; i < 20; i++) {
        for (int client = 0; client < 8; client++) {
          String name = "client-" + client;
          FlowEndpoint src =
              BasicFixture.endpoint(
                  "demo",
                  name,
                  Map.of("app", name, "v", version),
                  name + "-hash" + version + "-pod" + client,
                  "10.0.1." + client,
                  name);
          flows.add(
              BasicFixture.forwarded(
                  Provider.cilium,
                  ProcessorTestDriver.START.plusMillis(flows.size()),
                  src,
                  BasicFixture.SERVER,
                  Protocol.TCP,
                  18080,
                  1,
                  Reporter.DESTINATION));
        }
      }
    }
    String combined;
    String single;
    try (var driver =
        ProcessorTestDriver.kubernetesInMemory(ProcessorTestDriver.COMBINE_INTERVAL)) {
      combined =
          new String(
              driver
                  .pipe(flows)
                  .flushEvidence()
                  .latestProposalBytes()
                  .get(BasicFixture.SERVER_INGRESS),
              StandardCharsets.UTF_8);
    }
    try (var driver = ProcessorTestDriver.kubernetesInMemory(Duration.ZERO)) {
      single =
          new String(
              driver
                  .pipe(flows)
                  .flushEvidence()
                  .latestProposalBytes()
                  .get(BasicFixture.SERVER_INGRESS),
              StandardCharsets.UTF_8);
    }
    assertThat(single).contains("\"v\":\"1\"").doesNotContain("\"v\":\"2\"");
    assertThat(combined).isEqualTo(single);
  }

  @Test
  void waitingObservationsLiveInTheChangeloggedStoreUntilTheyAreForwarded() {
    try (var driver = ProcessorTestDriver.kubernetes()) {
      driver.pipeWithoutWaiting(BasicFixture.hubbleFlows());

      KeyValueStore<Bytes, byte[]> pending = driver.driver().getKeyValueStore(StoreNames.COMBINER);
      // client→server TCP and UDP, client→coredns UDP; each side's reporter apart: six flows, one
      // entry each for both its targets.
      assertThat(pending.approximateNumEntries()).isEqualTo(6);
      assertThat(driver.newProposals()).isEmpty();
      // The driver commits after every record: what waits has reached the store's changelog.
      assertThat(driver.driver().producedTopicNames())
          .contains(driver.config().applicationId() + "-" + StoreNames.COMBINER + "-changelog");

      driver.combine();

      assertThat(pending.approximateNumEntries()).isZero();
      assertThat(driver.newProposals())
          .extracting(kv -> kv.key)
          .containsOnly(
              BasicFixture.CLIENT_EGRESS,
              BasicFixture.SERVER_INGRESS,
              BasicFixture.COREDNS_INGRESS);
    }
  }

  /** A binary flow record from client to server whose source has a pod label without a key. */
  private static byte[] flowWithAKeylessLabel() {
    WireWriter out = new WireWriter(256);
    out.rawByte(BinarySerde.MAGIC);
    out.rawByte(BinarySerde.VERSION);
    out.varint(1, ProcessorTestDriver.START.getEpochSecond());
    out.varint(3, 3); // cilium
    out.varint(4, 1); // TCP
    out.varint(5, 18080);
    int src = out.beginMessage(6);
    out.string(1, "demo");
    out.varint(2, 1); // Deployment
    out.string(3, "http-client");
    int label = out.beginMessage(5);
    out.string(2, "a value without a key");
    out.endMessage(label);
    out.endMessage(src);
    int dst = out.beginMessage(7);
    out.string(1, "demo");
    out.varint(2, 1);
    out.string(3, "http-server");
    out.endMessage(dst);
    out.varint(11, 1); // reported by the source
    return out.toByteArray();
  }

  @Test
  void aRecordThatRoutesButDoesNotDecodeIsDeadLetteredEvenAfterGoodCopiesOfItsFlow() {
    try (var driver = ProcessorTestDriver.kubernetes()) {
      driver.pipeWithoutWaiting(List.of(CLIENT_TO_SERVER, CLIENT_TO_SERVER));
      byte[] bad = flowWithAKeylessLabel();
      driver.pipeRawFlow("demo/Deployment/http-client".getBytes(StandardCharsets.UTF_8), bad);

      var dead = driver.newDeadLetters();
      assertThat(dead).hasSize(1);
      assertThat(dead.get(0).value()).isEqualTo(bad);
      assertThat(DeadLetterHeaders.get(dead.get(0).headers(), DeadLetterHeaders.REASON))
          .contains("not a valid FlowRecord")
          .contains("label without a key");
      // The two good records were combined and learned; the bad one counted nowhere else.
      assertThat(driver.latestProposals())
          .containsOnlyKeys(BasicFixture.CLIENT_EGRESS, BasicFixture.SERVER_INGRESS);
      assertThat(driver.metrics().count("flows.received")).isEqualTo(2.0);
      ProposalSnapshot server =
          driver.flushEvidence().latestProposals().get(BasicFixture.SERVER_INGRESS);
      assertThat(server.evidence().get(0).getPorts().get(0).getCount()).isEqualTo(2);
    }
  }

  @Test
  void anEntryWithoutTheEndsByteRestoredFromAnOlderChangelogStillCombinesAndForwards() {
    try (var driver = ProcessorTestDriver.kubernetes()) {
      driver.pipeWithoutWaiting(List.of(CLIENT_TO_SERVER));
      KeyValueStore<Bytes, byte[]> pending = driver.driver().getKeyValueStore(StoreNames.COMBINER);
      List<KeyValue<Bytes, byte[]>> entries = new ArrayList<>();
      try (var all = pending.all()) {
        all.forEachRemaining(entries::add);
      }
      assertThat(entries).hasSize(1);
      byte[] current = entries.get(0).value;
      assertThat(current[1]).as("entry version").isEqualTo((byte) 3);
      // The same entry as the previous version wrote it: version 2, no byte for the ends at 50.
      byte[] older = new byte[current.length - 1];
      System.arraycopy(current, 0, older, 0, 50);
      System.arraycopy(current, 51, older, 50, current.length - 51);
      older[1] = 2;
      pending.put(entries.get(0).key, older);

      driver.pipeWithoutWaiting(List.of(CLIENT_TO_SERVER, CLIENT_TO_SERVER));
      assertThat(pending.approximateNumEntries()).isEqualTo(1);
      driver.combine();

      assertThat(pending.approximateNumEntries()).isZero();
      ProposalSnapshot server =
          driver.flushEvidence().latestProposals().get(BasicFixture.SERVER_INGRESS);
      assertThat(server.evidence().get(0).getPorts().get(0).getCount()).isEqualTo(3);
      assertThat(driver.metrics().count("flows.received")).isEqualTo(3.0);
    }
  }

  /** A waiting combination as versions before 0.4 wrote it to the store's changelog. */
  private static byte[] legacyEntry(String target, FlowRecord flow, long count, long records) {
    FlowRecord timeless =
        new FlowRecord(
            Instant.EPOCH,
            flow.provider(),
            flow.protocol(),
            flow.dstPort(),
            flow.src(),
            flow.dst(),
            flow.verdict(),
            flow.denyingPolicy(),
            1,
            flow.reporter(),
            null);
    WireWriter identity = new WireWriter(512);
    FlowRecordCodec.INSTANCE.write(identity, timeless);
    WireWriter out = new WireWriter(1024);
    out.varint(1, flow.time().getEpochSecond());
    out.varint(3, flow.time().getEpochSecond() + 5);
    out.varint(5, count);
    out.varint(6, flow.time().toEpochMilli());
    out.bytes(7, identity.toByteArray());
    out.string(8, target);
    out.varint(10, records);
    return out.toByteArray();
  }

  @Test
  void combinationsRestoredFromAnOlderChangelogAreForwardedAtTheNextFlush() {
    try (var driver = ProcessorTestDriver.kubernetes()) {
      FlowRecord dns =
          BasicFixture.forwarded(
              Provider.cilium,
              ProcessorTestDriver.START,
              BasicFixture.CLIENT,
              BasicFixture.COREDNS,
              Protocol.UDP,
              53,
              1,
              Reporter.SOURCE);
      driver.pipeWithoutWaiting(List.of(CLIENT_TO_SERVER));
      KeyValueStore<Bytes, byte[]> pending = driver.driver().getKeyValueStore(StoreNames.COMBINER);
      pending.put(
          Bytes.wrap("an old key".getBytes(StandardCharsets.UTF_8)),
          legacyEntry(BasicFixture.COREDNS_INGRESS, dns, 9, 3));

      driver.combine();

      assertThat(pending.approximateNumEntries()).isZero();
      ProposalSnapshot coredns =
          driver.flushEvidence().latestProposals().get(BasicFixture.COREDNS_INGRESS);
      assertThat(coredns).isNotNull();
      assertThat(coredns.evidence().get(0).getPorts().get(0).getCount()).isEqualTo(9);
      assertThat(driver.latestProposals())
          .containsOnlyKeys(
              BasicFixture.CLIENT_EGRESS,
              BasicFixture.SERVER_INGRESS,
              BasicFixture.COREDNS_INGRESS);
    }
  }
}
