package io.kubewarden.networkenforcer.cli.learn;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

class OutOfMemoryAdviceTest {

  @Test
  void runningOutOfHeapOnAnyThreadSaysHowToGiveItMore() {
    OutOfMemoryError oom = new OutOfMemoryError("GC overhead limit exceeded");
    // As a failed decode arrives from the decoding pool.
    RuntimeException advice = OutOfMemoryAdvice.whenOutOfMemory(new CompletionException(oom));

    assertThat(advice)
        .hasCause(oom)
        .hasMessageContaining("learn ran out of memory (GC overhead limit exceeded)")
        .hasMessageContaining("NE_JAVA_OPTS='-Xmx");
    assertThat(OutOfMemoryAdvice.message(512L * 1024 * 1024, oom))
        .contains("with 512 MiB of usable heap")
        .contains("NE_JAVA_OPTS='-Xmx1024m -XX:+UseParallelGC'");
    assertThat(OutOfMemoryAdvice.message(2048L * 1024 * 1024, oom))
        .contains("NE_JAVA_OPTS='-Xmx4096m");
  }

  @Test
  void anErrorWithoutAMessageSaysNoNull() {
    assertThat(OutOfMemoryAdvice.message(512L * 1024 * 1024, new OutOfMemoryError()))
        .startsWith("learn ran out of memory with 512 MiB of usable heap")
        .doesNotContain("null");
  }

  @Test
  void otherFailuresPassUnchanged() {
    RuntimeException failure =
        new UncheckedIOException("cannot read capture", new IOException("gone"));
    assertThat(OutOfMemoryAdvice.whenOutOfMemory(failure)).isSameAs(failure);
  }
}
