package io.kubewarden.networkenforcer.processor.rocksdb;

import java.util.Map;
import org.apache.kafka.streams.state.RocksDBConfigSetter;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Cache;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.WriteBufferManager;

/**
 * Bounds the off-heap memory of every RocksDB store in this JVM: all stores share one block cache,
 * and their memtables are charged to that same cache through one write buffer manager. Without it
 * each store (times each partition) takes its own cache and memtables, and memory grows with the
 * partition count instead of staying at the configured figure.
 */
public final class BoundedMemoryRocksDbConfig implements RocksDBConfigSetter {

  /** Streams configuration key carrying the total budget in bytes to this setter. */
  public static final String MEMORY_CONFIG = "network-enforcer.rocksdb.memory.bytes";

  public static final long DEFAULT_MEMORY_BYTES = 64L * 1024 * 1024;

  /** Memtables may take at most this share of the total. */
  private static final double WRITE_BUFFER_SHARE = 0.25;

  /** Index and filter blocks get a priority pool so that data blocks cannot evict them. */
  private static final double HIGH_PRIORITY_SHARE = 0.1;

  private static final long MEMTABLE_BYTES = 8L * 1024 * 1024;

  private static Cache cache;
  private static WriteBufferManager writeBufferManager;
  private static long configuredBytes;

  private static synchronized void initOnce(long totalBytes) {
    if (cache != null) {
      return;
    }
    configuredBytes = totalBytes;
    cache = new LRUCache(totalBytes, -1, false, HIGH_PRIORITY_SHARE);
    writeBufferManager = new WriteBufferManager((long) (totalBytes * WRITE_BUFFER_SHARE), cache);
  }

  /** The bound in force in this JVM (the first configuration wins), 0 before any store opened. */
  public static synchronized long configuredBytes() {
    return configuredBytes;
  }

  @Override
  public void setConfig(String storeName, Options options, Map<String, Object> configs) {
    initOnce(memoryBytes(configs));
    BlockBasedTableConfig table = (BlockBasedTableConfig) options.tableFormatConfig();
    table.setBlockCache(cache);
    table.setCacheIndexAndFilterBlocks(true);
    table.setCacheIndexAndFilterBlocksWithHighPriority(true);
    table.setPinTopLevelIndexAndFilter(true);
    options.setWriteBufferManager(writeBufferManager);
    options.setWriteBufferSize(MEMTABLE_BYTES);
    options.setMaxWriteBufferNumber(2);
    options.setTableFormatConfig(table);
  }

  private static long memoryBytes(Map<String, Object> configs) {
    Object v = configs.get(MEMORY_CONFIG);
    return v == null ? DEFAULT_MEMORY_BYTES : Long.parseLong(v.toString());
  }

  @Override
  public void close(String storeName, Options options) {
    // The cache and the write buffer manager are shared by every store of the JVM: never closed
    // here.
  }
}
