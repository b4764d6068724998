package io.kubewarden.networkenforcer.cli.learn;

import io.kubewarden.networkenforcer.ingest.publishing.DeadLetterSink;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Keeps the lines of a capture that could not be read where the user finds them after the run (the
 * embedded broker's dead-letter topic is gone then): {@code <output dir>/unreadable-lines.txt},
 * each line preceded by a {@code # line N: reason} comment. The file is created only when a line is
 * unreadable.
 */
final class UnreadableLinesFile implements DeadLetterSink, AutoCloseable {
  static final String NAME = "unreadable-lines.txt";

  private final Path file;
  private BufferedWriter writer;
  private long count;

  UnreadableLinesFile(Path outputDir) {
    this.file = outputDir.resolve(NAME);
  }

  @Override
  public synchronized void deadLetter(
      String source, String reason, byte[] payload, Throwable error) {
    try {
      if (writer == null) {
        Files.createDirectories(file.getParent());
        writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
      }
      writer.write("# " + reason.replace('\n', ' '));
      writer.newLine();
      writer.write(new String(payload, StandardCharsets.UTF_8));
      writer.newLine();
      count++;
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot write " + file + ": " + e.getMessage() + "; choose a writable --output-dir", e);
    }
  }

  /** The file, when at least one line was written to it. */
  synchronized Optional<Path> written() {
    return count == 0 ? Optional.empty() : Optional.of(file);
  }

  @Override
  public synchronized void close() {
    if (writer != null) {
      try {
        writer.close();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
      }
    }
  }
}
