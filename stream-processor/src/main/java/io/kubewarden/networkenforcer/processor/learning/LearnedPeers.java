package io.kubewarden.networkenforcer.processor.learning;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.json.JsonGeneratorImpl;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import io.kubewarden.networkenforcer.common.json.Json;
import java.io.IOException;
import java.util.Map;
import java.util.SortedMap;

/**
 * Writes an allow-list's peers: the same JSON as Jackson's map serializer, but a large allow-list
 * copies each peer's JSON kept from its last write.
 *
 * <p>A target's whole allow-list is stored on each of its changes, and a busy target gains its
 * peers one at a time: the cluster DNS of a new cluster of 10,000 workloads gains 10,000 peers
 * within seconds, and writing every peer again for each new one took 85 % of the stream thread.
 * Peers do not change (a peer that gains a port is replaced), so the JSON a peer had at the last
 * write is the JSON it has now. Small allow-lists are written as before, so that only busy targets'
 * peers keep a copy.
 */
final class LearnedPeers extends StdSerializer<SortedMap<String, LearnedPeer>> {
  /** From this many peers on, peers keep their JSON: below it, writing them anew costs little. */
  static final int KEPT_FROM = 128;

  @SuppressWarnings({"unchecked", "rawtypes"})
  LearnedPeers() {
    super((Class) SortedMap.class);
  }

  @Override
  public void serialize(
      SortedMap<String, LearnedPeer> peers, JsonGenerator gen, SerializerProvider provider)
      throws IOException {
    boolean copyKept = peers.size() >= KEPT_FROM && writesKeptJson(gen, provider);
    gen.writeStartObject(peers);
    for (Map.Entry<String, LearnedPeer> peer : peers.entrySet()) {
      if (copyKept) {
        // The key too: escaping each character of 10,000 keys was a third of the write.
        LearnedPeer.KeptJson kept = peer.getValue().keptJson(peer.getKey());
        gen.writeFieldName(kept.name());
        gen.writeRawValue(kept.json());
      } else {
        gen.writeFieldName(peer.getKey());
        provider.defaultSerializeValue(peer.getValue(), gen);
      }
    }
    gen.writeEndObject();
  }

  /**
   * The kept JSON is what the shared mapper writes as JSON text: any other configuration (an
   * ObjectWriter's own), format (YAML), indentation, escapes or token buffer (a tree) writes each
   * peer itself.
   */
  private static boolean writesKeptJson(JsonGenerator gen, SerializerProvider provider) {
    return provider.getConfig() == Json.mapper().getSerializationConfig()
        && gen instanceof JsonGeneratorImpl
        && gen.getPrettyPrinter() == null
        && gen.getCharacterEscapes() == null;
  }
}
