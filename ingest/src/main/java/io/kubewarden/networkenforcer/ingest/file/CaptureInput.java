package io.kubewarden.networkenforcer.ingest.file;

import java.io.BufferedInputStream;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.Charset;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

/**
 * Captures as people have them: a file, gzip-compressed or not (exporters rotate to {@code .gz}),
 * UTF-8 with or without a byte-order mark, UTF-16 with a byte-order mark (a Windows shell
 * redirect), or a directory of rotated files read oldest first. Anything else (another compression,
 * UTF-16 without a mark, binary data) is refused with a message that names it.
 */
public final class CaptureInput {
  /** Bytes looked at to recognize compression, byte-order marks and UTF-16 without a mark. */
  private static final int SNIFF = 64;

  private CaptureInput() {}

  /**
   * The files of a capture: the file itself, or a directory's non-hidden regular files, oldest
   * first.
   */
  public static List<Path> files(Path path) {
    if (!Files.isDirectory(path)) {
      return List.of(path);
    }
    List<Path> files = new ArrayList<>();
    try (Stream<Path> entries = Files.list(path)) {
      entries
          .filter(Files::isRegularFile)
          .filter(p -> !p.getFileName().toString().startsWith("."))
          .forEach(files::add);
    } catch (IOException e) {
      throw new UnreadableCaptureException(
          "cannot list capture directory " + path + ": " + e.getMessage(), e);
    }
    // Rotation keeps the live file newest; ties (same second) fall back to the name.
    files.sort(
        Comparator.comparing(CaptureInput::modified)
            .thenComparing(p -> p.getFileName().toString()));
    return files;
  }

  /** The bytes on disk (compressed size for gzip files), for progress. */
  public static long size(Path path) {
    long total = 0;
    for (Path f : files(path)) {
      try {
        total += Files.size(f);
      } catch (IOException e) {
        // Progress only.
      }
    }
    return total;
  }

  /** Every file of the capture as one text, a line break between files. */
  public static BufferedReader open(Path path) {
    return open(path, UnaryOperator.identity());
  }

  /**
   * @param rawTap wraps each file's raw byte stream (progress counting) before decoding
   */
  public static BufferedReader open(Path path, UnaryOperator<InputStream> rawTap) {
    List<Path> files = files(path);
    if (files.isEmpty()) {
      throw new UnreadableCaptureException("capture directory " + path + " holds no files");
    }
    return new BufferedReader(new SequentialReader(files, rawTap));
  }

  /** One file as text, its encoding and compression detected. */
  public static Reader openFile(Path file, UnaryOperator<InputStream> rawTap) throws IOException {
    InputStream raw = rawTap.apply(Files.newInputStream(file));
    try {
      return decode(new BufferedInputStream(raw, 1 << 16), file.toString());
    } catch (IOException | RuntimeException e) {
      raw.close();
      throw e;
    }
  }

  static Reader decode(InputStream in, String name) throws IOException {
    byte[] head = peek(in);
    if (startsWith(head, 0x1f, 0x8b)) {
      return decode(
          new BufferedInputStream(new GZIPInputStream(in, 1 << 16), 1 << 16),
          name + " (gunzipped)");
    }
    refuseOtherCompressions(head, name);
    if (startsWith(head, 0xef, 0xbb, 0xbf)) {
      in.skipNBytes(3);
      return reader(in, StandardCharsets.UTF_8);
    }
    if (startsWith(head, 0xff, 0xfe)) {
      in.skipNBytes(2);
      return reader(in, StandardCharsets.UTF_16LE);
    }
    if (startsWith(head, 0xfe, 0xff)) {
      in.skipNBytes(2);
      return reader(in, StandardCharsets.UTF_16BE);
    }
    if (looksLikeUtf16WithoutMark(head)) {
      throw new UnreadableCaptureException(
          name
              + " looks like UTF-16 text without a byte-order mark; convert it "
              + "to UTF-8 (iconv -f UTF-16LE -t UTF-8 "
              + name
              + " > capture.jsonl)");
    }
    return reader(in, StandardCharsets.UTF_8);
  }

