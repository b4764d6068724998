package io.kubewarden.networkenforcer.ingest.goldmane;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.kubewarden.networkenforcer.ingest.ParserFuzzing;
import io.kubewarden.networkenforcer.ingest.file.CaptureFormat;
import org.junit.jupiter.api.Timeout;

/** Goldmane {@code FlowResult} and bare {@code Flow} JSON lines through the capture-file path. */
class GoldmaneJsonFuzzTest {
  @FuzzTest(maxDuration = "5s")
  @Timeout(10)
  void captureLines(byte[] input) {
    ParserFuzzing.readCapture(input, CaptureFormat.GOLDMANE);
  }
}
