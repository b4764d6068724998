package io.kubewarden.networkenforcer.testing;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The checkout's root directory, found upwards from the working directory (a module dir under
 * Maven).
 */
public final class RepositoryRoot {

  private RepositoryRoot() {}

  /**
   * The nearest ancestor holding {@code hack/tools} and a {@code pom.xml}; empty outside a
   * checkout.
   */
  public static Optional<Path> find() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (Files.isDirectory(dir.resolve("hack").resolve("tools"))
          && Files.isRegularFile(dir.resolve("pom.xml"))) {
        return Optional.of(dir);
      }
    }
    return Optional.empty();
  }
}
