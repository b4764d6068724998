package io.kubewarden.networkenforcer.common.flow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubewarden.networkenforcer.common.codec.MalformedRecordException;
import io.kubewarden.networkenforcer.common.codec.WireReader;
import io.kubewarden.networkenforcer.common.topics.BinarySerde;
import io.kubewarden.networkenforcer.common.topics.Topics;
import java.time.Instant;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** What the processor's combiner reads of a flow record without decoding it. */
class FlowRecordSkimTest {
  private static final Instant T = Instant.parse("2026-03-01T10:15:30.123456789Z");
  private final BinarySerde<FlowRecord> serde = Topics.flowRecordSerde();

  static void assertSameRouting(FlowRecordSkim skim, FlowRecord decoded) {
    assertThat(skim.firstSeen()).isEqualTo(decoded.firstSeen());
    assertThat(skim.lastSeen()).isEqualTo(decoded.lastSeen());
    assertThat(skim.count()).isEqualTo(decoded.count());
    assertThat(skim.protocol()).isEqualTo(decoded.protocol());
    assertThat(skim.verdict()).isEqualTo(decoded.verdict());
    assertThat(skim.reporter()).isEqualTo(decoded.reporter());
    assertThat(skim.srcWorkload()).isEqualTo(decoded.src().workload().orElse(null));
    assertThat(skim.dstWorkload()).isEqualTo(decoded.dst().workload().orElse(null));
    assertThat(skim.hasSrcWorkload()).isEqualTo(decoded.src().workload().isPresent());
    assertThat(skim.hasDstWorkload()).isEqualTo(decoded.dst().workload().isPresent());
  }

  private FlowRecord at(Instant time, long count, Instant lastSeen, int port) {
    FlowRecord deny = FlowRecordCodecTest.aggregateDeny();
    return new FlowRecord(
        time,
        deny.provider(),
        deny.protocol(),
        port,
        deny.src(),
        deny.dst(),
        deny.verdict(),
        deny.denyingPolicy(),
        count,
        deny.reporter(),
        lastSeen);
  }

  @Test
  void readsTheRoutingFieldsAsTheDecoderDoes() {
    byte[] bytes = serde.write(FlowRecordCodecTest.aggregateDeny());
    FlowRecordSkim skim = new FlowRecordSkim().skim(bytes, 2);
    assertSameRouting(skim, serde.read("flows", bytes));
    assertThat(skim.srcWorkload().key()).isEqualTo("shop/Deployment/client");
    assertThat(skim.dstWorkload().key()).isEqualTo("shop/StatefulSet/db");
    assertThat(skim.count()).isEqualTo(4);
    assertThat(skim.lastSeen()).isEqualTo(T.plusSeconds(14).plusNanos(7));
  }

  @Test
  void theSameFlowAtOtherTimesAndCountsHasOneIdentity() {
    byte[] one = serde.write(at(T, 1, null, 5432));
    byte[] later = serde.write(at(T.plusSeconds(90), 7, T.plusSeconds(99), 5432));
    byte[] otherPort = serde.write(at(T, 1, null, 5433));
    FlowRecordSkim a = new FlowRecordSkim().skim(one, 2);
    byte[] identity = new byte[a.identityLength()];
    a.copyIdentity(identity, 0);
    long hash = a.identityHash();

    FlowRecordSkim b = new FlowRecordSkim().skim(later, 2);
    assertThat(b.identityHash()).isEqualTo(hash);
    assertThat(b.identityEquals(identity, 0, identity.length)).isTrue();
    assertThat(b.count()).isEqualTo(7);

    FlowRecordSkim c = new FlowRecordSkim().skim(otherPort, 2);
    assertThat(c.identityHash()).isNotEqualTo(hash);
    assertThat(c.identityEquals(identity, 0, identity.length)).isFalse();

    // The identity is a flow record of its own: the flow without times and count.
    FlowRecord timeless =
        FlowRecordCodec.INSTANCE.read(new WireReader(identity, 0, identity.length));
    assertThat(timeless).isEqualTo(FlowRecordCodec.carried(at(Instant.EPOCH, 1, null, 5432)));
  }

  @Test
  void theTopLevelWalkFindsTheSameIdentityAndTimesButNotTheEnds() {
    byte[] bytes = serde.write(FlowRecordCodecTest.aggregateDeny());
    FlowRecordSkim full = new FlowRecordSkim().skim(bytes, 2);
    FlowRecordSkim top = new FlowRecordSkim().skimTopLevel(bytes, 2);
    assertThat(top.identityHash()).isEqualTo(full.identityHash());
    assertThat(top.identityLength()).isEqualTo(full.identityLength());
    assertThat(top.count()).isEqualTo(4);
    assertThat(top.firstSeen()).isEqualTo(full.firstSeen());
    assertThat(top.lastSeen()).isEqualTo(T.plusSeconds(14).plusNanos(7));
    assertThat(top.protocol()).isEqualTo(full.protocol());
    assertThat(top.verdict()).isEqualTo(Verdict.DENIED);
    assertThat(top.reporter()).isEqualTo(full.reporter());
    assertThatThrownBy(top::srcWorkload)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("skim the record in full");
    assertThatThrownBy(top::hasDstWorkload).isInstanceOf(IllegalStateException.class);
    // The same instance walked in full again knows the ends.
    assertThat(top.skim(bytes, 2).srcWorkload().key()).isEqualTo("shop/Deployment/client");
  }

  @Test
  void oneInstanceIsReusedAcrossRecords() {
    FlowRecordSkim skim = new FlowRecordSkim();
    byte[] deny = serde.write(FlowRecordCodecTest.aggregateDeny());
    FlowRecord forwarded =
        new FlowRecord(
            T,
            Provider.calico,
            Protocol.UDP,
            53,
            FlowEndpoint.outsideCluster("1.2.3.4", null),
            FlowRecordCodecTest.server(),
            Verdict.FORWARDED,
            null,
            1,
            Reporter.UNKNOWN,
            null);
    byte[] other = serde.write(forwarded);
    skim.skim(deny, 2);
    skim.skim(other, 2);
    assertSameRouting(skim, serde.read("flows", other));
    assertThat(skim.srcWorkload()).isNull();
  }

  @Test
  void aTruncatedRecordIsRefused() {
    byte[] bytes = serde.write(FlowRecordCodecTest.aggregateDeny());
    byte[] truncated = Arrays.copyOf(bytes, bytes.length - 3);
    assertThatThrownBy(() -> new FlowRecordSkim().skim(truncated, 2))
        .isInstanceOf(MalformedRecordException.class);
  }
}
