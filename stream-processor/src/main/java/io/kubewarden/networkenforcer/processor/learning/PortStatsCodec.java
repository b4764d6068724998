package io.kubewarden.networkenforcer.processor.learning;

import io.kubewarden.networkenforcer.common.codec.BinaryCodec;
import io.kubewarden.networkenforcer.common.codec.MalformedRecordException;
import io.kubewarden.networkenforcer.common.codec.WireReader;
import io.kubewarden.networkenforcer.common.codec.WireWriter;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Sighting;
import io.kubewarden.networkenforcer.common.topics.BinarySerde;
import java.time.Instant;
import java.util.EnumSet;
import java.util.Set;

/**
 * The binary form of {@link PortStats} in the evidence store (read and written once per
 * observation): {@code 1 protocol name, 2 port, 3/4 first seen seconds/nanos, 5/6 last seen
 * seconds/nanos, 7 count, 8 seenAs}; seenAs is a bit set of the codes source-record=1,
 * destination-record=2, l7-request=3 (bit {@code code - 1}; absent: none; bits this version does
 * not know are ignored). Values an older version wrote as JSON still read.
 */
public final class PortStatsCodec implements BinaryCodec<PortStats> {
  public static final PortStatsCodec INSTANCE = new PortStatsCodec();

  private PortStatsCodec() {}

  public static BinarySerde<PortStats> serde() {
    return new BinarySerde<>(PortStats.class, INSTANCE, 48);
  }

  @Override
  public void write(WireWriter out, PortStats s) {
    out.string(1, s.protocol().name());
    out.varint(2, s.port());
    out.varint(3, s.firstSeen().getEpochSecond());
    out.varint(4, s.firstSeen().getNano());
    out.varint(5, s.lastSeen().getEpochSecond());
    out.varint(6, s.lastSeen().getNano());
    out.varint(7, s.count());
    int bits = 0;
    for (Sighting mark : s.seenAs()) {
      bits |= 1 << codeOf(mark) - 1;
    }
    if (bits != 0) {
      out.varint(8, bits);
    }
  }

  /** Never renumbered: stored evidence keeps these codes. */
  private static final Sighting[] SIGHTINGS = {
    null, Sighting.SOURCE_RECORD, Sighting.DESTINATION_RECORD, Sighting.L7_REQUEST
  };

  private static int codeOf(Sighting mark) {
    for (int i = 1; i < SIGHTINGS.length; i++) {
      if (SIGHTINGS[i] == mark) {
        return i;
      }
    }
    throw new IllegalArgumentException("no code for " + mark);
  }

  @Override
  public PortStats read(WireReader in) {
    Protocol protocol = null;
    int port = 0;
    long firstSeconds = 0;
    int firstNanos = 0;
    long lastSeconds = 0;
    int lastNanos = 0;
    long count = 0;
    Set<Sighting> seenAs = EnumSet.noneOf(Sighting.class);
    while (in.hasMore()) {
      int tag = in.readTag();
      switch (WireReader.field(tag)) {
        case 1 -> protocol = Protocol.valueOf(in.readString());
        case 2 -> port = in.readInt();
        case 3 -> firstSeconds = in.readVarint();
        case 4 -> firstNanos = in.readInt();
        case 5 -> lastSeconds = in.readVarint();
        case 6 -> lastNanos = in.readInt();
        case 7 -> count = in.readVarint();
        case 8 -> {
          long bits = in.readVarint();
          for (int code = 1; code < SIGHTINGS.length; code++) {
            if ((bits & 1L << code - 1) != 0) {
              seenAs.add(SIGHTINGS[code]);
            }
          }
        }
        default -> in.skip(tag);
      }
    }
    if (protocol == null) {
      throw new MalformedRecordException("port evidence without a protocol");
    }
    return new PortStats(
        protocol,
        port,
        Instant.ofEpochSecond(firstSeconds, firstNanos),
        Instant.ofEpochSecond(lastSeconds, lastNanos),
        count,
        seenAs);
  }
}
