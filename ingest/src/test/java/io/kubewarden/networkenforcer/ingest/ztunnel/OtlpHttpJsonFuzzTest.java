package io.kubewarden.networkenforcer.ingest.ztunnel;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.google.protobuf.InvalidProtocolBufferException;
import io.kubewarden.networkenforcer.ingest.proto.otlp.collector.ExportLogsServiceRequest;
import org.junit.jupiter.api.Timeout;

/**
 * OTLP/HTTP JSON bodies ({@code application/json}): the receiver's decoding, then the log ingestor.
 */
class OtlpHttpJsonFuzzTest {
  @FuzzTest(maxDuration = "5s")
  @Timeout(10)
  void jsonBodies(byte[] body) {
    ExportLogsServiceRequest request;
    try {
      request = OtlpHttpReceiver.decodeJson(body);
    } catch (InvalidProtocolBufferException e) {
      return; // Answered with 400 and dead-lettered.
    }
    OtlpBodies.ingest(request);
  }
}
