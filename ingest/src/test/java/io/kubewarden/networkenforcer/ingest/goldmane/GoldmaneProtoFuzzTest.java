package io.kubewarden.networkenforcer.ingest.goldmane;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.google.protobuf.InvalidProtocolBufferException;
import io.kubewarden.networkenforcer.ingest.ParserFuzzing;
import io.kubewarden.networkenforcer.ingest.proto.goldmane.FlowResult;
import org.junit.jupiter.api.Timeout;

/** {@code FlowResult} messages as Goldmane's Flows stream sends them, decoded and parsed. */
class GoldmaneProtoFuzzTest {
  @FuzzTest(maxDuration = "5s")
  @Timeout(10)
  void streamedResults(byte[] input) {
    FlowResult result;
    try {
      result = FlowResult.parseFrom(input);
    } catch (InvalidProtocolBufferException e) {
      return; // The stream dead-letters such a message.
    }
    ParserFuzzing.assertOutcome(
        new GoldmaneFlowParser(ParserFuzzing.resolver(), ParserFuzzing.CLOCK).parse(result));
  }
}
