package io.kubewarden.networkenforcer.common.topics;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.junit.jupiter.api.Timeout;

/**
 * The violations topic's values: what the processor writes and the writer decodes into policy
 * status.
 */
class ViolationsTopicFuzzTest {
  private static final Topics TOPICS = Topics.withDefaultPrefix();

  @FuzzTest(maxDuration = "5s")
  @Timeout(10)
  void violationObservations(byte[] value) {
    TopicValueFuzzing.decode(TOPICS.violations(), value);
  }
}
