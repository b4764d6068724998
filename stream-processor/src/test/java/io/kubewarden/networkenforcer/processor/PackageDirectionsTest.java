package io.kubewarden.networkenforcer.processor;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.testing.PackageLayers;
import org.junit.jupiter.api.Test;

/** The allowed direction between this module's packages, lowest layer first (no cycles). */
class PackageDirectionsTest {

  @Test
  void packagesOnlyUseLowerLayers() {
    PackageLayers layers =
        PackageLayers.of("io.kubewarden.networkenforcer.processor")
            .layer("metrics", "rocksdb", "store", "violations")
            .layer("config", "decoding", "evaluation")
            .layer("learning", "observation")
            .layer("topology")
            .layer("progress")
            .layer("app");

    assertThat(layers.violations()).isEmpty();
  }
}
