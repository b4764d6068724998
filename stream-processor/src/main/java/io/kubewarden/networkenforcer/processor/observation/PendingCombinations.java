package io.kubewarden.networkenforcer.processor.observation;

import io.kubewarden.networkenforcer.processor.store.StoreInFront;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/**
 * The combiner's store: a hash map in front of a changelogged key-value store, written through to
 * it only when Kafka Streams commits.
 *
 * <p>Why not the record cache Kafka Streams puts in front of a store: a repeat of a waiting flow is
 * one get and one put, and through the cache each costs an ordered-map lookup, a namespace string,
 * a dirty-set update and a position update, more than the rest of the combiner. Here it is a hash
 * lookup, and the entry is changed in place ({@link ObservationCombiner} puts back the array it
 * got).
 *
 * <p>Why this is as safe as the cache: see {@link StoreInFront}. When a task moves between active
 * and standby the map is read again from the restored store; {@code CatchUpTest} restarts a
 * processor while every combination waits only in the map.
 *
 * <p>Built without a changelog (offline learning: the state ends with the run), what waits stays in
 * the map: writing it beneath at every commit (the in-process driver commits after every flow)
 * would copy each changed combination into an ordered map nothing reads, and after {@link
 * #clearCache()} it is gone, as it would be with the task on another instance.
 *
 * <p>Keys keep their arrival order ({@link #range} is not offered: the keys are hashes). Values are
 * the store's own arrays: a caller that changes one puts it back. The store is used from its stream
 * thread only, but for {@link #approximateNumEntries()}, which interactive queries read from
 * others.
 */
public final class PendingCombinations extends StoreInFront<Bytes, byte[]> {
  private final Map<Bytes, Slot> waiting = new LinkedHashMap<>();
  private final List<Slot> dirty = new ArrayList<>();
  private final List<Bytes> removed = new ArrayList<>();
  private volatile boolean loaded;
  private volatile int size;

  /**
   * One waiting value: whether it changed since the last commit, whether the changelog holds it.
   */
  private static final class Slot {
    final Bytes key;
    byte[] value;
    boolean dirty;
    boolean stored;

    Slot(Bytes key, byte[] value) {
      this.key = key;
      this.value = value;
    }
  }

  PendingCombinations(KeyValueStore<Bytes, byte[]> changelogged) {
    super(changelogged);
  }

  /** The store named {@code name}; its changelog follows the builder's logging settings. */
  public static StoreBuilder<PendingCombinations> builder(String name) {
    // This store is its own cache: the one beneath stays off.
    return new Builder<>(
        Stores.keyValueStoreBuilder(
            Stores.inMemoryKeyValueStore(name), Serdes.Bytes(), Serdes.ByteArray()),
        PendingCombinations::new,
        true);
  }

  /**
   * Reads what the changelog restored, once: restoration ends before a processor uses the store.
   */
  private void load() {
    if (loaded) {
      return;
    }
    try (KeyValueIterator<Bytes, byte[]> all = beneath.all()) {
      while (all.hasNext()) {
        KeyValue<Bytes, byte[]> e = all.next();
        Slot slot = new Slot(e.key, e.value);
        slot.stored = true;
        waiting.put(e.key, slot);
      }
    }
    size = waiting.size();
    loaded = true;
  }

  @Override
  public byte[] get(Bytes key) {
    load();
    Slot slot = waiting.get(key);
    return slot == null ? null : slot.value;
  }

  @Override
  public void put(Bytes key, byte[] value) {
    if (value == null) {
      delete(key);
      return;
    }
    load();
    Slot slot = waiting.get(key);
    if (slot == null) {
      slot = new Slot(key, value);
      waiting.put(key, slot);
      size = waiting.size();
    }
    slot.value = value;
    if (!slot.dirty && changelogged()) {
      slot.dirty = true;
      dirty.add(slot);
    }
  }

  @Override
  public byte[] delete(Bytes key) {
    load();
    Slot slot = waiting.remove(key);
    if (slot == null) {
      return null;
    }
    size = waiting.size();
    // A dirty slot stays in the dirty list; flushCache skips it, as it no longer waits.
    if (slot.stored) {
      removed.add(key);
    }
    return slot.value;
  }

  /**
   * Writes what changed since the last commit to the changelogged store: deletes first, then puts.
   */
  @Override
  protected void writeWaiting() {
    for (Bytes key : removed) {
      if (!waiting.containsKey(key)) {
        beneath.delete(key);
      }
    }
    removed.clear();
    for (Slot slot : dirty) {
      slot.dirty = false;
      if (waiting.get(slot.key) == slot) {
        // A copy: the waiting array goes on changing in place after this commit.
        beneath.put(slot.key, slot.value.clone());
        slot.stored = true;
      }
    }
    dirty.clear();
  }

  /** The changelogged store is read again on the next use. */
  @Override
  protected void forgetWaiting() {
    waiting.clear();
    dirty.clear();
    removed.clear();
    loaded = false;
    size = 0;
  }

  @Override
  public KeyValueIterator<Bytes, byte[]> all() {
    load();
    Iterator<Slot> slots = new ArrayList<>(waiting.values()).iterator();
    return new KeyValueIterator<>() {
      @Override
      public boolean hasNext() {
        return slots.hasNext();
      }

      @Override
      public KeyValue<Bytes, byte[]> next() {
        if (!slots.hasNext()) {
          throw new NoSuchElementException();
        }
        Slot s = slots.next();
        return KeyValue.pair(s.key, s.value);
      }

      @Override
      public Bytes peekNextKey() {
        throw new UnsupportedOperationException("peekNextKey");
      }

      @Override
      public void close() {}
    };
  }

  @Override
  public KeyValueIterator<Bytes, byte[]> range(Bytes from, Bytes to) {
    throw new UnsupportedOperationException("the combiner's keys are hashes: no ranges");
  }

  /** What waits now once read; before that, what the changelog restored. */
  @Override
  public long approximateNumEntries() {
    return loaded ? size : beneath.approximateNumEntries();
  }
}
