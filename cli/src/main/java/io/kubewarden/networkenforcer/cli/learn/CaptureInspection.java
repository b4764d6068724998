package io.kubewarden.networkenforcer.cli.learn;

import io.kubewarden.networkenforcer.ingest.file.CaptureFormat;
import io.kubewarden.networkenforcer.ingest.file.CaptureInput;
import io.kubewarden.networkenforcer.ingest.file.UnreadableCaptureException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Looks at a capture before anything starts: it must exist (a file, or a directory of rotated
 * files) and hold at least one record in a readable encoding, and its format is the one of the
 * first recognizable line. A {@code --format} that contradicts the content is an error.
 */
public final class CaptureInspection {
  private CaptureInspection() {}

  public static CaptureFormat inspect(Path capture, Optional<CaptureFormat> given) {
    if (!Files.exists(capture)) {
      throw new LearnInputException("capture file " + capture + " does not exist; fix --input");
    }
    if (!Files.isReadable(capture)) {
      throw new LearnInputException(
          "capture file " + capture + " is not readable; fix its permissions");
    }
    boolean anyLine = false;
    long number = 0;
    try (BufferedReader reader =
        new TruncatedCapture(CaptureInput.open(capture), capture.toString())) {
      String line;
      while ((line = reader.readLine()) != null) {
        number++;
        if (line.isBlank()) {
          continue;
        }
        anyLine = true;
        Optional<CaptureFormat> detected = CaptureFormat.detect(line);
        if (detected.isPresent()) {
          if (given.isPresent() && given.get() != detected.get()) {
            throw new LearnInputException(
                "--format "
                    + given.get().source()
                    + " does not match the capture: line "
                    + number
                    + " of "
                    + capture
                    + " is a "
                    + detected.get().source()
                    + " record; pass --format "
                    + detected.get().source()
                    + " or leave --format out");
          }
          return detected.get();
        }
      }
    } catch (UnreadableCaptureException e) {
      throw new LearnInputException(e.getMessage());
    } catch (IOException | UncheckedIOException e) {
      throw new LearnInputException(
          "cannot read capture file "
              + capture
              + ": "
              + e.getMessage()
              + " (it must be text, one record per line; gzip, UTF-8 and UTF-16 with a byte-order mark are read)");
    }
    if (!anyLine) {
      throw new LearnInputException(
          "capture file "
              + capture
              + " is empty; record flows first, for example "
              + "'hubble observe -o jsonpb --last 10000 > "
              + capture.getFileName()
              + "'");
    }
    if (given.isPresent()) {
      // Nothing recognizable: every line will be reported as unreadable.
      return given.get();
    }
    throw new LearnInputException(
        "no line of "
            + capture
            + " is a Hubble (hubble observe -o jsonpb), Goldmane "
            + "(FlowResult or Flow JSON) or ztunnel (text or JSON log) record; check the file, or name its format with "
            + "--format hubble|goldmane|ztunnel");
  }
}
