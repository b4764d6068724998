package io.kubewarden.networkenforcer.common.flow;

import io.kubewarden.networkenforcer.common.codec.MalformedRecordException;
import io.kubewarden.networkenforcer.common.codec.WireReader;
import io.kubewarden.networkenforcer.common.workload.WorkloadKind;
import io.kubewarden.networkenforcer.common.workload.WorkloadRef;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;

/**
 * Reads only what routing a binary flow record needs, without decoding it: first and last seen,
 * count, protocol, verdict, reporter and the two ends' workloads, and where its <em>identity</em>
 * lies (the record's bytes without its times and count: what makes two records the same flow). The
 * labels, selectors and ports inside the ends are stepped over, not read.
 *
 * <p>It walks the record with the very reads {@link FlowRecordCodec#read} makes for the top level
 * and the ends, so it reads the same values from the same bytes; it checks less (the nested
 * messages it steps over), so a caller that meets an identity for the first time still decodes it
 * once ({@link FlowRecordCodec}) to know the record is valid. One instance is reused per record.
 */
public final class FlowRecordSkim {
  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private byte[] data;
  private boolean endsRead;
  private int[] ranges = new int[16];
  private int rangeCount;
  private int identityLength;
  private long seconds;
  private int nanos;
  private long count;
  private long lastSeenDelta;
  private Protocol protocol;
  private Verdict verdict;
  private Reporter reporter;
  private boolean hasProvider;
  private Instant firstSeen;
  private Instant lastSeen;
  private final End src = new End();
  private final End dst = new End();

  /**
   * What the walk read of one end: where its namespace and name lie, read as strings only on
   * demand.
   */
  private static final class End {
    long namespace = -1;
    WorkloadKind kind;
    long name = -1;
    boolean present;

    void clear() {
      namespace = -1;
      kind = null;
      name = -1;
      present = false;
    }

    boolean hasWorkload() {
      return namespace >= 0 && kind != null && name >= 0;
    }

    WorkloadRef workload(byte[] data) {
      return hasWorkload()
          ? new WorkloadRef(string(data, namespace), kind, string(data, name))
          : null;
    }

    private static String string(byte[] data, long span) {
      return new String(data, (int) (span >>> 32), (int) span, StandardCharsets.UTF_8);
    }
  }

  /**
   * Walks the record in {@code data} from {@code offset} (after the binary header) to its end.
   *
   * @throws MalformedRecordException (or another runtime exception) when the walk cannot read it;
   *     {@link FlowRecordCodec#read} then fails on the same record too
   */
  public FlowRecordSkim skim(byte[] data, int offset) {
    return walk(data, offset, true);
  }

  /**
   * Walks only the top level of the record: its times, count, protocol, verdict, reporter and
   * identity, stepping over both ends whole. Enough to recognise a repeat of a flow whose identity
   * was read in full before (equal identities have equal ends); the ends' workloads are not known
   * after it ({@link #srcWorkload()} and the like refuse).
   *
   * @throws MalformedRecordException (or another runtime exception) when the walk cannot read it
   */
  public FlowRecordSkim skimTopLevel(byte[] data, int offset) {
    return walk(data, offset, false);
  }

  private FlowRecordSkim walk(byte[] data, int offset, boolean readEnds) {
    this.data = data;
    this.endsRead = readEnds;
    rangeCount = 0;
    identityLength = 0;
    seconds = 0;
    nanos = 0;
    count = 1;
    lastSeenDelta = 0;
    protocol = null;
    verdict = Verdict.FORWARDED;
    reporter = Reporter.UNKNOWN;
    hasProvider = false;
    src.clear();
    dst.clear();
    WireReader in = new WireReader(data, offset, data.length);
    while (in.hasMore()) {
      int start = in.position();
      int tag = in.readTag();
      boolean identity = true;
      switch (WireReader.field(tag)) {
        case 1 -> {
          seconds = in.readVarint();
          identity = false;
        }
        case 2 -> {
          nanos = in.readInt();
          identity = false;
        }
        case 3 -> {
          FlowRecordCodec.decode(FlowRecordCodec.PROVIDERS, in.readInt(), "provider");
          hasProvider = true;
        }
        case 4 ->
            protocol = FlowRecordCodec.decode(FlowRecordCodec.PROTOCOLS, in.readInt(), "protocol");
        case 5 -> in.readInt();
        case 6 -> end(in, src, readEnds);
        case 7 -> end(in, dst, readEnds);
        case 8 ->
            verdict = FlowRecordCodec.decode(FlowRecordCodec.VERDICTS, in.readInt(), "verdict");
        case 9 -> in.skipLengthDelimited();
        case 10 -> {
          count = in.readVarint();
          identity = false;
        }
        case 11 ->
            reporter = FlowRecordCodec.decode(FlowRecordCodec.REPORTERS, in.readInt(), "reporter");
        case 12 -> {
          lastSeenDelta = in.readVarint();
          identity = false;
        }
        case 13 -> in.readInt(); // seenAs: part of the identity
        case 14 -> in.skipLengthDelimited(); // the HTTP request: part of the identity
        default -> in.skip(tag);
      }
      if (identity) {
        addRange(start, in.position());
      }
    }
    if (!hasProvider || protocol == null || !src.present || !dst.present) {
      throw new MalformedRecordException("a flow record needs provider, protocol, src and dst");
    }
    // As FlowRecord reads them (Instant refuses seconds out of its range, as the decoder does).
    firstSeen = Instant.ofEpochSecond(seconds, nanos);
    Instant last = lastSeenDelta == 0 ? firstSeen : firstSeen.plusNanos(lastSeenDelta);
    lastSeen = last.isBefore(firstSeen) ? firstSeen : last;
    return this;
  }

