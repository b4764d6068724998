package io.kubewarden.networkenforcer.cli.learn;

import java.io.BufferedReader;
import java.io.EOFException;
import java.io.IOException;
import java.util.Optional;

/**
 * The lines of a capture up to where its compressed stream breaks off: a {@code .gz} cut short (a
 * copy interrupted, a disk that filled up) ends the lines there instead of failing the whole run,
 * so everything read before the break is learned and the summary says where it broke.
 */
final class TruncatedCapture extends BufferedReader {
  private final BufferedReader lines;
  private final String name;
  private long read;
  private String broke;

  TruncatedCapture(BufferedReader lines, String name) {
    super(lines, 1);
    this.lines = lines;
    this.name = name;
  }

  @Override
  public String readLine() throws IOException {
    if (broke != null) {
      return null;
    }
    try {
      String line = lines.readLine();
      if (line != null) {
        read++;
      }
      return line;
    } catch (EOFException e) {
      broke =
          "capture "
              + name
              + " breaks off after line "
              + read
              + " ("
              + e.getMessage()
              + "): learned from the "
              + read
              + " lines before the break; whatever followed is missing, so check the file or copy it again";
      return null;
    }
  }

  /** Where the capture broke off, when it did. */
  Optional<String> broke() {
    return Optional.ofNullable(broke);
  }

  @Override
  public void close() throws IOException {
    lines.close();
  }
}
