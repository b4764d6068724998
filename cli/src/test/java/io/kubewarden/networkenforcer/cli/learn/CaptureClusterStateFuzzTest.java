package io.kubewarden.networkenforcer.cli.learn;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.kubewarden.networkenforcer.ingest.file.CaptureFormat;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Timeout;

/**
 * The cluster state {@code learn} derives from a capture file's bytes (any compression or encoding
 * the capture reader recognizes, any lines): a cluster, or a {@link LearnInputException} or {@link
 * UncheckedIOException} whose message names the file's problem.
 */
class CaptureClusterStateFuzzTest {
  private static final Path CAPTURE = tempCapture();

  @FuzzTest(maxDuration = "5s")
  @Timeout(10)
  void derivedClusters(byte[] input) throws IOException {
    Files.write(CAPTURE, input);
    for (CaptureFormat format :
        new CaptureFormat[] {CaptureFormat.HUBBLE, CaptureFormat.GOLDMANE}) {
      try {
        assertThat(CaptureClusterState.derive(CAPTURE, format)).isNotNull();
      } catch (LearnInputException | UncheckedIOException e) {
        assertThat(e.getMessage()).contains(CAPTURE.getFileName().toString());
      }
    }
  }

  private static Path tempCapture() {
    try {
      Path file = Files.createTempFile("fuzz-capture", ".jsonl");
      file.toFile().deleteOnExit();
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