  /** Reads one end; a repeated end field replaces the earlier one, as in the decoder. */
  private static void end(WireReader top, End end, boolean read) {
    end.clear();
    end.present = true;
    if (!read) {
      top.skipLengthDelimited();
      return;
    }
    WireReader in = top.nested();
    while (in.hasMore()) {
      int tag = in.readTag();
      switch (WireReader.field(tag)) {
        case 1 -> end.namespace = in.readSpan();
        case 2 ->
            end.kind = FlowRecordCodec.decode(FlowRecordCodec.KINDS, in.readInt(), "workload kind");
        case 3 -> end.name = in.readSpan();
        case 4, 5, 6, 8, 9, 10, 13 -> in.skipLengthDelimited();
        case 7, 11, 12, 14 -> in.readBool();
        default -> in.skip(tag);
      }
    }
  }

  private void addRange(int from, int to) {
    identityLength += to - from;
    if (rangeCount > 0 && ranges[2 * rangeCount - 1] == from) {
      ranges[2 * rangeCount - 1] = to;
      return;
    }
    if (2 * rangeCount + 2 > ranges.length) {
      ranges = Arrays.copyOf(ranges, ranges.length * 2);
    }
    ranges[2 * rangeCount] = from;
    ranges[2 * rangeCount + 1] = to;
    rangeCount++;
  }

  /** The earliest time the record stands for, as {@link FlowRecord#time()} reads it. */
  public Instant firstSeen() {
    return firstSeen;
  }

  /** The latest time the record stands for, as {@link FlowRecord#lastSeen()} reads it. */
  public Instant lastSeen() {
    return lastSeen;
  }

  /** How many flows the record stands for, as {@link FlowRecord#count()} reads it. */
  public long count() {
    return count <= 0 ? 1 : count;
  }

  public Protocol protocol() {
    return protocol;
  }

  public Verdict verdict() {
    return verdict;
  }

  public Reporter reporter() {
    return reporter;
  }

  /** The source's workload, null when it has none ({@link FlowEndpoint#workload()}). */
  public WorkloadRef srcWorkload() {
    requireEnds();
    return src.workload(data);
  }

  /** The destination's workload, null when it has none. */
  public WorkloadRef dstWorkload() {
    requireEnds();
    return dst.workload(data);
  }

  /** Whether the source has a workload, without reading it. */
  public boolean hasSrcWorkload() {
    requireEnds();
    return src.hasWorkload();
  }

  /** Whether the destination has a workload, without reading it. */
  public boolean hasDstWorkload() {
    requireEnds();
    return dst.hasWorkload();
  }

  private void requireEnds() {
    if (!endsRead) {
      throw new IllegalStateException(
          "the ends were stepped over (skimTopLevel): skim the record in full");
    }
  }

  /** The length of the identity: the record's bytes without its times and count. */
  public int identityLength() {
    return identityLength;
  }

  /**
   * A 64-bit hash of the identity. Four independent lanes over 32-byte blocks, so that the
   * multiplications of one block do not wait for each other (the hash is on every record's path);
   * equal identities laid out in equal ranges hash equally, and {@link #identityEquals} decides.
   */
  public long identityHash() {
    long a = 0x9E3779B97F4A7C15L ^ identityLength;
    long b = 0xC2B2AE3D27D4EB4FL;
    long c = 0x165667B19E3779F9L;
    long d = 0x27D4EB2F165667C5L;
    for (int r = 0; r < rangeCount; r++) {
      int i = ranges[2 * r];
      int to = ranges[2 * r + 1];
      for (; i + 32 <= to; i += 32) {
        a = lane(a, (long) LONGS.get(data, i));
        b = lane(b, (long) LONGS.get(data, i + 8));
        c = lane(c, (long) LONGS.get(data, i + 16));
        d = lane(d, (long) LONGS.get(data, i + 24));
      }
      for (; i + 8 <= to; i += 8) {
        a = lane(a, (long) LONGS.get(data, i));
      }
      for (; i < to; i++) {
        b = (b ^ (data[i] & 0xff)) * 0x100000001B3L;
      }
    }
    long h = a ^ Long.rotateLeft(b, 17) ^ Long.rotateLeft(c, 31) ^ Long.rotateLeft(d, 47);
    h ^= h >>> 33;
    h *= 0xFF51AFD7ED558CCDL;
    h ^= h >>> 33;
    h *= 0xC4CEB9FE1A85EC53L;
    return h ^ (h >>> 33);
  }

  private static long lane(long h, long word) {
    h = (h ^ word) * 0xC2B2AE3D27D4EB4FL;
    return h ^ (h >>> 31);
  }

  /** Whether {@code other[from, to)} holds exactly this record's identity. */
  public boolean identityEquals(byte[] other, int from, int to) {
    if (to - from != identityLength) {
      return false;
    }
    int at = from;
    for (int r = 0; r < rangeCount; r++) {
      int start = ranges[2 * r];
      int end = ranges[2 * r + 1];
      if (!Arrays.equals(data, start, end, other, at, at + end - start)) {
        return false;
      }
      at += end - start;
    }
    return true;
  }

  /** Copies the identity into {@code into} from {@code at}; it reads back as a flow record. */
  public void copyIdentity(byte[] into, int at) {
    for (int r = 0; r < rangeCount; r++) {
      int start = ranges[2 * r];
      int end = ranges[2 * r + 1];
      System.arraycopy(data, start, into, at, end - start);
      at += end - start;
    }
  }
}
