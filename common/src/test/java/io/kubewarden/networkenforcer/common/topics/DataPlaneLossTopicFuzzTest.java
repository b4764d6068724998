package io.kubewarden.networkenforcer.common.topics;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.junit.jupiter.api.Timeout;

/** The data-plane-loss topic's values: what ingest writes and the writer's loss ledger decodes. */
class DataPlaneLossTopicFuzzTest {
  private static final Topics TOPICS = Topics.withDefaultPrefix();

  @FuzzTest(maxDuration = "5s")
  @Timeout(10)
  void lossWindows(byte[] value) {
    TopicValueFuzzing.decode(TOPICS.dataPlaneLoss(), value);
  }
}
