package io.kubewarden.networkenforcer.processor.topology;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A bounded, least-recently-used map of deserialized store values held by one task's processor. The
 * task is the only writer of its stores, so as long as every write goes through the cache too, the
 * copy stays exact; it spares a JSON decode per flow. Cleared whenever the processor is
 * (re)initialized, because the store may then have been restored or wiped.
 */
final class DeserializedCache<V> {
  private final Map<String, V> entries;

  DeserializedCache(int maxEntries) {
    entries =
        new LinkedHashMap<>(256, 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<String, V> eldest) {
            return size() > maxEntries;
          }
        };
  }

  V get(String key) {
    return entries.get(key);
  }

  void put(String key, V value) {
    if (value == null) {
      entries.remove(key);
    } else {
      entries.put(key, value);
    }
  }

  void remove(String key) {
    entries.remove(key);
  }

  void clear() {
    entries.clear();
  }
}
