package io.kubewarden.networkenforcer.ingest.hubble;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.kubewarden.networkenforcer.ingest.ParserFuzzing;
import io.kubewarden.networkenforcer.ingest.file.CaptureFormat;
import org.junit.jupiter.api.Timeout;

/**
 * {@code hubble observe -o jsonpb} lines (and bare {@code -o json} flows) through the capture-file
 * path.
 */
class HubbleJsonFuzzTest {
  @FuzzTest(maxDuration = "5s")
  @Timeout(10)
  void captureLines(byte[] input) {
    ParserFuzzing.readCapture(input, CaptureFormat.HUBBLE);
  }
}
