package dev.weir.translation.streaming.state;

import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.Cache;
import org.rocksdb.IndexType;
import org.rocksdb.InfoLogLevel;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.WriteBufferManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The native memory every RocksDB partition in this JVM shares: one block cache, which also holds
 * index and filter blocks, and the write buffers (memtables) charged to it, so that the state's
 * memory is the size given by {@code --stateBackendMemoryMb}, whatever the number of keys,
 * partitions or steps. Made by the first partition opened in the JVM, kept for its life (the
 * cache is RocksDB's own native object, freed by the OS at exit).
 */
final class RocksDbResources {
  private static final Logger LOG = LoggerFactory.getLogger(RocksDbResources.class);
  /** Share of the memory that write buffers may take, as Spark's RocksDB state store does. */
  private static final double WRITE_BUFFER_SHARE = 0.5;
  private static RocksDbResources shared;

  private final long memoryBytes;
  private final Cache cache;
  private final WriteBufferManager writeBuffers;
  private final BloomFilter filter = new BloomFilter(10, false);

  private RocksDbResources(long memoryBytes) {
    this.memoryBytes = memoryBytes;
    // Few shards: an entry larger than its shard's share is not kept, and then every read loads
    // it again. 10% of the cache is kept for index and filter blocks.
    this.cache = new LRUCache(memoryBytes, 2, false, 0.1);
    this.writeBuffers = new WriteBufferManager((long) (memoryBytes * WRITE_BUFFER_SHARE), cache);
  }

  /** The JVM's resources; the first caller's size wins (all runs of one executor share them). */
  static synchronized RocksDbResources get(long memoryBytes) {
    if (shared == null) {
      RocksDB.loadLibrary();
      shared = new RocksDbResources(memoryBytes);
      LOG.info("RocksDB state: {} MB of native memory for block cache and write buffers in this JVM", memoryBytes >> 20);
    } else if (shared.memoryBytes != memoryBytes) {
      LOG.warn(
          "RocksDB state: this JVM already shares {} MB among its partitions; a run asking for {} MB uses that",
          shared.memoryBytes >> 20,
          memoryBytes >> 20);
    }
    return shared;
  }

  /** Options for one partition's instance, drawing on the shared memory; the caller closes them. */
  Options options() {
    BlockBasedTableConfig table =
        new BlockBasedTableConfig()
            .setBlockCache(cache)
            .setCacheIndexAndFilterBlocks(true)
            .setCacheIndexAndFilterBlocksWithHighPriority(true)
            .setPinL0FilterAndIndexBlocksInCache(true)
            .setFilterPolicy(filter)
            // Index and filter in partitions of a few KB, loaded as reads need them: a whole
            // filter is megabytes for an SST file of millions of keys, too big to stay cached.
            .setIndexType(IndexType.kTwoLevelIndexSearch)
            .setPartitionFilters(true)
            .setMetadataBlockSize(4096)
            .setBlockSize(16 * 1024);
    return new Options()
        .setCreateIfMissing(true)
        .setTableFormatConfig(table)
        .setWriteBufferManager(writeBuffers)
        // A partition's memtable is flushed at most at a quarter of the write buffers' share
        // (and at every commit with a checkpoint dir).
        .setWriteBufferSize(Math.max(1 << 20, Math.min(64L << 20, (long) (memoryBytes * WRITE_BUFFER_SHARE / 4))))
        .setMaxWriteBufferNumber(2)
        .setMaxBackgroundJobs(2)
        // Each commit's checkpoint copies the MANIFEST; rolling it keeps that small.
        .setMaxManifestFileSize(1 << 20)
        .setInfoLogLevel(InfoLogLevel.WARN_LEVEL)
        .setKeepLogFileNum(2)
        .setAvoidFlushDuringShutdown(true);
  }
}
