package io.kubewarden.networkenforcer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code ./network-enforcer} launcher: without the jar it says how to build it; with a jar it
 * runs it with the arguments unchanged. (The build runs the README's learn command on the real jar
 * after packaging, see the exec plugin in cli/pom.xml.)
 */
class LauncherScriptTest {
  private static final Path SCRIPT = CliRun.repoRoot().resolve("network-enforcer");

  /**
   * The heap of learn: up to half the memory, grown only when collecting takes over a fifth of the
   * time.
   */
  private static final String[] LEARN_HEAP = {
    "-Xms256m", "-XX:MaxRAMPercentage=50", "-XX:+UseParallelGC", "-XX:GCTimeRatio=4", "-Xmn200m"
  };

  /** The same where the memory is under 1 GiB: no young generation of a fixed size. */
  private static final String[] SMALL_MEMORY_HEAP = {
    "-Xms256m", "-XX:MaxRAMPercentage=50", "-XX:+UseParallelGC", "-XX:GCTimeRatio=4"
  };

  /** What the launcher adds for a capture of 16 MiB or more, or one it cannot size. */
  private static final String[] LARGE_CAPTURE_JIT = {
    "-XX:MaxInlineLevel=6",
    "-XX:InlineSmallCode=1000",
    "-XX:MaxNodeLimit=20000",
    "-XX:NodeLimitFudgeFactor=1000"
  };

  @TempDir Path dir;

