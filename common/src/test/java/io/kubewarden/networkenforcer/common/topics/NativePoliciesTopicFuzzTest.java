package io.kubewarden.networkenforcer.common.topics;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.junit.jupiter.api.Timeout;

/**
 * The native-policies topic's values: the cluster's NetworkPolicies the processor's global store
 * decodes.
 */
class NativePoliciesTopicFuzzTest {
  private static final Topics TOPICS = Topics.withDefaultPrefix();

  @FuzzTest(maxDuration = "5s")
  @Timeout(10)
  void nativePolicySnapshots(byte[] value) {
    TopicValueFuzzing.decode(TOPICS.nativePolicies(), value);
  }
}
