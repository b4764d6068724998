package io.kubewarden.networkenforcer.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.testing.PackageLayers;
import org.junit.jupiter.api.Test;

/** The allowed direction between this module's packages, lowest layer first (no cycles). */
class PackageDirectionsTest {

  @Test
  void packagesOnlyUseLowerLayers() {
    PackageLayers layers =
        PackageLayers.of("io.kubewarden.networkenforcer.ingest")
            .layer("proto", "parsing")
            .layer("resolution", "publishing")
            .layer("transport", "dumper")
            .layer("hubble", "goldmane", "ztunnel")
            .layer("file")
            .layer("");

    assertThat(layers.violations()).isEmpty();
  }
}
