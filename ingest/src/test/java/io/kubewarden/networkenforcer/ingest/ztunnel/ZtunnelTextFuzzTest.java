package io.kubewarden.networkenforcer.ingest.ztunnel;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kubewarden.networkenforcer.ingest.ParserFuzzing;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Timeout;

/** ztunnel's default text log lines: {@link ZtunnelTextLog} and then the log parser. */
class ZtunnelTextFuzzTest {
  @FuzzTest(maxDuration = "5s")
  @Timeout(10)
  void textLines(byte[] input) {
    String line = new String(input, StandardCharsets.UTF_8);
    ObjectNode json = ZtunnelTextLog.toJson(line);
    if (json == null) {
      return; // Not a ztunnel text line: the capture reader then tries JSON and reports the line.
    }
    ParserFuzzing.assertOutcome(
        new ZtunnelLogParser(ParserFuzzing.resolver(), "cluster.local", ParserFuzzing.CLOCK)
            .parse(json, null));
  }
}
