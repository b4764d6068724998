package io.kubewarden.networkenforcer.common.testing;

import io.fabric8.crdv2.generator.CRDGenerator;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicy;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CRDs generated from the {@code common.crd} classes with fabric8's CRD generator, for a checkout
 * without the chart. Kept apart so only this fallback needs the generator on the class path.
 */
final class GeneratedCrds {

  private GeneratedCrds() {}

  /** Generates the v1 CRDs into a new temporary directory and returns it. */
  static Path generate() {
    try {
      Path dir = Files.createTempDirectory("ne-crds-");
      dir.toFile().deleteOnExit();
      new CRDGenerator()
          .customResourceClasses(WorkloadNetworkPolicy.class, WorkloadNetworkPolicyProposal.class)
          .forCRDVersions("v1")
          .inOutputDir(dir.toFile())
          .generate();
      try (var files = Files.list(dir)) {
        files.forEach(f -> f.toFile().deleteOnExit());
      }
      return dir;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot generate CRDs", e);
    }
  }
}
