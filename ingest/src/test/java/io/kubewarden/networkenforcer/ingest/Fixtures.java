package io.kubewarden.networkenforcer.ingest;

import io.kubewarden.networkenforcer.ingest.resolution.ClusterIndex;
import io.kubewarden.networkenforcer.ingest.resolution.ClusterStateFile;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The basic fixtures: the repository's own copy in {@code samples/basic} (the same files as the
 * team's {@code shared/fixtures/basic}), found by walking up from the working directory so a clean
 * clone needs nothing beside it. {@code NE_FIXTURES_DIR} points at another fixtures folder.
 */
public final class Fixtures {
  private Fixtures() {}

  public static Path basic() {
    String override = System.getenv("NE_FIXTURES_DIR");
    if (override != null) {
      return Path.of(override, "basic");
    }
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      for (String relative : new String[] {"samples/basic", "shared/fixtures/basic"}) {
        Path candidate = dir.resolve(relative);
        if (Files.isRegularFile(candidate.resolve("cluster-state.json"))) {
          return candidate;
        }
      }
    }
    throw new IllegalStateException(
        "samples/basic (or shared/fixtures/basic) not found above "
            + Path.of("").toAbsolutePath()
            + "; set NE_FIXTURES_DIR to the fixtures folder");
  }

  public static Path file(String name) {
    return basic().resolve(name);
  }

  /**
   * {@code samples/captures}: real records from public repositories and multi-node captures (see
   * its README).
   */
  public static Path capture(String name) {
    return basic().getParent().resolve("captures").resolve(name);
  }

  public static ClusterIndex clusterState() {
    return ClusterStateFile.load(file("cluster-state.json"));
  }
}
