package io.kubewarden.networkenforcer.processor.observation;

import io.kubewarden.networkenforcer.common.codec.MalformedRecordException;
import io.kubewarden.networkenforcer.common.codec.WireReader;
import io.kubewarden.networkenforcer.common.flow.Counts;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.FlowRecordCodec;
import io.kubewarden.networkenforcer.common.flow.FlowRecordSkim;
import io.kubewarden.networkenforcer.common.topics.BinarySerde;
import io.kubewarden.networkenforcer.processor.decoding.Decoded;
import io.kubewarden.networkenforcer.processor.decoding.RecordDecoder;
import io.kubewarden.networkenforcer.processor.metrics.ProcessorMetrics;
import io.kubewarden.networkenforcer.processor.store.StoreNames;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Reads the flow records as bytes, maps each to its observations ({@link ObservationMapper}) and
 * combines the observations of one target and one flow (the same flow but for its times and count)
 * into one record, so that the repartition carries aggregates, not flows. Every {@code interval}
 * (wall clock) and whenever {@code maxPending} combinations wait, each is forwarded as one
 * observation whose flow has the earliest first seen, the latest last seen and the summed count,
 * and is deleted. They leave in the order of their latest flow record, as uncombined observations
 * would: what the learner takes from the latest flow (a peer's selector after a relabel, the
 * inferred marks) comes from the same flow. The observation also says how many flow records it
 * stands for ({@link Observation#records()}), so a violation found on it still counts each of them.
 *
 * <p>Why it does not decode every record: most flow records repeat a flow already waiting. Only the
 * top level of the record is walked first ({@link FlowRecordSkim#skimTopLevel}, the ends stepped
 * over whole); a record whose identity (its bytes but times and count) equals the waiting one's
 * only updates times and counts, and the entry remembers which ends have a workload. Any other
 * record is walked in full for the fields that route it. A record that starts a combination is
 * decoded in full once, so an unreadable record still goes to the dead-letter topic with the
 * reason, as from {@link RecordDecoder}; JSON records (older topics) are decoded and re-encoded.
 * The flow is decoded from the identity bytes when forwarded.
 *
 * <p>Why this loses nothing on a crash or a rebalance: the waiting combinations live in a
 * changelogged state store ({@link StoreNames#COMBINER}, a {@link PendingCombinations}), not in a
 * field of this class. A commit writes whatever still waits to the changelog in the same
 * transaction as the input offsets it came from (exactly-once) or before them (at-least-once), and
 * a forward and its delete happen in the same transaction too. After a crash the store is restored
 * to the last commit and the input after it is read again, so each flow is counted exactly once.
 * The store's hash map keeps this cheap: the many updates of one combination within a commit
 * interval reach the changelog as one record, and a combination forwarded before the commit as at
 * most a tombstone.
 */
public final class ObservationCombiner
    implements Processor<byte[], byte[], String, Decoded<Observation>> {
  private final String topic;
  private final BinarySerde<FlowRecord> serde;
  private final ObservationMapper mapper;
  private final ProcessorMetrics metrics;
  private final Duration interval;

  /** Combinations per task before they are forwarded early: bounds the store and the cache. */
  private final int maxPending;

  private final boolean batches;
  private final FlowRecordSkim skim = new FlowRecordSkim();
  private final ObservationMapper.Targets targets = new ObservationMapper.Targets();
  private ProcessorContext<String, Decoded<Observation>> context;
  private KeyValueStore<Bytes, byte[]> pending;
  private int size;

  /**
   * @param topic the flows topic (for dead-letter headers and messages)
   * @param serde the flows topic's value serde: binary with the JSON fallback
   * @param batches each record is a {@link FlowBatch} of flow records (the in-process driver), each
   *     taken as the record it stands for
   */
  public ObservationCombiner(
      String topic,
      BinarySerde<FlowRecord> serde,
      ObservationMapper mapper,
      ProcessorMetrics metrics,
      Duration interval,
      int maxPending,
      boolean batches) {
    this.batches = batches;
    this.topic = topic;
    this.maxPending = maxPending;
    this.serde = serde;
    this.mapper = mapper;
    this.metrics = metrics;
    this.interval = interval;
  }

  @Override
  public void init(ProcessorContext<String, Decoded<Observation>> context) {
    this.context = context;
    this.pending = context.getStateStore(StoreNames.COMBINER);
    size = 0;
    try (KeyValueIterator<Bytes, byte[]> all = pending.all()) {
      while (all.hasNext()) {
        all.next();
        size++;
      }
    }
    context.schedule(interval, PunctuationType.WALL_CLOCK_TIME, now -> flush());
  }

  @Override
  public void process(Record<byte[], byte[]> record) {
    if (!batches) {
      processOne(record);
      return;
    }
    try {
      FlowBatch.forEach(
          record.value(),
          (key, value, timestamp) ->
              processOne(new Record<>(key, value, timestamp, record.headers())));
    } catch (MalformedRecordException e) {
      deadLetter(record, e);
    }
  }

  private void processOne(Record<byte[], byte[]> record) {
    byte[] value = record.value();
    if (value == null) {
      return; // a tombstone on the flows topic means nothing
    }
    // Most records repeat a flow that waits: the top level of the record is enough to know it (its
    // identity includes both ends, whose workloads the waiting entry remembers).
    if (isBinary(value) && repeatsAWaitingFlow(value, record.timestamp())) {
      return;
    }
    // A binary record is walked as it is; JSON of an older version, a header this version refuses
    // or a record the walk cannot read is decoded in full (which says why it is unreadable).
    byte[] bytes = value;
    boolean decoded = !isBinary(value) || !skims(value);
    if (decoded) {
      try {
        bytes = serde.write(serde.read(topic, value));
        skim.skim(bytes, 2);
      } catch (RuntimeException e) {
        deadLetter(record, e);
        return;
      }
    }
    // One entry per flow, for all its targets: the targets follow from the flow, and so do its
    // updates.
    mapper.map(
        skim.protocol(),
        skim.verdict(),
        skim.reporter(),
        skim.hasSrcWorkload(),
        skim.hasDstWorkload(),
        targets);
    Bytes key = key(skim.identityHash());
    byte[] old = targets.size() == 0 ? null : pending.get(key);
    if (old != null && Entry.holds(old, skim)) {
      mapper.count(targets);
      pending.put(key, Entry.add(old, skim, record.timestamp()));
      return;
    }
    if (!decoded) {
      // A flow this task does not combine yet (or one that concerns no target): make sure the whole
      // record reads before using it.
      try {
        serde.read(topic, bytes);
      } catch (RuntimeException e) {
        deadLetter(record, e);
        return;
      }
    }
    mapper.count(targets);
    if (targets.size() == 0) {
      return;
    }
    targets.resolve(skim.srcWorkload(), skim.dstWorkload());
    if (old != null) {
      // Two flows with one hash: the waiting one leaves now, nothing is merged that differs.
      forward(old);
    } else {
      size++;
    }
    pending.put(key, Entry.of(targets, skim, record.timestamp()));
    if (size >= maxPending) {
      flush();
    }
  }

  /** Adds the record to the entry waiting for its flow, if there is one that knows its ends. */
  private boolean repeatsAWaitingFlow(byte[] value, long timestamp) {
    try {
      skim.skimTopLevel(value, 2);
    } catch (RuntimeException e) {
      return false; // the full walk or the decoder says why
    }
    Bytes key = key(skim.identityHash());
    byte[] old = pending.get(key);
    if (old == null || !Entry.knowsEnds(old) || !Entry.holds(old, skim)) {
      return false;
    }
    mapper.map(
        skim.protocol(),
        skim.verdict(),
        skim.reporter(),
        Entry.hasSrcWorkload(old),
        Entry.hasDstWorkload(old),
        targets);
    mapper.count(targets);
    // The store's own array, changed in place and put back (PendingCombinations).
    pending.put(key, Entry.add(old, skim, timestamp));
    return true;
  }

  private boolean skims(byte[] value) {
    try {
      skim.skim(value, 2);
      return true;
    } catch (RuntimeException e) {
      return false;
    }
  }

  private static boolean isBinary(byte[] value) {
    return value.length >= 2 && value[0] == BinarySerde.MAGIC && value[1] == BinarySerde.VERSION;
  }

  private void deadLetter(Record<byte[], byte[]> record, RuntimeException e) {
    String key = record.key() == null ? null : new String(record.key(), StandardCharsets.UTF_8);
    context.forward(
        RecordDecoder.deadLettered(context, record, topic, key, e.getMessage(), e, metrics));
  }

  /** Forwards every waiting combination, oldest latest record first, and deletes it. */
  private void flush() {
    if (size == 0) {
      return;
    }
    List<KeyValue<Bytes, byte[]>> all = new ArrayList<>(size);
    try (KeyValueIterator<Bytes, byte[]> it = pending.all()) {
      while (it.hasNext()) {
        all.add(it.next());
      }
    }
    // Stable: ties keep the order the combinations were first seen in, so a flush is deterministic.
    all.sort(Comparator.comparingLong(entry -> latestRecord(entry.value)));
    for (KeyValue<Bytes, byte[]> entry : all) {
      forward(entry.value);
      pending.delete(entry.key);
    }
    size = 0;
  }

  /**
   * The timestamp of the entry's latest record; entries of older versions (after an upgrade) first.
   */
  private static long latestRecord(byte[] entry) {
    return Entry.isCurrent(entry) ? Entry.latestRecord(entry) : Long.MIN_VALUE;
  }

  private void forward(byte[] entry) {
    if (Entry.isCurrent(entry)) {
      metrics.observationsCombined(Entry.forward(entry, context));
    } else {
      context.forward(LegacyEntry.read(entry).observation());
      metrics.observationsCombined(1);
    }
  }

  /**
   * Short keys keep the record cache's ordered map and hash set cheap: the flow identity's 64-bit
   * hash. The identity itself is in the value and compared, so a collision costs an early forward,
   * never a wrong merge.
   */
  private static Bytes key(long hash) {
    byte[] key = new byte[8];
    Entry.LONGS.set(key, 0, hash);
    return Bytes.wrap(key);
  }

  /**
   * What waits for one flow, laid out so that adding a flow record rewrites a few fixed fields:
   * {@code 0x00 0x03}, first seen (seconds, nanos), last seen (seconds, nanos), count, flow
   * records, latest timestamp, which ends have a workload (one byte: 1 the source, 2 the
   * destination), the number of targets (one byte), each target (2-byte length, UTF-8) with its
   * fallback (2-byte length, {@code 0xffff} for none), then the flow's identity (a flow record
   * without times and count) to the end. Version 2 (restored from an older changelog) lacks the
   * ends byte: a repeat of its flow is then walked in full. The first byte tells both from the
   * entries older versions wrote ({@link LegacyEntry}), which start with a protocol-buffers tag.
   */
  static final class Entry {
    static final VarHandle LONGS =
        MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    static final VarHandle INTS =
        MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final byte VERSION = 3;
    private static final byte VERSION_WITHOUT_ENDS = 2;
    private static final int FIRST_SECONDS = 2;
    private static final int FIRST_NANOS = 10;
    private static final int LAST_SECONDS = 14;
    private static final int LAST_NANOS = 22;
    private static final int COUNT = 26;
    private static final int RECORDS = 34;
    private static final int TIMESTAMP = 42;
    private static final int ENDS = 50;
    private static final int SRC_WORKLOAD = 1;
    private static final int DST_WORKLOAD = 2;
    private static final int NO_FALLBACK = 0xffff;

    private Entry() {}

    static boolean isCurrent(byte[] entry) {
      return entry.length > ENDS + 1
          && entry[0] == 0
          && (entry[1] == VERSION || entry[1] == VERSION_WITHOUT_ENDS);
    }

    /** Whether the entry says which ends have a workload (version 3). */
    static boolean knowsEnds(byte[] entry) {
      return entry[0] == 0 && entry[1] == VERSION && entry.length > ENDS + 1;
    }

    static boolean hasSrcWorkload(byte[] entry) {
      return (entry[ENDS] & SRC_WORKLOAD) != 0;
    }

    static boolean hasDstWorkload(byte[] entry) {
      return (entry[ENDS] & DST_WORKLOAD) != 0;
    }

    /**
     * Where the number of targets is: after the ends byte in version 3, in its place in version 2.
     */
    private static int targets(byte[] entry) {
      return entry[1] == VERSION ? ENDS + 1 : ENDS;
    }

    static byte[] of(ObservationMapper.Targets targets, FlowRecordSkim flow, long timestamp) {
      int n = targets.size();
      byte[][] names = new byte[2 * n][];
      int targetsAt = ENDS + 1;
      int length = targetsAt + 1 + flow.identityLength();
      for (int i = 0; i < n; i++) {
        names[2 * i] = targets.key(i).getBytes(StandardCharsets.UTF_8);
        names[2 * i + 1] =
            targets.fallback(i) == null
                ? null
                : targets.fallback(i).getBytes(StandardCharsets.UTF_8);
        length +=
            4 + names[2 * i].length + (names[2 * i + 1] == null ? 0 : names[2 * i + 1].length);
      }
      byte[] entry = new byte[length];
      entry[0] = 0;
      entry[1] = VERSION;
      setTimes(entry, flow.firstSeen(), flow.lastSeen());
      LONGS.set(entry, COUNT, flow.count());
      LONGS.set(entry, RECORDS, 1L);
      LONGS.set(entry, TIMESTAMP, timestamp);
      entry[ENDS] =
          (byte)
              ((flow.hasSrcWorkload() ? SRC_WORKLOAD : 0)
                  | (flow.hasDstWorkload() ? DST_WORKLOAD : 0));
      entry[targetsAt] = (byte) n;
      int at = targetsAt + 1;
      for (int i = 0; i < n; i++) {
        at = putString(entry, at, names[2 * i]);
        at =
            names[2 * i + 1] == null
                ? putLength(entry, at, NO_FALLBACK)
                : putString(entry, at, names[2 * i + 1]);
      }
      flow.copyIdentity(entry, at);
      return entry;
    }

    /** Whether {@code entry} waits for the very flow {@code flow} is (times and count apart). */
    static boolean holds(byte[] entry, FlowRecordSkim flow) {
      return isCurrent(entry) && flow.identityEquals(entry, identityStart(entry), entry.length);
    }

    /**
     * Adds one flow record to {@code out}, in place: earlier first seen, later last seen, counts
     * summed.
     */
    static byte[] add(byte[] out, FlowRecordSkim flow, long timestamp) {
      Instant first = flow.firstSeen();
      Instant last = flow.lastSeen();
      Instant oldFirst = instant(out, FIRST_SECONDS, FIRST_NANOS);
      Instant oldLast = instant(out, LAST_SECONDS, LAST_NANOS);
      setTimes(
          out, first.isBefore(oldFirst) ? first : oldFirst, last.isAfter(oldLast) ? last : oldLast);
      LONGS.set(out, COUNT, Counts.sum((long) LONGS.get(out, COUNT), flow.count()));
      LONGS.set(out, RECORDS, (long) LONGS.get(out, RECORDS) + 1);
      LONGS.set(out, TIMESTAMP, Math.max((long) LONGS.get(out, TIMESTAMP), timestamp));
      return out;
    }

    /** The timestamp of the latest flow record combined into {@code entry}. */
    static long latestRecord(byte[] entry) {
      return (long) LONGS.get(entry, TIMESTAMP);
    }

    /** Forwards one observation per target of {@code entry}; returns how many. */
    static int forward(byte[] entry, ProcessorContext<String, Decoded<Observation>> context) {
      FlowRecord identity =
          FlowRecordCodec.INSTANCE.read(new WireReader(entry, identityStart(entry), entry.length));
      FlowRecord flow =
          identity.withTimes(
              instant(entry, FIRST_SECONDS, FIRST_NANOS),
              (long) LONGS.get(entry, COUNT),
              instant(entry, LAST_SECONDS, LAST_NANOS));
      long records = (long) LONGS.get(entry, RECORDS);
      long timestamp = latestRecord(entry);
      int targetsAt = targets(entry);
      int at = targetsAt + 1;
      for (int i = 0; i < entry[targetsAt]; i++) {
        int targetLength = length(entry, at);
        String target = new String(entry, at + 2, targetLength, StandardCharsets.UTF_8);
        at += 2 + targetLength;
        int fallbackLength = length(entry, at);
        String fallback =
            fallbackLength == NO_FALLBACK
                ? null
                : new String(entry, at + 2, fallbackLength, StandardCharsets.UTF_8);
        at += 2 + (fallbackLength == NO_FALLBACK ? 0 : fallbackLength);
        context.forward(
            new Record<>(target, Decoded.ok(new Observation(flow, fallback, records)), timestamp));
      }
      return entry[targetsAt];
    }

    private static int identityStart(byte[] entry) {
      int targetsAt = targets(entry);
      int at = targetsAt + 1;
      for (int i = 0; i < entry[targetsAt]; i++) {
        at += 2 + length(entry, at);
        int fallbackLength = length(entry, at);
        at += 2 + (fallbackLength == NO_FALLBACK ? 0 : fallbackLength);
      }
      return at;
    }

    private static void setTimes(byte[] entry, Instant first, Instant last) {
      LONGS.set(entry, FIRST_SECONDS, first.getEpochSecond());
      INTS.set(entry, FIRST_NANOS, first.getNano());
      LONGS.set(entry, LAST_SECONDS, last.getEpochSecond());
      INTS.set(entry, LAST_NANOS, last.getNano());
    }

    private static Instant instant(byte[] entry, int seconds, int nanos) {
      return Instant.ofEpochSecond((long) LONGS.get(entry, seconds), (int) INTS.get(entry, nanos));
    }

    private static int putString(byte[] entry, int at, byte[] s) {
      if (s.length >= NO_FALLBACK) {
        throw new IllegalArgumentException("target key of " + s.length + " bytes");
      }
      at = putLength(entry, at, s.length);
      System.arraycopy(s, 0, entry, at, s.length);
      return at + s.length;
    }

    private static int putLength(byte[] entry, int at, int length) {
      entry[at] = (byte) (length >>> 8);
      entry[at + 1] = (byte) length;
      return at + 2;
    }

    private static int length(byte[] entry, int at) {
      return (entry[at] & 0xff) << 8 | entry[at + 1] & 0xff;
    }
  }

  /**
   * An entry as versions before the byte-level combiner wrote it (protocol-buffers fields), still
   * read when a store restored from an older changelog holds one: it is forwarded at the next
   * flush.
   */
  private record LegacyEntry(
      String target,
      String fallback,
      byte[] identity,
      Instant first,
      Instant last,
      long count,
      long records,
      long timestamp) {

    static LegacyEntry read(byte[] bytes) {
      WireReader in = new WireReader(bytes, 0, bytes.length);
      long firstSeconds = 0;
      int firstNanos = 0;
      long lastSeconds = 0;
      int lastNanos = 0;
      long count = 0;
      long timestamp = 0;
      long records =
          1; // entries written before the field stood for one flow record each time: a lower bound
      byte[] identity = null;
      String target = null;
      String fallback = null;
      while (in.hasMore()) {
        int tag = in.readTag();
        switch (WireReader.field(tag)) {
          case 1 -> firstSeconds = in.readVarint();
          case 2 -> firstNanos = in.readInt();
          case 3 -> lastSeconds = in.readVarint();
          case 4 -> lastNanos = in.readInt();
          case 5 -> count = in.readVarint();
          case 6 -> timestamp = in.readVarint();
          case 7 -> identity = in.readBytes();
          case 8 -> target = in.readString();
          case 9 -> fallback = in.readString();
          case 10 -> records = in.readVarint();
          default -> in.skip(tag);
        }
      }
      if (identity == null || target == null) {
        throw new MalformedRecordException("combiner entry without target or flow");
      }
      return new LegacyEntry(
          target,
          fallback,
          identity,
          Instant.ofEpochSecond(firstSeconds, firstNanos),
          Instant.ofEpochSecond(lastSeconds, lastNanos),
          count,
          records,
          timestamp);
    }

    Record<String, Decoded<Observation>> observation() {
      FlowRecord id = FlowRecordCodec.INSTANCE.read(new WireReader(identity, 0, identity.length));
      FlowRecord flow = id.withTimes(first, count, last);
      return new Record<>(target, Decoded.ok(new Observation(flow, fallback, records)), timestamp);
    }
  }
}