  private static void refuseOtherCompressions(byte[] head, String name) {
    String format = null;
    String command = null;
    if (startsWith(head, 0x28, 0xb5, 0x2f, 0xfd)) {
      format = "zstd";
      command = "zstd -d";
    } else if (startsWith(head, 'B', 'Z', 'h')) {
      format = "bzip2";
      command = "bunzip2";
    } else if (startsWith(head, 0xfd, '7', 'z', 'X', 'Z', 0x00)) {
      format = "xz";
      command = "unxz";
    } else if (startsWith(head, 'P', 'K', 0x03, 0x04)) {
      format = "zip";
      command = "unzip";
    }
    if (format != null) {
      throw new UnreadableCaptureException(
          name
              + " is "
              + format
              + "-compressed; decompress it first ("
              + command
              + ") or pass the plain or gzip-compressed file");
    }
  }

  /** Text in UTF-16 without a mark has a zero byte in every other position. */
  private static boolean looksLikeUtf16WithoutMark(byte[] head) {
    if (head.length < 4) {
      return false;
    }
    int zerosOdd = 0;
    int zerosEven = 0;
    for (int i = 0; i < head.length; i++) {
      if (head[i] == 0) {
        if (i % 2 == 0) {
          zerosEven++;
        } else {
          zerosOdd++;
        }
      }
    }
    int half = head.length / 2;
    return zerosOdd >= half - 1 || zerosEven >= half - 1;
  }

  /**
   * Bytes that are not valid in the charset become U+FFFD; the line then fails to parse and is
   * reported.
   */
  private static Reader reader(InputStream in, Charset charset) {
    CharsetDecoder decoder =
        charset
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPLACE)
            .onUnmappableCharacter(CodingErrorAction.REPLACE);
    return new InputStreamReader(in, decoder);
  }

  private static byte[] peek(InputStream in) throws IOException {
    in.mark(SNIFF);
    byte[] head = in.readNBytes(SNIFF);
    in.reset();
    return head;
  }

  private static boolean startsWith(byte[] head, int... bytes) {
    if (head.length < bytes.length) {
      return false;
    }
    for (int i = 0; i < bytes.length; i++) {
      if ((head[i] & 0xff) != (bytes[i] & 0xff)) {
        return false;
      }
    }
    return true;
  }

  private static FileTime modified(Path p) {
    try {
      return Files.getLastModifiedTime(p);
    } catch (IOException e) {
      return FileTime.fromMillis(0);
    }
  }

  /** Reads the files one after another, opening each only when the previous one is done. */
  private static final class SequentialReader extends Reader {
    private final List<Path> files;
    private final UnaryOperator<InputStream> rawTap;
    private int next;
    private Reader current;
    private boolean pendingBreak;
    private char last = '\n';

    SequentialReader(List<Path> files, UnaryOperator<InputStream> rawTap) {
      this.files = files;
      this.rawTap = rawTap;
    }

    @Override
    public int read(char[] buf, int off, int len) throws IOException {
      if (len == 0) {
        return 0;
      }
      while (true) {
        if (pendingBreak) {
          pendingBreak = false;
          buf[off] = '\n';
          return 1;
        }
        if (current == null) {
          if (next >= files.size()) {
            return -1;
          }
          Path file = files.get(next++);
          current = openFile(file, rawTap);
        }
        int n = current.read(buf, off, len);
        if (n > 0) {
          last = buf[off + n - 1];
          return n;
        }
        current.close();
        current = null;
        // A file that does not end with a line break must not glue its last line to the next file's
        // first.
        pendingBreak = next < files.size() && last != '\n';
        last = '\n';
      }
    }

    @Override
    public void close() throws IOException {
      if (current != null) {
        current.close();
      }
    }
  }
}
