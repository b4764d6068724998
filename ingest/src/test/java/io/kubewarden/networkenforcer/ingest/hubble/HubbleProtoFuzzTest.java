package io.kubewarden.networkenforcer.ingest.hubble;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.google.protobuf.InvalidProtocolBufferException;
import io.kubewarden.networkenforcer.ingest.ParserFuzzing;
import io.kubewarden.networkenforcer.ingest.proto.hubble.observer.GetFlowsResponse;
import org.junit.jupiter.api.Timeout;

/** {@code GetFlowsResponse} messages as Hubble Relay streams them, decoded and parsed. */
class HubbleProtoFuzzTest {
  @FuzzTest(maxDuration = "5s")
  @Timeout(10)
  void relayResponses(byte[] input) {
    GetFlowsResponse response;
    try {
      response = GetFlowsResponse.parseFrom(input);
    } catch (InvalidProtocolBufferException e) {
      return; // The stream dead-letters such a message.
    }
    ParserFuzzing.assertOutcome(
        new HubbleFlowParser(ParserFuzzing.resolver(), ParserFuzzing.CLOCK).parse(response));
  }
}
