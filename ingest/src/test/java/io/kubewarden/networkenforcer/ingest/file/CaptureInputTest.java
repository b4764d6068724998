package io.kubewarden.networkenforcer.ingest.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.ingest.Fixtures;
import io.kubewarden.networkenforcer.ingest.resolution.ClusterIndex;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Captures as people have them: compressed, with byte-order marks, in UTF-16, rotated into a
 * directory.
 */
class CaptureInputTest {
  @TempDir Path dir;

  private static byte[] fixture() throws IOException {
    return Files.readAllBytes(Fixtures.capture("hubble-multinode.jsonl"));
  }

  private static byte[] gzip(byte[] bytes) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (OutputStream gz = new GZIPOutputStream(out)) {
      gz.write(bytes);
    }
    return out.toByteArray();
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = new byte[a.length + b.length];
    System.arraycopy(a, 0, out, 0, a.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  private static List<String> lines(Path path) throws IOException {
    try (BufferedReader reader = CaptureInput.open(path)) {
      return reader.lines().toList();
    }
  }

  private CaptureSummary read(Path path) {
    List<FlowRecord> records = new ArrayList<>();
    return CaptureFile.read(path, Optional.empty(), new ClusterIndex(), records::add);
  }

  @Test
  void everyEncodingReadsAsTheSameLines() throws IOException {
    byte[] plain = fixture();
    String text = new String(plain, StandardCharsets.UTF_8);
    List<String> expected = text.lines().toList();
    Path gz = Files.write(dir.resolve("events.log.gz"), gzip(plain));
    Path bom =
        Files.write(
            dir.resolve("bom.jsonl"),
            concat(new byte[] {(byte) 0xef, (byte) 0xbb, (byte) 0xbf}, plain));
    Path utf16le =
        Files.write(
            dir.resolve("windows.jsonl"),
            concat(
                new byte[] {(byte) 0xff, (byte) 0xfe}, text.getBytes(StandardCharsets.UTF_16LE)));
    Path utf16be =
        Files.write(
            dir.resolve("be.jsonl"), text.getBytes(StandardCharsets.UTF_16)); // BE with its mark
    Path gzBom =
        Files.write(
            dir.resolve("bom.jsonl.gz"),
            gzip(concat(new byte[] {(byte) 0xef, (byte) 0xbb, (byte) 0xbf}, plain)));

    for (Path p : List.of(gz, bom, utf16le, utf16be, gzBom)) {
      assertThat(lines(p)).as(p.getFileName().toString()).isEqualTo(expected);
      CaptureSummary summary = read(p);
      assertThat(summary.badLines()).as(p.getFileName().toString()).isZero();
      assertThat(summary.published())
          .isEqualTo(7); // debug-x7k2p by its labels, an L7 request of a connection seen
      assertThat(summary.lostEvents()).isEqualTo(42);
    }
  }

  @Test
  void aDirectoryOfRotatedFilesIsReadOldestFirst() throws IOException {
    List<String> all = new String(fixture(), StandardCharsets.UTF_8).lines().toList();
    Path rotated = Files.createDirectory(dir.resolve("hubble"));
    // lumberjack-style backups, compressed, and the live file without a final line break.
    Path oldest =
        Files.write(
            rotated.resolve("events-2026-08-03T15-40-05.000.log.gz"),
            gzip((String.join("\n", all.subList(0, 6)) + "\n").getBytes(StandardCharsets.UTF_8)));
    Path middle =
        Files.write(
            rotated.resolve("events-2026-08-03T15-40-09.000.log"),
            (String.join("\n", all.subList(6, 11))).getBytes(StandardCharsets.UTF_8));
    Path live =
        Files.write(
            rotated.resolve("events.log"),
            (String.join("\n", all.subList(11, all.size()))).getBytes(StandardCharsets.UTF_8));
    Files.setLastModifiedTime(oldest, FileTime.fromMillis(1_000_000));
    Files.setLastModifiedTime(middle, FileTime.fromMillis(2_000_000));
    Files.setLastModifiedTime(live, FileTime.fromMillis(3_000_000));
    Files.write(rotated.resolve(".hidden"), "ignored".getBytes(StandardCharsets.UTF_8));

    assertThat(CaptureInput.files(rotated)).containsExactly(oldest, middle, live);
    assertThat(lines(rotated)).isEqualTo(all);
    CaptureSummary summary = read(rotated);
    assertThat(summary.lines()).isEqualTo(16);
    assertThat(summary.badLines()).isZero();
    assertThat(summary.published())
        .isEqualTo(7); // debug-x7k2p by its labels, an L7 request of a connection seen
  }

  @Test
  void whatCannotBeReadIsRefusedByName() throws IOException {
    Path zstd =
        Files.write(
            dir.resolve("events.log.zst"),
            new byte[] {0x28, (byte) 0xb5, 0x2f, (byte) 0xfd, 1, 2, 3});
    assertThatThrownBy(() -> lines(zstd))
        .isInstanceOf(UnreadableCaptureException.class)
        .hasMessageContaining("zstd-compressed")
        .hasMessageContaining("zstd -d");
    Path noMark =
        Files.write(
            dir.resolve("nomark.jsonl"),
            "{\"flow\":{\"verdict\":\"FORWARDED\"}}\n".getBytes(StandardCharsets.UTF_16LE));
    assertThatThrownBy(() -> lines(noMark))
        .isInstanceOf(UnreadableCaptureException.class)
        .hasMessageContaining("UTF-16")
        .hasMessageContaining("iconv");
    Path empty = Files.createDirectory(dir.resolve("empty"));
    assertThatThrownBy(() -> lines(empty))
        .isInstanceOf(UnreadableCaptureException.class)
        .hasMessageContaining("holds no files");
  }
}
