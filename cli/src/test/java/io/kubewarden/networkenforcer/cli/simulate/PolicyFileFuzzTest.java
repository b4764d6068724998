package io.kubewarden.networkenforcer.cli.simulate;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.kubewarden.networkenforcer.common.config.ConfigException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Timeout;

/**
 * simulate's {@code --policy} file, any bytes: candidate policies, or a {@link ConfigException}
 * that says what to fix, with no Java class name.
 */
class PolicyFileFuzzTest {
  private static final Path FILE = tempFile();

  @FuzzTest(maxDuration = "5s")
  @Timeout(10)
  void policyFiles(byte[] input) throws IOException {
    Files.write(FILE, input);
    try {
      assertThat(PolicyFile.load(FILE)).isNotEmpty();
    } catch (ConfigException e) {
      // Names of the program's insides, unless the file itself holds them (a policy may be named
      // so).
      String text = new String(input, StandardCharsets.ISO_8859_1);
      for (String inside : new String[] {"io.kubewarden", "java.", "com.fasterxml", "Exception"}) {
        if (!text.contains(inside)) {
          assertThat(e.getMessage()).doesNotContain(inside);
        }
      }
    }
  }

  private static Path tempFile() {
    try {
      Path file = Files.createTempFile("fuzz-policy", ".yaml");
      file.toFile().deleteOnExit();
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
