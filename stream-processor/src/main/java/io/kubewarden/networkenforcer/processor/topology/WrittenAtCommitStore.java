package io.kubewarden.networkenforcer.processor.topology;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serializer;
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
import org.apache.kafka.streams.state.internals.CacheFlushListener;
import org.apache.kafka.streams.state.internals.CachedStateStore;

/**
 * A typed store whose writes wait, as objects, until Kafka Streams commits: only then is each changed
 * value serialized, once, into the store beneath (Kafka's record cache, changelog and RocksDB).
 *
 * <p>Why: the learned allow-list of a busy target changes with every new peer. When 10,000 new
 * workloads call the cluster DNS, writing its whole allow-list on each change serialized 10,000 peers
 * 10,000 times (half of the stream thread's time); now it is serialized once per commit.
 *
 * <p>Why this is safe, as for {@code PendingCombinations}: Kafka Streams calls {@link #flushCache()}
 * on every store that is a {@link CachedStateStore} before it commits a task (on the commit interval,
 * on a requested commit, before a rebalance hands the task over, on a clean close), and only then
 * flushes the producer and commits the input offsets (in one transaction under exactly-once). So every
 * change reaches the changelog in the same commit as the input it came from; a crash loses only
 * uncommitted work, which is read again. {@link #clearCache()} (a task moving between active and
 * standby) forgets what waits. Values are held as given: a caller that changes one in place puts it
 * again (the learner does), and the commit writes it as it is then.
 *
 * <p>Reads on the stream thread see what waits. Iterations on it write what waits first (ordered
 * ranges come from the store beneath). Interactive queries run on other threads: they read the store
 * beneath as of the last commit and never touch what waits.
 */
public final class WrittenAtCommitStore<K, V> implements KeyValueStore<K, V>, CachedStateStore<K, V> {
  private final KeyValueStore<K, V> beneath;
  /** Values written since the last commit, in no order; a null value is a delete. */
  private final Map<K, V> waiting = new HashMap<>();
  /** The stream thread that writes; only it reads or writes {@link #waiting}. */
  private volatile Thread writer;

  WrittenAtCommitStore(KeyValueStore<K, V> beneath) {
    this.beneath = beneath;
  }

  /** The store {@code beneath}, with its serdes, cache and changelog, written at each commit. */
  public static <K, V> StoreBuilder<WrittenAtCommitStore<K, V>> builder(StoreBuilder<KeyValueStore<K, V>> beneath) {
    return new Builder<>(beneath);
  }

  @Override
  public String name() {
    return beneath.name();
  }

  @Override
  public void init(StateStoreContext context, StateStore root) {
    waiting.clear();
    beneath.init(context, root);
  }

  @Override
  public V get(K key) {
    if (Thread.currentThread() == writer && waiting.containsKey(key)) {
      return waiting.get(key);
    }
    return beneath.get(key);
  }

  @Override
  public void put(K key, V value) {
    Thread current = Thread.currentThread();
    if (writer != current) {
      writer = current;
    }
    waiting.put(key, value);
  }

  @Override
  public V putIfAbsent(K key, V value) {
    V old = get(key);
    if (old == null) {
      put(key, value);
    }
    return old;
  }

  @Override
  public void putAll(List<KeyValue<K, V>> entries) {
    for (KeyValue<K, V> e : entries) {
      put(e.key, e.value);
    }
  }

  @Override
  public V delete(K key) {
    V old = get(key);
    put(key, null);
    return old;
  }

  /** Writes what waits to the store beneath (serializing each value once), then flushes its cache. */
  @Override
  public void flushCache() {
    writeWaiting();
    if (beneath instanceof CachedStateStore<?, ?> cached) {
      cached.flushCache();
    }
  }

  /** Forgets what was not committed (Kafka Streams' contract): reads go to the store beneath again. */
  @Override
  public void clearCache() {
    waiting.clear();
    if (beneath instanceof CachedStateStore<?, ?> cached) {
      cached.clearCache();
    }
  }

  @Override
  @SuppressWarnings("unchecked")
  public boolean setFlushListener(CacheFlushListener<K, V> listener, boolean sendOldValues) {
    return beneath instanceof CachedStateStore<?, ?> cached
        && ((CachedStateStore<K, V>) cached).setFlushListener(listener, sendOldValues);
  }