  @Test
  void aMissingJarIsExplainedWithTheBuildCommand() throws Exception {
    ProcessBuilder pb =
        new ProcessBuilder("bash", SCRIPT.toString(), "learn", "--help").redirectErrorStream(true);
    pb.environment().put("NE_JAR", dir.resolve("missing.jar").toString());
    Process missing = pb.start();
    assertThat(missing.waitFor(30, TimeUnit.SECONDS)).isTrue();
    String out = new String(missing.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(missing.exitValue()).isEqualTo(2);
    assertThat(out).contains("missing.jar is missing").contains("./mvnw -B -q -DskipTests package");
  }

  @Test
  void itRunsTheJarWithTheArgumentsUnchanged() throws Exception {
    Path jar = Files.createFile(dir.resolve("network-enforcer.jar"));
    // learn gets its heap settings by default; the arguments follow the jar unchanged.
    assertThat(launch(fakeJava(), jar, Map.of("NE_CDS", "0")))
        .containsExactlyElementsOf(
            args(
                LEARN_HEAP,
                LARGE_CAPTURE_JIT,
                "-jar",
                jar.toString(),
                "learn",
                "--input",
                "a b.jsonl"));
  }

  @Test
  void aSmallCaptureRunsOnTheQuickCompilerOnlyALargeOneWithShallowerInlining() throws Exception {
    Path jar = Files.createFile(dir.resolve("network-enforcer.jar"));
    Path small = Files.writeString(dir.resolve("small.jsonl"), "{}\n");
    assertThat(launch(fakeJava(), jar, Map.of("NE_CDS", "0"), small.toString()))
        .containsExactlyElementsOf(
            args(
                LEARN_HEAP,
                new String[] {"-XX:TieredStopAtLevel=1"},
                "-jar",
                jar.toString(),
                "learn",
                "--input",
                small.toString()));

    // 16 MiB and more (sparse: the size is what counts).
    Path large = dir.resolve("large.jsonl");
    try (RandomAccessFile file = new RandomAccessFile(large.toFile(), "rw")) {
      file.setLength(16L * 1024 * 1024);
    }
    List<String> args = launch(fakeJava(), jar, Map.of("NE_CDS", "0"), large.toString());
    assertThat(args)
        .containsSubsequence(LARGE_CAPTURE_JIT)
        .doesNotContain("-XX:TieredStopAtLevel=1");
  }

  @Test
  void theYoungGenerationIsFixedOnlyWhereTheMachineOrItsContainerHasAGibibyte() throws Exception {
    Path jar = Files.createFile(dir.resolve("network-enforcer.jar"));
    List<String> rest = List.of("-jar", jar.toString(), "learn", "--input", "a b.jsonl");
    // 768 MiB of memory: the heap may grow to 384 MiB, too little to give 200 of it to new objects.
    Path smallMachine =
        Files.writeString(
            dir.resolve("meminfo-small"),
            "MemTotal:         786432 kB\n" + "MemFree:          700000 kB\n");
    Path noLimits = Files.createDirectory(dir.resolve("no-cgroup"));
    assertThat(
            launch(
                fakeJava(),
                jar,
                Map.of(
                    "NE_CDS",
                    "0",
                    "NE_MEMINFO",
                    smallMachine.toString(),
                    "NE_CGROUP_ROOT",
                    noLimits.toString())))
        .containsExactlyElementsOf(
            args(SMALL_MEMORY_HEAP, LARGE_CAPTURE_JIT, rest.toArray(String[]::new)));

    // A large machine, but a container limit of 512 MiB (cgroup v2, then v1): the limit counts.
    Path v2 = Files.createDirectory(dir.resolve("cgroup-v2"));
    Files.writeString(v2.resolve("memory.max"), "536870912\n");
    Path v1 = Files.createDirectories(dir.resolve("cgroup-v1").resolve("memory"));
    Files.writeString(v1.resolve("memory.limit_in_bytes"), "536870912\n");
    for (Path root : List.of(v2, v1.getParent())) {
      assertThat(
              launch(
                  fakeJava(),
                  jar,
                  Map.of(
                      "NE_CDS",
                      "0",
                      "NE_MEMINFO",
                      largeMachine().toString(),
                      "NE_CGROUP_ROOT",
                      root.toString())))
          .as(root.toString())
          .doesNotContain("-Xmn200m");
    }

    // No limit ("max", or v1's largest number): the machine's 8 GiB count.
    Files.writeString(v2.resolve("memory.max"), "max\n");
    Files.writeString(v1.resolve("memory.limit_in_bytes"), "9223372036854771712\n");
    for (Path root : List.of(v2, v1.getParent())) {
      assertThat(
              launch(
                  fakeJava(),
                  jar,
                  Map.of(
                      "NE_CDS",
                      "0",
                      "NE_MEMINFO",
                      largeMachine().toString(),
                      "NE_CGROUP_ROOT",
                      root.toString())))
          .as(root.toString())
          .containsExactlyElementsOf(
              args(LEARN_HEAP, LARGE_CAPTURE_JIT, rest.toArray(String[]::new)));
    }
  }

  @Test
  void aJarNamedRelativelyIsHandedToTheJvmByItsAbsolutePath() throws Exception {
    // A class-data sharing archive keeps the class path as given: a relative one fits no other
    // directory.
    Path jar = Files.createFile(dir.resolve("network-enforcer.jar"));
    List<String> args =
        launchIn(dir, fakeJava(), "network-enforcer.jar", Map.of("NE_CDS", "0"), "a b.jsonl");
    assertThat(args).containsSubsequence("-jar", jar.toAbsolutePath().toString(), "learn");
  }

  @Test
  void javaOptionsReplaceTheDefaults() throws Exception {
    Path jar = Files.createFile(dir.resolve("network-enforcer.jar"));
    assertThat(launch(fakeJava(), jar, Map.of("NE_CDS", "0", "NE_JAVA_OPTS", "-Xmx2g")))
        .containsExactly("-Xmx2g", "-jar", jar.toString(), "learn", "--input", "a b.jsonl");
  }

  @Test
  void learnRecordsAClassDataArchiveOnItsFirstRunAndMapsItLater() throws Exception {
    Path fakeJava = fakeJava();
    Path jar = Files.createFile(dir.resolve("network-enforcer.jar"));
    Path cache = dir.resolve("cache");
    Map<String, String> env = Map.of("NE_CACHE_DIR", cache.toString());

    List<String> first = launch(fakeJava, jar, env);
    // The heap, the JIT, the archive to record, the quiet logs (two), the jar and the four
    // arguments.
    int archiveAt = LEARN_HEAP.length + LARGE_CAPTURE_JIT.length;
    assertThat(first).hasSize(archiveAt + 8);
    assertThat(first.get(archiveAt))
        .startsWith("-XX:ArchiveClassesAtExit=" + cache.resolve("cds") + "/learn-")
        .endsWith(".tmp");
    // The fake JVM wrote no archive: nothing is kept, the next run records again.
    try (var files = Files.list(cache.resolve("cds"))) {
      assertThat(files.toList()).isEmpty();
    }

    // With the archive in place (what a real first run leaves), learn maps it.
    String archive =
        first
            .get(archiveAt)
            .substring("-XX:ArchiveClassesAtExit=".length())
            .replaceAll("\\.[0-9]+\\.tmp$", "");
    Files.writeString(Path.of(archive), "archive");
    List<String> later = launch(fakeJava, jar, env);
    assertThat(later)
        .containsExactlyElementsOf(
            args(
                LEARN_HEAP,
                LARGE_CAPTURE_JIT,
                "-XX:SharedArchiveFile=" + archive,
                "-Xlog:cds=off",
                "-Xlog:cds+dynamic=off",
                "-jar",
                jar.toString(),
                "learn",
                "--input",
                "a b.jsonl"));
  }

  /** A fake "java" that prints what it was asked to run, one argument per line. */
  private Path fakeJava() throws Exception {
    Path fakeJava = dir.resolve("java");
    Files.writeString(fakeJava, "#!/usr/bin/env bash\nprintf '%s\\n' \"$@\"\n");
    fakeJava.toFile().setExecutable(true);
    return fakeJava;
  }

  /**
   * Runs {@code ./network-enforcer learn --input "a b.jsonl"} (a file that does not exist) on the
   * fake java.
   */
  private static List<String> launch(Path fakeJava, Path jar, Map<String, String> env)
      throws Exception {
    return launch(fakeJava, jar, env, "a b.jsonl");
  }

  private static List<String> launch(Path fakeJava, Path jar, Map<String, String> env, String input)
      throws Exception {
    return launchIn(null, fakeJava, jar.toString(), env, input);
  }

  /**
   * As {@link #launch}, started in {@code workDir} (null: this JVM's) with {@code NE_JAR} as given.
   */
  private static List<String> launchIn(
      Path workDir, Path fakeJava, String jar, Map<String, String> env, String input)
      throws Exception {
    ProcessBuilder pb =
        new ProcessBuilder("bash", SCRIPT.toString(), "learn", "--input", input)
            .redirectErrorStream(true);
    if (workDir != null) {
      pb.directory(workDir.toFile());
    }
    pb.environment().put("NE_JAR", jar);
    pb.environment().put("JAVA", fakeJava.toString());
    // The same memory on every machine the test runs on, unless the test gives its own.
    pb.environment().put("NE_MEMINFO", largeMachine().toString());
    pb.environment()
        .put("NE_CGROUP_ROOT", largeMachine().resolveSibling("no-cgroup-limits").toString());
    pb.environment().putAll(env);
    Process run = pb.start();
    assertThat(run.waitFor(30, TimeUnit.SECONDS)).isTrue();
    String out = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(run.exitValue()).isZero();
    return out.lines().toList();
  }

  /** A /proc/meminfo of a machine with 8 GiB, written once per test JVM. */
  private static Path largeMachine;

  private static synchronized Path largeMachine() throws IOException {
    if (largeMachine == null) {
      Path file = Files.createTempDirectory("network-enforcer-launcher-test").resolve("meminfo-8g");
      Files.writeString(file, "MemTotal:        8388608 kB\nMemFree:         8000000 kB\n");
      largeMachine = file;
    }
    return largeMachine;
  }

  /** The launcher's heap and JIT options, then the rest of the command line. */
  private static List<String> args(String[] heap, String[] jit, String... rest) {
    List<String> all = new ArrayList<>(List.of(heap));
    all.addAll(List.of(jit));
    all.addAll(List.of(rest));
    return all;
  }
}
