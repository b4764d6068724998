package io.kubewarden.networkenforcer.processor.rocksdb;

import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.CLIENT;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.SERVER;
import static io.kubewarden.networkenforcer.processor.fixtures.BasicFixture.forwarded;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.processor.config.ProcessorConfig;
import io.kubewarden.networkenforcer.processor.fixtures.ProcessorTestDriver;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Options;

class BoundedMemoryRocksDbConfigTest {

  @Test
  void theTopologysStoresOpenThroughTheBoundedConfig() {
    try (var driver = ProcessorTestDriver.kubernetes()) {
      driver.pipe(
          forwarded(
              Provider.cilium,
              ProcessorTestDriver.START,
              CLIENT,
              SERVER,
              Protocol.TCP,
              80,
              1,
              Reporter.SOURCE));

      assertThat(driver.latestProposals()).isNotEmpty();
      assertThat(BoundedMemoryRocksDbConfig.configuredBytes())
          .isEqualTo(ProcessorConfig.DEFAULT_ROCKSDB_MEMORY_BYTES);
    }
  }

  @Test
  void everyStoreSharesTheCacheAndChargesMemtablesToIt() {
    var setter = new BoundedMemoryRocksDbConfig();
    try (Options a = new Options();
        Options b = new Options()) {
      a.setTableFormatConfig(new BlockBasedTableConfig());
      b.setTableFormatConfig(new BlockBasedTableConfig());
      setter.setConfig("learned-allow-lists", a, Map.of());
      setter.setConfig("known-policies", b, Map.of());

      assertThat(a.writeBufferSize()).isEqualTo(8L * 1024 * 1024);
      assertThat(a.maxWriteBufferNumber()).isEqualTo(2);
      assertThat(((BlockBasedTableConfig) a.tableFormatConfig()).cacheIndexAndFilterBlocks())
          .isTrue();
      assertThat(
              ((BlockBasedTableConfig) b.tableFormatConfig())
                  .cacheIndexAndFilterBlocksWithHighPriority())
          .isTrue();
      setter.close("learned-allow-lists", a);
      setter.close("known-policies", b);
    }
  }
}
