package io.kubewarden.networkenforcer.ingest.ztunnel;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.kubewarden.networkenforcer.ingest.ParserFuzzing;
import io.kubewarden.networkenforcer.ingest.file.CaptureFormat;
import org.junit.jupiter.api.Timeout;

/** ztunnel JSON log lines ({@code LOG_FORMAT=json}) through the capture-file path. */
class ZtunnelJsonFuzzTest {
  @FuzzTest(maxDuration = "5s")
  @Timeout(10)
  void captureLines(byte[] input) {
    ParserFuzzing.readCapture(input, CaptureFormat.ZTUNNEL);
  }
}
