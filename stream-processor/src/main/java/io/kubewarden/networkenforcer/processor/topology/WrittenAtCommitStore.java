package io.kubewarden.networkenforcer.processor.topology;

import io.kubewarden.networkenforcer.processor.store.StoreInFront;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;

/**
 * A typed store whose writes wait, as objects, until Kafka Streams commits: only then is each
 * changed value serialized, once, into the store beneath (Kafka's record cache, changelog and
 * RocksDB). Why this is safe: {@link StoreInFront}.
 *
 * <p>Why: the learned allow-list of a busy target changes with every new peer. When 10,000 new
 * workloads call the cluster DNS, writing its whole allow-list on each change serialized 10,000
 * peers 10,000 times (half of the stream thread's time); now it is serialized once per commit.
 * Values are held as given: a caller that changes one in place puts it again (the learner does),
 * and the commit writes it as it is then.
 *
 * <p>Reads on the stream thread see what waits. Iterations on it write what waits first (ordered
 * ranges come from the store beneath). Interactive queries run on other threads: they read the
 * store beneath as of the last commit and never touch what waits.
 */
public final class WrittenAtCommitStore<K, V> extends StoreInFront<K, V> {
  /** Values written since the last commit, in no order; a null value is a delete. */
  private final Map<K, V> waiting = new HashMap<>();

  /** The stream thread that writes; only it reads or writes {@link #waiting}. */
  private volatile Thread writer;

  WrittenAtCommitStore(KeyValueStore<K, V> beneath) {
    super(beneath);
  }

  /** The store {@code beneath}, with its serdes, cache and changelog, written at each commit. */
  public static <K, V> StoreBuilder<WrittenAtCommitStore<K, V>> builder(
      StoreBuilder<KeyValueStore<K, V>> beneath) {
    return new Builder<>(beneath, WrittenAtCommitStore::new, false);
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
  public V delete(K key) {
    V old = get(key);
    put(key, null);
    return old;
  }

  /**
   * Before an iteration: what waits, when the caller is the stream thread (not an interactive
   * query).
   */
  private void writeWaitingOnStreamThread() {
    if (Thread.currentThread() == writer) {
      writeWaiting();
    }
  }

  /** Serializes each waiting value once, into the store beneath. */
  @Override
  protected void writeWaiting() {
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
  protected void forgetWaiting() {
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
  public <PS extends Serializer<P>, P> KeyValueIterator<K, V> prefixScan(
      P prefix, PS prefixKeySerializer) {
    writeWaitingOnStreamThread();
    return beneath.prefixScan(prefix, prefixKeySerializer);
  }

  @Override
  public long approximateNumEntries() {
    return beneath.approximateNumEntries();
  }
}
