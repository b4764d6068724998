package io.kubewarden.networkenforcer.processor.observation;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The combiner's store writes to the store beneath it only at a commit, and only what changed. */
class PendingCombinationsTest {
  private KeyValueStore<Bytes, byte[]> beneath;
  private PendingCombinations store;

  @BeforeEach
  void open() {
    beneath =
        Stores.keyValueStoreBuilder(
                Stores.inMemoryKeyValueStore("combiner"), Serdes.Bytes(), Serdes.ByteArray())
            .withLoggingDisabled()
            .withCachingDisabled()
            .build();
    store = new PendingCombinations(beneath);
    store.init(new MockProcessorContext<>().getStateStoreContext(), store);
  }

  private static Bytes key(String k) {
    return Bytes.wrap(k.getBytes(StandardCharsets.UTF_8));
  }

  private static byte[] value(String v) {
    return v.getBytes(StandardCharsets.UTF_8);
  }

  private List<String> beneath() {
    List<String> all = new ArrayList<>();
    try (KeyValueIterator<Bytes, byte[]> it = beneath.all()) {
      it.forEachRemaining(
          kv ->
              all.add(
                  new String(kv.key.get(), StandardCharsets.UTF_8)
                      + "="
                      + new String(kv.value, StandardCharsets.UTF_8)));
    }
    return all;
  }

  @Test
  void changesReachTheStoreBeneathAtTheCommitOnlyAsTheyAreThen() {
    store.put(key("a"), value("1"));
    store.put(key("b"), value("2"));
    byte[] a = store.get(key("a"));
    a[0] = '3';
    store.put(key("a"), a);
    assertThat(beneath()).isEmpty();
    assertThat(store.approximateNumEntries()).isEqualTo(2);

    store.flushCache();
    assertThat(beneath()).containsExactly("a=3", "b=2");
    // The store beneath holds a copy: the waiting array changes on after the commit.
    a[0] = '4';
    assertThat(beneath()).containsExactly("a=3", "b=2");
    assertThat(new String(store.get(key("a")), StandardCharsets.UTF_8)).isEqualTo("4");
  }

  @Test
  void aDeleteReachesTheStoreBeneathOnlyForWhatItHeld() {
    store.put(key("a"), value("1"));
    store.flushCache();
    store.delete(key("a"));
    store.put(key("c"), value("5"));
    store.delete(key("c"));
    assertThat(beneath()).containsExactly("a=1");
    assertThat(store.approximateNumEntries()).isZero();

    store.flushCache();
    assertThat(beneath()).isEmpty();
    // Deleted and put again between two commits: the new value is what the commit writes.
    store.put(key("a"), value("1"));
    store.flushCache();
    store.delete(key("a"));
    store.put(key("a"), value("6"));
    store.flushCache();
    assertThat(beneath()).containsExactly("a=6");
  }

  @Test
  void builtWithoutAChangelogWhatWaitsStaysInTheMapOnly() {
    PendingCombinations unlogged =
        PendingCombinations.builder("combiner-unlogged").withLoggingDisabled().build();
    unlogged.init(new MockProcessorContext<>().getStateStoreContext(), unlogged);
    unlogged.put(key("a"), value("1"));
    unlogged.flushCache();
    byte[] a = unlogged.get(key("a"));
    a[0] = '2';
    unlogged.put(key("a"), a);
    unlogged.put(key("b"), value("3"));
    unlogged.delete(key("b"));
    unlogged.flushCache();
    assertThat(new String(unlogged.get(key("a")), StandardCharsets.UTF_8)).isEqualTo("2");
    assertThat(unlogged.get(key("b"))).isNull();
    assertThat(unlogged.approximateNumEntries()).isEqualTo(1);

    // Nothing was written beneath: forgetting what waits leaves nothing to read back (a store made
    // with
    // a changelog reads "a" back, see below).
    unlogged.clearCache();
    assertThat(unlogged.get(key("a"))).isNull();
    assertThat(unlogged.approximateNumEntries()).isZero();
  }

  @Test
  void clearingForgetsWhatWasNotCommittedAndReadsTheStoreBeneathAgain() {
    store.put(key("a"), value("1"));
    store.flushCache();
    store.put(key("a"), value("2"));
    store.put(key("b"), value("3"));

    store.clearCache();

    assertThat(new String(store.get(key("a")), StandardCharsets.UTF_8)).isEqualTo("1");
    assertThat(store.get(key("b"))).isNull();
    assertThat(store.approximateNumEntries()).isEqualTo(1);
    List<KeyValue<Bytes, byte[]>> all = new ArrayList<>();
    try (KeyValueIterator<Bytes, byte[]> it = store.all()) {
      it.forEachRemaining(all::add);
    }
    assertThat(all).extracting(kv -> kv.key).containsExactly(key("a"));
  }
}
