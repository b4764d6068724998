package io.kubewarden.networkenforcer.common.topics;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.junit.jupiter.api.Timeout;

/** The flows topic's values, through whatever codec the topic's serde uses. */
class FlowsTopicFuzzTest {
  private static final Topics TOPICS = Topics.withDefaultPrefix();

  @FuzzTest(maxDuration = "5s")
  @Timeout(10)
  void flowRecords(byte[] value) {
    TopicValueFuzzing.decode(TOPICS.flows(), value);
  }
}
