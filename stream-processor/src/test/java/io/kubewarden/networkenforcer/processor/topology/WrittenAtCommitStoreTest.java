package io.kubewarden.networkenforcer.processor.topology;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The store writes to the store beneath it only at a commit ({@code flushCache}), each changed
 * value once and as it is then; the stream thread reads what waits, other threads what was
 * committed.
 */
class WrittenAtCommitStoreTest {
  /** Counts serializations: the store's point is how many there are. */
  private final AtomicInteger serialized = new AtomicInteger();

  private KeyValueStore<String, StringBuilder> beneath;
  private WrittenAtCommitStore<String, StringBuilder> store;

  @BeforeEach
  void open() {
    Serde<StringBuilder> values =
        Serdes.serdeFrom(
            (topic, v) -> {
              serialized.incrementAndGet();
              return v == null ? null : Serdes.String().serializer().serialize(topic, v.toString());
            },
            (topic, bytes) ->
                bytes == null
                    ? null
                    : new StringBuilder(Serdes.String().deserializer().deserialize(topic, bytes)));
    // Kafka's record cache beneath needs a record's context, which only a running task has: the
    // topology tests and the processor's integration tests run the store with it.
    beneath =
        Stores.keyValueStoreBuilder(
                Stores.inMemoryKeyValueStore("learned"), Serdes.String(), values)
            .withLoggingDisabled()
            .withCachingDisabled()
            .build();
    store = new WrittenAtCommitStore<>(beneath);
    store.init(new MockProcessorContext<>().getStateStoreContext(), store);
  }

  private List<String> committed() {
    List<String> all = new ArrayList<>();
    try (KeyValueIterator<String, StringBuilder> it = beneath.all()) {
      it.forEachRemaining(kv -> all.add(kv.key + "=" + kv.value));
    }
    return all;
  }

  @Test
  void aValueChangedManyTimesBetweenTwoCommitsIsSerializedOnceAsItIsAtTheCommit() {
    StringBuilder peers = new StringBuilder("p0");
    store.put("dns", peers);
    for (int i = 1; i < 1_000; i++) {
      peers
          .append(",p")
          .append(i); // the learner adds a peer in place and puts the allow-list again
      store.put("dns", peers);
    }
    assertThat(serialized).hasValue(0);
    assertThat(store.get("dns")).isSameAs(peers);
    assertThat(committed()).isEmpty();

    store.flushCache();
    assertThat(serialized).hasValue(1);
    assertThat(committed())
        .singleElement()
        .satisfies(e -> assertThat(e).startsWith("dns=p0,p1,").endsWith(",p999"));
    store.flushCache();
    assertThat(serialized).as("nothing changed since").hasValue(1);
  }

  @Test
  void deletesWaitForTheCommitTooAndAPutAfterADeleteWins() {
    store.put("a", new StringBuilder("1"));
    store.put("b", new StringBuilder("2"));
    store.flushCache();
    assertThat(store.delete("a")).hasToString("1");
    assertThat(store.get("a")).isNull();
    assertThat(committed()).containsExactly("a=1", "b=2");
    store.delete("b");
    store.put("b", new StringBuilder("3"));

    store.flushCache();
    assertThat(committed()).containsExactly("b=3");
    assertThat(store.putIfAbsent("b", new StringBuilder("4"))).hasToString("3");
    assertThat(store.putIfAbsent("c", new StringBuilder("5"))).isNull();
    assertThat(store.get("c")).hasToString("5");
  }

  @Test
  void anIterationOnTheStreamThreadSeesWhatWaitsInKeyOrder() {
    store.put("b", new StringBuilder("2"));
    store.put("a", new StringBuilder("1"));
    List<String> seen = new ArrayList<>();
    try (KeyValueIterator<String, StringBuilder> it = store.all()) {
      it.forEachRemaining(kv -> seen.add(kv.key + "=" + kv.value));
    }
    assertThat(seen).containsExactly("a=1", "b=2");
  }

  @Test
  void anotherThreadReadsWhatWasCommittedAndLeavesWhatWaitsAlone() throws Exception {
    store.put("a", new StringBuilder("1"));
    store.flushCache();
    store.put("a", new StringBuilder("2"));
    store.put("b", new StringBuilder("3"));
    List<String> seen =
        CompletableFuture.supplyAsync(
                () -> {
                  List<String> out = new ArrayList<>();
                  out.add("get a=" + store.get("a"));
                  out.add("get b=" + store.get("b"));
                  try (KeyValueIterator<String, StringBuilder> it = store.all()) {
                    it.forEachRemaining(kv -> out.add(kv.key + "=" + kv.value));
                  }
                  return out;
                })
            .get();
    assertThat(seen).containsExactly("get a=1", "get b=null", "a=1");
    assertThat(store.get("a")).hasToString("2");
    store.flushCache();
    assertThat(committed()).containsExactly("a=2", "b=3");
  }

  @Test
  void whatWasNotCommittedIsForgottenWhenKafkaStreamsClearsTheCache() {
    store.put("a", new StringBuilder("1"));
    store.flushCache();
    store.put("a", new StringBuilder("2"));
    store.put("b", new StringBuilder("3"));
    store.clearCache();
    assertThat(store.get("a")).hasToString("1");
    assertThat(store.get("b")).isNull();
    store.flushCache();
    assertThat(committed()).containsExactly("a=1");
  }
}
