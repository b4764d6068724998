package io.kubewarden.networkenforcer.processor.observation;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.query.PositionBound;
import org.apache.kafka.streams.query.Query;
import org.apache.kafka.streams.query.QueryConfig;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.internals.CacheFlushListener;
import org.apache.kafka.streams.state.internals.CachedStateStore;

/**
 * The combiner's store: a hash map in front of a changelogged key-value store, written through to
 * it only when Kafka Streams commits.
 *
 * <p>Why not the record cache Kafka Streams puts in front of a store: a repeat of a waiting flow is
 * one get and one put, and through the cache each costs an ordered-map lookup, a namespace string,
 * a dirty-set update and a position update, more than the rest of the combiner. Here it is a hash
 * lookup, and the entry is changed in place ({@link ObservationCombiner} puts back the array it got).
 *
 * <p>Why this is as safe as the cache: Kafka Streams calls {@link #flushCache()} on every store that
 * is a {@link CachedStateStore} before it commits a task (on the commit interval, on a requested
 * commit, before a rebalance hands the task over and on a clean close), and only then flushes the
 * producer and commits the input offsets (in one transaction under exactly-once). So every change
 * reaches the changelog in the same commit as the input it came from, as with Kafka's own cache; a
 * crash loses only uncommitted work, which is read again. When a task moves between active and
 * standby it calls {@link #clearCache()}, and the map is read again from the restored store. The
 * interface lives in an internal package of Kafka Streams (its own caching stores implement it);
 * {@code CatchUpTest} (a restart while every combination waits only in the map) and
 * {@code FaultInjectionTest} fail if a version stops calling it.
 *
 * <p>Keys keep their arrival order ({@link #range} is not offered: the keys are hashes). Values are
 * the store's own arrays: a caller that changes one puts it back. The store is used from its stream
 * thread only, but for {@link #approximateNumEntries()}, which interactive queries read from others.
 */
public final class PendingCombinations implements KeyValueStore<Bytes, byte[]>, CachedStateStore<Bytes, byte[]> {
  private final KeyValueStore<Bytes, byte[]> changelogged;
  private final Map<Bytes, Slot> waiting = new LinkedHashMap<>();
  private final List<Slot> dirty = new ArrayList<>();
  private final List<Bytes> removed = new ArrayList<>();
  private volatile boolean loaded;
  private volatile int size;

  /** One waiting value: whether it changed since the last commit, whether the changelog holds it. */
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
    this.changelogged = changelogged;
  }

  /** The store named {@code name}; its changelog follows the builder's logging settings. */
  public static StoreBuilder<PendingCombinations> builder(String name) {
    return new Builder(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(name), Serdes.Bytes(),
        Serdes.ByteArray()));
  }

  @Override
  public String name() {
    return changelogged.name();
  }

  @Override
  public void init(StateStoreContext context, StateStore root) {
    reset();
    changelogged.init(context, root);
  }

  /** Reads what the changelog restored, once: restoration ends before a processor uses the store. */
  private void load() {
    if (loaded) {
      return;
    }
    try (KeyValueIterator<Bytes, byte[]> all = changelogged.all()) {
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
    if (!slot.dirty) {
      slot.dirty = true;
      dirty.add(slot);
    }
  }

  @Override
  public byte[] putIfAbsent(Bytes key, byte[] value) {
    byte[] old = get(key);
    if (old == null) {
      put(key, value);
    }
    return old;
  }

  @Override
  public void putAll(List<KeyValue<Bytes, byte[]>> entries) {
    for (KeyValue<Bytes, byte[]> e : entries) {
      put(e.key, e.value);
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

  /** Writes what changed since the last commit to the changelogged store: deletes first, then puts. */
  @Override
  public void flushCache() {
    for (Bytes key : removed) {
      if (!waiting.containsKey(key)) {
        changelogged.delete(key);
      }
    }
    removed.clear();
    for (Slot slot : dirty) {
      slot.dirty = false;
      if (waiting.get(slot.key) == slot) {
        // A copy: the waiting array goes on changing in place after this commit.
        changelogged.put(slot.key, slot.value.clone());
        slot.stored = true;
      }
    }
    dirty.clear();
  }

  /** Forgets what was not committed (Kafka Streams' contract): the changelogged store is read again. */
  @Override
  public void clearCache() {
    reset();
  }

  private void reset() {
    waiting.clear();
    dirty.clear();
    removed.clear();
    loaded = false;
    size = 0;
  }

  @Override
  public boolean setFlushListener(CacheFlushListener<Bytes, byte[]> listener, boolean sendOldValues) {
    return false; // nothing downstream listens to this store's changes
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
    return loaded ? size : changelogged.approximateNumEntries();
  }

  @Override
  public void commit(Map<TopicPartition, Long> changelogOffsets) {
    changelogged.commit(changelogOffsets);
  }

  @Override
  public Long committedOffset(TopicPartition partition) {
    return changelogged.committedOffset(partition);
  }

  @Override
  public boolean managesOffsets() {
    return changelogged.managesOffsets();
  }

  @Override
  public void close() {
    reset();
    changelogged.close();
  }

  @Override
  public boolean persistent() {
    return changelogged.persistent();
  }

  @Override
  public boolean isOpen() {
    return changelogged.isOpen();
  }

  @Override
  public Position getPosition() {
    return changelogged.getPosition();
  }

  @Override
  public <R> QueryResult<R> query(Query<R> query, PositionBound bound, QueryConfig config) {
    return changelogged.query(query, bound, config);
  }

  /** The map over Kafka's in-memory store, with the changelog the topology asks for and no cache. */
  private static final class Builder implements StoreBuilder<PendingCombinations> {
    private final StoreBuilder<KeyValueStore<Bytes, byte[]>> changelogged;

    Builder(StoreBuilder<KeyValueStore<Bytes, byte[]>> changelogged) {
      this.changelogged = changelogged.withCachingDisabled();
    }

    @Override
    public StoreBuilder<PendingCombinations> withCachingEnabled() {
      return this; // this store is its own cache
    }

    @Override
    public StoreBuilder<PendingCombinations> withCachingDisabled() {
      return this;
    }

    @Override
    public StoreBuilder<PendingCombinations> withLoggingEnabled(Map<String, String> config) {
      changelogged.withLoggingEnabled(config);
      return this;
    }

    @Override
    public StoreBuilder<PendingCombinations> withLoggingDisabled() {
      changelogged.withLoggingDisabled();
      return this;
    }

    @Override
    public PendingCombinations build() {
      return new PendingCombinations(changelogged.build());
    }

    @Override
    public Map<String, String> logConfig() {
      return changelogged.logConfig();
    }

    @Override
    public boolean loggingEnabled() {
      return changelogged.loggingEnabled();
    }

    @Override
    public String name() {
      return changelogged.name();
    }
  }
}