  /** Before an iteration: what waits, when the caller is the stream thread (not an interactive query). */
  private void writeWaitingOnStreamThread() {
    if (Thread.currentThread() == writer) {
      writeWaiting();
    }
  }

  /** Called by Kafka Streams on the thread that commits the task, which is the one that wrote. */
  private void writeWaiting() {
    if (waiting.isEmpty()) {
      return;
    }
    for (Map.Entry<K, V> e : waiting.entrySet()) {
      if (e.getValue() == null) {
        beneath.delete(e.getKey());
      } else {
        beneath.put(e.getKey(), e.getValue());
      }
    }
    waiting.clear();
  }

  @Override
  public KeyValueIterator<K, V> range(K from, K to) {
    writeWaitingOnStreamThread();
    return beneath.range(from, to);
  }

  @Override
  public KeyValueIterator<K, V> reverseRange(K from, K to) {
    writeWaitingOnStreamThread();
    return beneath.reverseRange(from, to);
  }

  @Override
  public KeyValueIterator<K, V> all() {
    writeWaitingOnStreamThread();
    return beneath.all();
  }

  @Override
  public KeyValueIterator<K, V> reverseAll() {
    writeWaitingOnStreamThread();
    return beneath.reverseAll();
  }

  @Override
  public <PS extends Serializer<P>, P> KeyValueIterator<K, V> prefixScan(P prefix, PS prefixKeySerializer) {
    writeWaitingOnStreamThread();
    return beneath.prefixScan(prefix, prefixKeySerializer);
  }

  @Override
  public long approximateNumEntries() {
    return beneath.approximateNumEntries();
  }

  /** Kafka Streams 4 commits a store through {@link #commit}; a caller of the older flush gets the same. */
  @Override
  @SuppressWarnings("deprecation")
  public void flush() {
    writeWaiting();
    beneath.flush();
  }

  @Override
  public void commit(Map<TopicPartition, Long> changelogOffsets) {
    writeWaiting();
    beneath.commit(changelogOffsets);
  }

  @Override
  public Long committedOffset(TopicPartition partition) {
    return beneath.committedOffset(partition);
  }

  @Override
  @SuppressWarnings("deprecation")
  public boolean managesOffsets() {
    return beneath.managesOffsets();
  }

  @Override
  public long approximateNumUncommittedBytes() {
    return beneath.approximateNumUncommittedBytes();
  }

  @Override
  public void close() {
    waiting.clear();
    beneath.close();
  }

  @Override
  public boolean persistent() {
    return beneath.persistent();
  }

  @Override
  public boolean isOpen() {
    return beneath.isOpen();
  }

  @Override
  public Position getPosition() {
    return beneath.getPosition();
  }

  @Override
  public <R> QueryResult<R> query(Query<R> query, PositionBound bound, QueryConfig config) {
    return beneath.query(query, bound, config);
  }

  /** Builds the store beneath as configured (cache, changelog) and wraps it. */
  private static final class Builder<K, V> implements StoreBuilder<WrittenAtCommitStore<K, V>> {
    private final StoreBuilder<KeyValueStore<K, V>> beneath;

    Builder(StoreBuilder<KeyValueStore<K, V>> beneath) {
      this.beneath = beneath;
    }

    @Override
    public StoreBuilder<WrittenAtCommitStore<K, V>> withCachingEnabled() {
      beneath.withCachingEnabled();
      return this;
    }

    @Override
    public StoreBuilder<WrittenAtCommitStore<K, V>> withCachingDisabled() {
      beneath.withCachingDisabled();
      return this;
    }

    @Override
    public StoreBuilder<WrittenAtCommitStore<K, V>> withLoggingEnabled(Map<String, String> config) {
      beneath.withLoggingEnabled(config);
      return this;
    }

    @Override
    public StoreBuilder<WrittenAtCommitStore<K, V>> withLoggingDisabled() {
      beneath.withLoggingDisabled();
      return this;
    }

    @Override
    public WrittenAtCommitStore<K, V> build() {
      return new WrittenAtCommitStore<>(beneath.build());
    }

    @Override
    public Map<String, String> logConfig() {
      return beneath.logConfig();
    }

    @Override
    public boolean loggingEnabled() {
      return beneath.loggingEnabled();
    }

    @Override
    public String name() {
      return beneath.name();
    }
  }
}
