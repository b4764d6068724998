package io.kubewarden.networkenforcer.cli.learn;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.kubewarden.networkenforcer.common.config.ConfigException;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Timeout;

/**
 * The {@code --cluster-state} file of learn and simulate, any bytes: a cluster, or a {@link
 * ConfigException} that names the file and no Java class.
 */
class ClusterStateFileFuzzTest {
  private static final Path FILE = tempFile();

  @FuzzTest(maxDuration = "5s")
  @Timeout(10)
  void clusterStates(byte[] input) throws IOException {
    Files.write(FILE, input);
    try {
      assertThat(ClusterStates.load(FILE, new PrintWriter(new StringWriter()))).isNotNull();
    } catch (ConfigException e) {
      assertThat(e.getMessage()).contains(FILE.getFileName().toString());
      // Names of the program's insides, unless the file itself holds them.
      String text = new String(input, StandardCharsets.ISO_8859_1);
      for (String inside : new String[] {"io.fabric8", "com.fasterxml", "Exception"}) {
        if (!text.contains(inside)) {
          assertThat(e.getMessage()).doesNotContain(inside);
        }
      }
    }
  }

  private static Path tempFile() {
    try {
      Path file = Files.createTempFile("fuzz-cluster-state", ".json");
      file.toFile().deleteOnExit();
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
