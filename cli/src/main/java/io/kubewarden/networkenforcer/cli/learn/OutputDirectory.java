package io.kubewarden.networkenforcer.cli.learn;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The {@code --output-dir} of {@code learn}. A directory that already holds files is refused, so
 * manifests of an older run never pass for this run's; with {@code --overwrite} the manifests and
 * unreadable-lines file an earlier run wrote are removed first (other files are left alone).
 */
final class OutputDirectory {
  /**
   * The first line of every manifest {@code learn} writes; how an earlier run's files are
   * recognized.
   */
  static final String MANIFEST_HEADER = "# Learned by 'network-enforcer learn'";

  private OutputDirectory() {}

  /**
   * Before anything is read: the directory is usable (a directory, writable, or creatable under a
   * writable parent) and empty unless {@code overwrite}; a long capture is never learned only to be
   * refused at the end.
   */
  static void check(Path dir, boolean overwrite) {
    if (Files.exists(dir)) {
      if (!Files.isDirectory(dir)) {
        throw new LearnInputException("--output-dir " + dir + " is a file; name a directory");
      }
      if (!Files.isWritable(dir)) {
        throw new LearnInputException(
            "--output-dir " + dir + " is not writable; name a directory you can write to");
      }
      List<Path> entries = entries(dir);
      if (!entries.isEmpty() && !overwrite) {
        throw notEmpty(dir, entries);
      }
      return;
    }
    Path parent = dir.toAbsolutePath().getParent();
    while (parent != null && !Files.exists(parent)) {
      parent = parent.getParent();
    }
    if (parent == null || !Files.isDirectory(parent)) {
      throw new LearnInputException(
          "--output-dir "
              + dir
              + " cannot be created: "
              + parent
              + " is a file; name a "
              + "directory");
    }
    if (!Files.isWritable(parent)) {
      throw new LearnInputException(
          "--output-dir "
              + dir
              + " cannot be created: "
              + parent
              + " is not writable; "
              + "name a directory you can write to");
    }
  }

  private static LearnInputException notEmpty(Path dir, List<Path> entries) {
    return new LearnInputException(
        "--output-dir "
            + dir
            + " is not empty ("
            + entries.size()
            + " entries, for example "
            + dir.relativize(entries.get(0))
            + "); name an empty or new directory, or pass --overwrite to replace "
            + "the manifests of an earlier run");
  }

  /**
   * Checks the directory and, with overwrite, clears what an earlier run left; returns the files
   * removed.
   */
  static List<Path> prepare(Path dir, boolean overwrite) {
    if (!Files.exists(dir)) {
      return List.of();
    }
    if (!Files.isDirectory(dir)) {
      throw new LearnInputException("--output-dir " + dir + " is a file; name a directory");
    }
    List<Path> entries = entries(dir);
    if (entries.isEmpty()) {
      return List.of();
    }
    if (!overwrite) {
      throw notEmpty(dir, entries);
    }
    List<Path> removed = new ArrayList<>();
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        if (p.equals(dir)) {
          continue;
        }
        if (Files.isRegularFile(p)
            && (isOurManifest(p) || p.equals(dir.resolve(UnreadableLinesFile.NAME)))) {
          Files.delete(p);
          removed.add(p);
        } else if (Files.isDirectory(p) && isEmpty(p)) {
          Files.delete(p);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot clear " + dir + ": " + e.getMessage(), e);
    }
    return removed;
  }

  private static boolean isOurManifest(Path p) throws IOException {
    if (!p.getFileName().toString().endsWith(".yaml")) {
      return false;
    }
    try (var reader = Files.newBufferedReader(p, StandardCharsets.UTF_8)) {
      String first = reader.readLine();
      return first != null && first.startsWith(MANIFEST_HEADER);
    } catch (IOException e) {
      return false;
    }
  }

  private static boolean isEmpty(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.findAny().isEmpty();
    }
  }

  private static List<Path> entries(Path dir) {
    try (Stream<Path> s = Files.list(dir)) {
      return s.sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read --output-dir " + dir + ": " + e.getMessage(), e);
    }
  }
}
