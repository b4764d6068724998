package io.kubewarden.networkenforcer.ingest.ztunnel;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.google.protobuf.InvalidProtocolBufferException;
import io.kubewarden.networkenforcer.ingest.proto.otlp.collector.ExportLogsServiceRequest;
import org.junit.jupiter.api.Timeout;

/**
 * OTLP/HTTP protobuf bodies ({@code application/x-protobuf}), decoded and handed to the log
 * ingestor.
 */
class OtlpHttpProtoFuzzTest {
  @FuzzTest(maxDuration = "5s")
  @Timeout(10)
  void protobufBodies(byte[] body) {
    ExportLogsServiceRequest request;
    try {
      request = ExportLogsServiceRequest.parseFrom(body);
    } catch (InvalidProtocolBufferException e) {
      return; // Answered with 400 and dead-lettered.
    }
    OtlpBodies.ingest(request);
  }
}
