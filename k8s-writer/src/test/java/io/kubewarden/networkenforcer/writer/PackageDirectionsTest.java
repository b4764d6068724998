package io.kubewarden.networkenforcer.writer;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.testing.PackageLayers;
import org.junit.jupiter.api.Test;

/**
 * The allowed direction between the writer's packages, lowest layer first: a reader can start at
 * the API client and never meet a cycle (k8s-writer README, "Shape").
 */
class PackageDirectionsTest {

  @Test
  void packagesOnlyUseLowerLayers() {
    PackageLayers layers =
        PackageLayers.of("io.kubewarden.networkenforcer.writer")
            // The guarded API client and its refusals, caches, dead letters, records, conditions,
            // the Kafka offsets records pin.
            .layer("apply", "cache", "deadletter", "observations", "conditions", "offsets")
            // The keyed queue and its controllers.
            .layer("reconcile")
            // Steps of a reconcile.
            .layer("rendering", "telemetry")
            .layer("status")
            // Reconcilers: proposals reset learning through the policies topic, never the other
            // way.
            .layer("policies", "promotion")
            .layer("proposals")
            // Informer events as keys on a queue, the live view, the lease.
            .layer("view", "leadership", "events")
            // Wiring: WriterService, LeaderSession, WriterConfig.
            .layer("");

    assertThat(layers.violations()).isEmpty();
  }
}
