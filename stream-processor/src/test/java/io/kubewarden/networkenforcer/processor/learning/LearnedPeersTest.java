package io.kubewarden.networkenforcer.processor.learning;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.common.policy.Backend;
import io.kubewarden.networkenforcer.common.topics.JsonSerde;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * A large allow-list's peers keep their JSON from one write to the next; what is stored stays byte
 * for byte what Jackson writes for each peer anew, and other formats never get the kept JSON.
 */
class LearnedPeersTest {
  private final JsonSerde<LearnedAllowList> serde = new JsonSerde<>(LearnedAllowList.class);

  @Test
  void storedJsonOfEveryKindOfPeerIsUnchanged() {
    TreeMap<String, LearnedPeer> peers = new TreeMap<>();
    peers.put(
        "203.0.113.0/24",
        new LearnedPeer(
            null,
            null,
            ports(443),
            List.of(new LearnedIpBlock("203.0.113.0/24", List.of("203.0.113.7/32"))),
            new TreeSet<>(List.of("api.example.com", "é.example"))));
    peers.put(
        "shop/Deployment/web",
        new LearnedPeer("shop", selector("tier", "a\"b", "app", "web"), ports(80, 8443), true));
    peers.put("spiffe://cluster.local/ns/shop/sa/web", new LearnedPeer(null, null, ports(9080)));
    LearnedAllowList list =
        new LearnedAllowList(
            Backend.kubernetes,
            selector("app", "dns"),
            peers,
            true,
            Instant.parse("2026-12-02T07:00:00Z"),
            false,
            false);

    // The JSON of the record LearnedPeer was before it kept its JSON (a store written then reads
    // the same).
    String stored = new String(serde.write(list), StandardCharsets.UTF_8);
    assertThat(peers.values()).noneMatch(LearnedPeer::keepsJson);
    assertThat(stored)
        .isEqualTo(
            "{\"backend\":\"kubernetes\","
                + "\"ownSelector\":{\"matchLabels\":{\"app\":\"dns\"}},\"peers\":{\"203.0.113.0/24\":{\"ports\":{\"TCP/00443\":"
                + "{\"protocol\":\"TCP\",\"port\":443}},\"ipBlocks\":[{\"cidr\":\"203.0.113.0/24\",\"except\":[\"203.0.113.7/32\"]}],"
                + "\"dnsNames\":[\"api.example.com\",\"é.example\"]},\"shop/Deployment/web\":{\"namespace\":\"shop\","
                + "\"selector\":{\"matchLabels\":{\"app\":\"web\",\"tier\":\"a\\\"b\"}},\"ports\":{\"TCP/00080\":{\"protocol\":"
                + "\"TCP\",\"port\":80},\"TCP/08443\":{\"protocol\":\"TCP\",\"port\":8443}},\"inferred\":true},"
                + "\"spiffe://cluster.local/ns/shop/sa/web\":{\"ports\":{\"TCP/09080\":{\"protocol\":\"TCP\",\"port\":9080}}}},"
                + "\"evidenceDirty\":true,\"lastChange\":\"2026-12-02T07:00:00Z\",\"converged\":false}");
  }

  @Test
  void aLargeAllowListIsStoredAsEachPeerWrittenAnewAlsoAfterAPeerIsReplaced() throws Exception {
    LearnedAllowList list = largeAllowList();
    assertThat(Json.yaml().writeValueAsString(list)).isNotEmpty();
    assertThat(list.peers().values()).noneMatch(LearnedPeer::keepsJson);
    byte[] first = serde.write(list);
    assertThat(list.peers().values()).allMatch(LearnedPeer::keepsJson);
    // A copy of the shared mapper has its own configuration, so it writes every peer anew.
    assertThat(first).isEqualTo(Json.mapper().copy().writeValueAsBytes(list));
    assertThat(serde.write(list)).isEqualTo(first);
    assertThat(serde.write(serde.read("t", first))).isEqualTo(first);

    // The learner replaces a peer that gains a port; the replacement has no JSON kept from before.
    String key = list.peers().firstKey();
    LearnedPeer old = list.peers().get(key);
    TreeMap<String, LearnedPort> more = new TreeMap<>(old.ports());
    LearnedPort added = new LearnedPort(Protocol.TCP, 9999);
    more.put(added.key(), added);
    list.peers()
        .put(
            key,
            new LearnedPeer(
                old.namespace(),
                old.selector(),
                more,
                old.ipBlocks(),
                old.dnsNames(),
                old.inferred()));
    byte[] second = serde.write(list);
    assertThat(list.peers().get(key).keepsJson()).isTrue();
    assertThat(second).isEqualTo(Json.mapper().copy().writeValueAsBytes(list)).isNotEqualTo(first);
    assertThat(serde.read("t", second).peers().get(key).ports()).containsKey("TCP/09999");
  }

  @Test
  void yamlIndentedJsonAndTreesOfALargeAllowListAreTheirOwnNotTheKeptJson() throws Exception {
    LearnedAllowList list = largeAllowList();
    JsonNode stored = Json.mapper().readTree(serde.write(list));
    String yaml = Json.yaml().writeValueAsString(list);
    assertThat(yaml).doesNotContain("{\"");
    assertThat(Json.yaml().readTree(yaml)).isEqualTo(stored);
    String indented = Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(list);
    assertThat(indented).contains("\"namespace\" : \"ns-1\"").doesNotContain("\"namespace\":");
    assertThat(Json.mapper().readTree(indented)).isEqualTo(stored);
    assertThat((JsonNode) Json.mapper().valueToTree(list)).isEqualTo(stored);
    assertThat(Json.mapper().convertValue(list, LearnedAllowList.class).peers().keySet())
        .isEqualTo(list.peers().keySet());
  }

  private static LearnedAllowList largeAllowList() {
    TreeMap<String, LearnedPeer> peers = new TreeMap<>();
    for (int i = 0; i < LearnedPeers.KEPT_FROM + 30; i++) {
      String namespace = "ns-" + i % 7;
      LearnedPeer peer =
          i % 10 == 0
              ? new LearnedPeer(
                  null,
                  null,
                  ports(443),
                  List.of(new LearnedIpBlock("10.1." + i + ".0/24", List.of())),
                  new TreeSet<>(List.of("svc" + i + ".example.com")))
              : new LearnedPeer(
                  namespace,
                  selector("app", "w" + i, "tier", i % 2 == 0 ? "web" : "db"),
                  ports(53, 5000 + i % 3),
                  i % 4 == 0);
      peers.put(namespace + "/Deployment/w" + i, peer);
    }
    // Keys that need escaping, or are not ASCII, are written as Jackson writes them.
    peers.put(
        "ns-é/Deployment/a\"b\\c\u0001", new LearnedPeer("ns-é", selector("app", "é"), ports(53)));
    return new LearnedAllowList(Backend.kubernetes, selector("app", "dns"), peers, false);
  }

  private static TreeMap<String, LearnedPort> ports(int... numbers) {
    TreeMap<String, LearnedPort> ports = new TreeMap<>();
    for (int number : numbers) {
      LearnedPort port = new LearnedPort(Protocol.TCP, number);
      ports.put(port.key(), port);
    }
    return ports;
  }

  private static LabelSelector selector(String... keysAndValues) {
    Map<String, String> labels = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      labels.put(keysAndValues[i], keysAndValues[i + 1]);
    }
    return new LabelSelector(null, labels);
  }
}
