package io.kubewarden.networkenforcer.cli.learn;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * {@code --input -}: standard input copied to a temporary file first, because a capture is read
 * more than once (format detection, the cluster state it implies, the pipeline). The file goes when
 * the run ends.
 */
public final class StdinCapture implements AutoCloseable {
  private final Path file;

  private StdinCapture(Path file) {
    this.file = file;
  }

  public static StdinCapture spool(InputStream in) {
    try {
      Path file = Files.createTempFile("network-enforcer-stdin", ".capture");
      Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
      return new StdinCapture(file);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot keep standard input in a temporary file: " + e.getMessage(), e);
    }
  }

  public Path file() {
    return file;
  }

  @Override
  public void close() {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      // A temporary file; the OS cleans up.
    }
  }
}
