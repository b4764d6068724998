package io.kubewarden.networkenforcer.common.topics;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.junit.jupiter.api.Timeout;

/** The control topic's values: the commands the writer sends and the processor decodes. */
class ControlTopicFuzzTest {
  private static final Topics TOPICS = Topics.withDefaultPrefix();

  @FuzzTest(maxDuration = "5s")
  @Timeout(10)
  void controlCommands(byte[] value) {
    TopicValueFuzzing.decode(TOPICS.control(), value);
  }
}
