package io.kubewarden.networkenforcer.common.flow;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.kubewarden.networkenforcer.common.codec.WireReader;
import io.kubewarden.networkenforcer.common.topics.BinarySerde;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Timeout;

/**
 * The skim reads exactly what the decoder reads: whenever the decoder reads a record, the skim
 * reads it too, with the same routing fields, and its identity decodes to the record without times
 * and count, which the top-level walk finds too. (The processor's combiner relies on this to decode
 * only the first record of a flow.)
 */
class FlowRecordSkimFuzzTest {

  @FuzzTest(maxDuration = "5s")
  @Timeout(10)
  void skimReadsWhatTheDecoderReads(byte[] record) {
    // Seeds are flows topic values: the header is stepped over as the processor does.
    int offset =
        record.length >= 2 && record[0] == BinarySerde.MAGIC && record[1] == BinarySerde.VERSION
            ? 2
            : 0;
    FlowRecord decoded;
    try {
      decoded = FlowRecordCodec.INSTANCE.read(new WireReader(record, offset, record.length));
    } catch (RuntimeException e) {
      return; // the processor dead-letters it, whatever the skim says
    }
    FlowRecordSkim skim = new FlowRecordSkim().skim(record, offset);
    FlowRecordSkimTest.assertSameRouting(skim, decoded);
    byte[] identity = new byte[skim.identityLength()];
    skim.copyIdentity(identity, 0);
    assertThat(skim.identityEquals(identity, 0, identity.length)).isTrue();
    // The top-level walk of a readable record finds the same identity, times and count.
    FlowRecordSkim top = new FlowRecordSkim().skimTopLevel(record, offset);
    assertThat(top.identityHash()).isEqualTo(skim.identityHash());
    assertThat(top.identityEquals(identity, 0, identity.length)).isTrue();
    assertThat(
            List.of(
                top.firstSeen(),
                top.lastSeen(),
                top.count(),
                top.protocol(),
                top.verdict(),
                top.reporter()))
        .isEqualTo(
            List.of(
                skim.firstSeen(),
                skim.lastSeen(),
                skim.count(),
                skim.protocol(),
                skim.verdict(),
                skim.reporter()));
    FlowRecord timeless =
        FlowRecordCodec.INSTANCE.read(new WireReader(identity, 0, identity.length));
    assertThat(timeless).isEqualTo(decoded.withTimes(Instant.EPOCH, 1, null));
  }
}
