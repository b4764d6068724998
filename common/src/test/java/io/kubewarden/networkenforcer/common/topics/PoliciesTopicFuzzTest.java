package io.kubewarden.networkenforcer.common.topics;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.junit.jupiter.api.Timeout;

/** The policies topic's values: the CRD snapshots the writer and processor decode. */
class PoliciesTopicFuzzTest {
  private static final Topics TOPICS = Topics.withDefaultPrefix();

  @FuzzTest(maxDuration = "5s")
  @Timeout(10)
  void policySnapshots(byte[] value) {
    TopicValueFuzzing.decode(TOPICS.policies(), value);
  }
}
