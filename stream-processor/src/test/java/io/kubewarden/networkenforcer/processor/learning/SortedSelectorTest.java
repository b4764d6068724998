package io.kubewarden.networkenforcer.processor.learning;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.policy.Backend;
import io.kubewarden.networkenforcer.common.topics.JsonSerde;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Learned selectors keep their labels sorted (Jackson then writes them without sorting a copy),
 * same JSON, and equal ones are shared.
 */
class SortedSelectorTest {
  @Test
  void learnedStateHoldsSelectorsWithSortedLabelsThatEqualTheGivenOnes() {
    LabelSelector given = selector("version", "v2", "app", "web");
    LearnedPeer peer = new LearnedPeer("shop", given, new TreeMap<>());
    assertThat(peer.selector().getMatchLabels())
        .isInstanceOf(TreeMap.class)
        .containsExactly(Map.entry("app", "web"), Map.entry("version", "v2"));
    assertThat(peer.selector()).isEqualTo(given);
    LearnedAllowList list =
        new LearnedAllowList(
            Backend.kubernetes, selector("tier", "db", "app", "pg"), new TreeMap<>(), false);
    assertThat(list.ownSelector().getMatchLabels()).isInstanceOf(TreeMap.class);
  }

  @Test
  void equalSelectorsOfPeersOfDifferentTargetsAreOneInstanceAndTheirStringsTheJvmsCopy() {
    LabelSelector first = selector("app", new String("web-" + 7), "tier", "front");
    LabelSelector second = selector("tier", "front", "app", new String("web-" + 7));
    LearnedPeer ofOneTarget = new LearnedPeer("shop", first, new TreeMap<>());
    LearnedPeer ofAnother = new LearnedPeer(new String("sh" + "op"), second, new TreeMap<>());
    assertThat(ofAnother.selector()).isSameAs(ofOneTarget.selector()).isEqualTo(first);
    assertThat(ofAnother.selector().getMatchLabels().get("app")).isSameAs("web-7");
    assertThat(ofAnother.namespace()).isSameAs("shop");
    assertThat(ofOneTarget.dnsNames()).isEmpty();
    assertThat(SortedSelector.of(selector("app", "web-8", "tier", "front")))
        .isNotSameAs(ofOneTarget.selector());
  }

  @Test
  void aSelectorWithPropertiesTheModelDoesNotKnowIsKeptAsItIs() {
    LabelSelector odd = selector("b", "2", "a", "1");
    odd.setAdditionalProperty("matchFields", "x");
    assertThat(SortedSelector.of(odd)).isSameAs(odd);
    assertThat(SortedSelector.of(null)).isNull();
  }

  @Test
  void theStoredJsonListsTheLabelsInKeyOrderAsBefore() {
    LearnedPort port = new LearnedPort(Protocol.TCP, 8080);
    TreeMap<String, LearnedPort> ports = new TreeMap<>(Map.of(port.key(), port));
    LabelSelector unsorted = selector("z", "1", "a", "2");
    byte[] sortedBytes = bytes(new LearnedPeer("shop", unsorted, ports));
    // The same peer as the store held it before: its labels in the order they came.
    String expected =
        "{\"namespace\":\"shop\",\"selector\":{\"matchLabels\":{\"a\":\"2\",\"z\":\"1\"}}";
    assertThat(new String(sortedBytes, StandardCharsets.UTF_8)).startsWith(expected);
  }

  private static byte[] bytes(LearnedPeer peer) {
    TreeMap<String, LearnedPeer> peers = new TreeMap<>(Map.of("shop/Deployment/web", peer));
    LearnedAllowList list = new LearnedAllowList(Backend.kubernetes, null, peers, false);
    String json =
        new String(
            new JsonSerde<>(LearnedAllowList.class).serializer().serialize("t", list),
            StandardCharsets.UTF_8);
    int at = json.indexOf("{\"namespace\"");
    return json.substring(at).getBytes(StandardCharsets.UTF_8);
  }

  private static LabelSelector selector(String k1, String v1, String k2, String v2) {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put(k1, v1);
    labels.put(k2, v2);
    return new LabelSelectorBuilder().withMatchLabels(labels).build();
  }
}
