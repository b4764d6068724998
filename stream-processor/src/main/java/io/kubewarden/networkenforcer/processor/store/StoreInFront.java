package io.kubewarden.networkenforcer.processor.store;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.query.PositionBound;
import org.apache.kafka.streams.query.Query;
import org.apache.kafka.streams.query.QueryConfig;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.internals.CacheFlushListener;
import org.apache.kafka.streams.state.internals.CachedStateStore;

/**
 * A store in front of a changelogged store (the store beneath, with its serdes, changelog and maybe
 * Kafka's cache) that holds writes until Kafka Streams commits. It is a {@link CachedStateStore}:
 * Kafka Streams calls {@link #flushCache()} on every such store before it commits a task (on the
 * commit interval, on a requested commit, before a rebalance hands the task over, on a clean
 * close), and only then flushes the producer and commits the input offsets (in one transaction
 * under exactly-once). So what waits reaches the changelog in the same commit as the input it came
 * from; a crash loses only uncommitted work, which is read again. {@link #clearCache()} (a task
 * moving between active and standby) forgets what waits. The interface lives in an internal package
 * of Kafka Streams (its own caching stores implement it); {@code CatchUpTest} and {@code
 * FaultInjectionTest} fail if a version stops calling it.
 *
 * <p>Subclasses say how writes wait ({@link #writeWaiting}, {@link #forgetWaiting}) and how they
 * are read; everything else is the store beneath's.
 */
public abstract class StoreInFront<K, V> implements KeyValueStore<K, V>, CachedStateStore<K, V> {
  protected final KeyValueStore<K, V> beneath;

  /** Whether the store beneath has a changelog; one made by hand is taken to have one. */
  private boolean changelogged = true;

  protected StoreInFront(KeyValueStore<K, V> beneath) {
    this.beneath = beneath;
  }

  /**
   * False when the store was built without a changelog: nothing written beneath outlives the
   * process.
   */
  protected final boolean changelogged() {
    return changelogged;
  }

  /**
   * Writes what waits to the store beneath (on the thread that commits, which is the one that
   * wrote).
   */
  protected abstract void writeWaiting();

  /** Forgets what waits: reads go to the store beneath again. */
  protected abstract void forgetWaiting();

  @Override
  public String name() {
    return beneath.name();
  }

  @Override
  public void init(StateStoreContext context, StateStore root) {
    forgetWaiting();
    beneath.init(context, root);
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

  /** Writes what waits, then flushes the cache beneath, if there is one. */
  @Override
  public void flushCache() {
    writeWaiting();
    if (beneath instanceof CachedStateStore<?, ?> cached) {
      cached.flushCache();
    }
  }

  /** Forgets what was not committed (Kafka Streams' contract), here and in the cache beneath. */
  @Override
  public void clearCache() {
    forgetWaiting();
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

  /**
   * Kafka Streams 4 commits a store through {@link #commit}; a caller of the older flush gets the
   * same.
   */
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
    forgetWaiting();
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

  /**
   * Builds the store beneath as configured (changelog; Kafka's cache too unless the store in front
   * is its own cache) and puts {@code front} on it.
   */
  protected static final class Builder<K, V, S extends StoreInFront<K, V>>
      implements StoreBuilder<S> {
    private final StoreBuilder<KeyValueStore<K, V>> beneath;
    private final Function<KeyValueStore<K, V>, S> front;
    private final boolean ownCache;

    /**
     * @param ownCache the store in front replaces Kafka's cache: the one beneath stays off
     */
    public Builder(
        StoreBuilder<KeyValueStore<K, V>> beneath,
        Function<KeyValueStore<K, V>, S> front,
        boolean ownCache) {
      this.beneath = ownCache ? beneath.withCachingDisabled() : beneath;
      this.front = front;
      this.ownCache = ownCache;
    }

    @Override
    public StoreBuilder<S> withCachingEnabled() {
      if (!ownCache) {
        beneath.withCachingEnabled();
      }
      return this;
    }

    @Override
    public StoreBuilder<S> withCachingDisabled() {
      if (!ownCache) {
        beneath.withCachingDisabled();
      }
      return this;
    }

    @Override
    public StoreBuilder<S> withLoggingEnabled(Map<String, String> config) {
      beneath.withLoggingEnabled(config);
      return this;
    }

    @Override
    public StoreBuilder<S> withLoggingDisabled() {
      beneath.withLoggingDisabled();
      return this;
    }

    @Override
    public S build() {
      S store = front.apply(beneath.build());
      ((StoreInFront<K, V>) store).changelogged = beneath.loggingEnabled();
      return store;
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
