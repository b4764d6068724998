package io.kubewarden.networkenforcer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.testing.PackageLayers;
import org.junit.jupiter.api.Test;

/** The allowed direction between this module's packages, lowest layer first (no cycles). */
class PackageDirectionsTest {

  @Test
  void packagesOnlyUseLowerLayers() {
    PackageLayers layers =
        PackageLayers.of("io.kubewarden.networkenforcer.cli")
            .layer("config", "management", "version")
            .layer("ranges")
            .layer("learn", "services")
            .layer("history", "standalone")
            .layer("diff", "replay", "simulate")
            .layer("");

    assertThat(layers.violations()).isEmpty();
  }
}
