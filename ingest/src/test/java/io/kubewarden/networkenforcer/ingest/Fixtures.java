package io.kubewarden.networkenforcer.ingest;

import io.kubewarden.networkenforcer.ingest.resolution.ClusterIndex;
import io.kubewarden.networkenforcer.ingest.resolution.ClusterStateFile;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The shared fixtures ({@code shared/fixtures/basic}): found by walking up from the working
 * directory, so they are found in a worktree, in the main checkout and in CI alike.
 */
public final class Fixtures {
  private Fixtures() {}

  public static Path basic() {
    String override = System.getenv("NE_FIXTURES_DIR");
    if (override != null) {
      return Path.of(override, "basic");
    }
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      Path candidate = dir.resolve("shared/fixtures/basic");
      if (Files.isDirectory(candidate)) {
        return candidate;
      }
    }
    throw new IllegalStateException("shared/fixtures/basic not found above " + Path.of("").toAbsolutePath()
        + "; set NE_FIXTURES_DIR to the fixtures folder");
  }

  public static Path file(String name) {
    return basic().resolve(name);
  }

  public static ClusterIndex clusterState() {
    return ClusterStateFile.load(file("cluster-state.json"));
  }
}
