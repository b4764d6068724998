package io.kubewarden.networkenforcer.common;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.testing.PackageLayers;
import org.junit.jupiter.api.Test;

/** The allowed direction between this module's packages, lowest layer first (no cycles). */
class PackageDirectionsTest {

  @Test
  void packagesOnlyUseLowerLayers() {
    PackageLayers layers =
        PackageLayers.of("io.kubewarden.networkenforcer.common")
            .layer("codec", "control", "http", "json", "lifecycle", "retry", "tls", "workload")
            .layer("policy")
            .layer("flow")
            .layer("crd", "loss")
            .layer("evaluation", "proposal", "violation")
            .layer("report", "topics")
            .layer("config");

    assertThat(layers.violations()).isEmpty();
  }
}
