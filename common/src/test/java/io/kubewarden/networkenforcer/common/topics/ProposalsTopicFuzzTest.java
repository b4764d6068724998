package io.kubewarden.networkenforcer.common.topics;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.junit.jupiter.api.Timeout;

/** The proposals topic's values: what the processor writes and the writer applies as proposals. */
class ProposalsTopicFuzzTest {
  private static final Topics TOPICS = Topics.withDefaultPrefix();

  @FuzzTest(maxDuration = "5s")
  @Timeout(10)
  void proposalSnapshots(byte[] value) {
    TopicValueFuzzing.decode(TOPICS.proposals(), value);
  }
}
