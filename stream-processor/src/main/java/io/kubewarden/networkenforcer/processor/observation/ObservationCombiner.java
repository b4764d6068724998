package io.kubewarden.networkenforcer.processor.observation;

import io.kubewarden.networkenforcer.common.codec.MalformedRecordException;
import io.kubewarden.networkenforcer.common.codec.WireReader;
import io.kubewarden.networkenforcer.common.codec.WireWriter;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.FlowRecordCodec;
import io.kubewarden.networkenforcer.processor.topology.StoreNames;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
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
 * Maps each flow to its observations ({@link ObservationMapper}) and combines the observations of
 * one target and one flow (the same flow but for its times and count) into one record, so that the
 * repartition carries aggregates, not flows. Every {@code interval} (wall clock) and whenever
 * {@link #MAX_PENDING} combinations wait, each is forwarded as one observation whose flow has the
 * earliest first seen, the latest last seen and the summed count, and is deleted. The observation
 * also says how many flow records it stands for ({@link Observation#records()}), so a violation
 * found on it still counts each of them.
 *
 * <p>Why this loses nothing on a crash or a rebalance: the waiting combinations live in a
 * changelogged state store ({@link StoreNames#COMBINER}), not in a field of this class. A commit
 * writes whatever still waits to the changelog in the same transaction as the input offsets it
 * came from (exactly-once) or before them (at-least-once), and a forward and its delete happen in
 * the same transaction too. After a crash the store is restored to the last commit and the input
 * after it is read again, so each flow is counted exactly once. The record cache in front of the
 * store keeps this cheap: the many updates of one combination within a commit interval reach the
 * changelog as one record, and a combination forwarded before the commit as at most a tombstone.
 */
public final class ObservationCombiner implements Processor<String, FlowRecord, String, Observation> {
  /** Combinations per task before they are forwarded early: bounds the store and the cache. */
  public static final int MAX_PENDING = 10_000;

  private final ObservationMapper mapper;
  private final Duration interval;
  private ProcessorContext<String, Observation> context;
  private KeyValueStore<Bytes, byte[]> pending;
  private int size;

  public ObservationCombiner(ObservationMapper mapper, Duration interval) {
    this.mapper = mapper;
    this.interval = interval;
  }

  @Override
  public void init(ProcessorContext<String, Observation> context) {
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
  public void process(Record<String, FlowRecord> record) {
    FlowRecord flow = record.value();
    List<KeyValue<String, Observation>> observations = mapper.observe(flow);
    if (observations.isEmpty()) {
      return;
    }
    // The flow without its times and count: what makes two flows combinable. Encoded once per flow.
    byte[] identity = identity(flow);
    long hash = fnv1a(identity);
    for (KeyValue<String, Observation> observation : observations) {
      String fallback = observation.value.fallbackTarget();
      Bytes key = key(observation.key, fallback, hash);
      byte[] old = pending.get(key);
      Combined combined = new Combined(observation.key, fallback, identity, flow.firstSeen(), flow.lastSeen(),
          flow.count(), observation.value.records(), record.timestamp());
      if (old == null) {
        size++;
      } else {
        Combined before = Combined.read(old);
        if (Arrays.equals(before.identity, identity)) {
          combined = before.plus(flow, observation.value.records(), record.timestamp());
        } else {
          // Two flows with one hash: the waiting one leaves now, nothing is merged that differs.
          forward(before);
        }
      }
      pending.put(key, combined.write());
    }
    if (size >= MAX_PENDING) {
      flush();
    }
  }

  /** Forwards every waiting combination, in key order, and deletes it. */
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
    for (KeyValue<Bytes, byte[]> entry : all) {
      forward(Combined.read(entry.value));
      pending.delete(entry.key);
    }
    size = 0;
  }

  private void forward(Combined combined) {
    FlowRecord identity = FlowRecordCodec.INSTANCE.read(new WireReader(combined.identity, 0,
        combined.identity.length));
    FlowRecord flow = new FlowRecord(combined.first, identity.provider(), identity.protocol(), identity.dstPort(),
        identity.src(), identity.dst(), identity.verdict(), identity.denyingPolicy(), combined.count,
        identity.reporter(), combined.last);
    context.forward(new Record<>(combined.target, new Observation(flow, combined.fallback, combined.records), combined.timestamp));
  }

  private static byte[] identity(FlowRecord flow) {
    FlowRecord timeless = new FlowRecord(Instant.EPOCH, flow.provider(), flow.protocol(), flow.dstPort(), flow.src(),
        flow.dst(), flow.verdict(), flow.denyingPolicy(), 1, flow.reporter(), null);
    WireWriter out = new WireWriter(512);
    FlowRecordCodec.INSTANCE.write(out, timeless);
    return out.toByteArray();
  }

  /**
   * Short keys keep the record cache's ordered map cheap: target, fallback and a 64-bit hash of the
   * flow's identity. The identity itself is in the value and compared, so a hash collision costs an
   * early forward, never a wrong merge.
   */
  private static Bytes key(String target, String fallback, long hash) {
    WireWriter out = new WireWriter(target.length() + 24);
    out.string(1, target);
    out.string(2, fallback);
    out.varint(3, hash);
    return Bytes.wrap(out.toByteArray());
  }

  private static long fnv1a(byte[] bytes) {
    long h = 0xcbf29ce484222325L;
    for (byte b : bytes) {
      h ^= b & 0xff;
      h *= 0x100000001b3L;
    }
    return h;
  }

  /**
   * What waits for one combination: target, flow identity, first and last seen, count, the flow
   * records it stands for, latest timestamp.
   */
  private record Combined(String target, String fallback, byte[] identity, Instant first, Instant last, long count,
      long records, long timestamp) {

    Combined plus(FlowRecord flow, long moreRecords, long recordTimestamp) {
      return new Combined(target, fallback, identity, flow.firstSeen().isBefore(first) ? flow.firstSeen() : first,
          flow.lastSeen().isAfter(last) ? flow.lastSeen() : last, count + flow.count(), records + moreRecords,
          Math.max(timestamp, recordTimestamp));
    }

    byte[] write() {
      WireWriter out = new WireWriter(identity.length + target.length() + 64);
      out.varint(1, first.getEpochSecond());
      out.varint(2, first.getNano());
      out.varint(3, last.getEpochSecond());
      out.varint(4, last.getNano());
      out.varint(5, count);
      out.varint(6, timestamp);
      out.bytes(7, identity);
      out.string(8, target);
      out.string(9, fallback);
      out.varint(10, records);
      return out.toByteArray();
    }

    static Combined read(byte[] bytes) {
      WireReader in = new WireReader(bytes, 0, bytes.length);
      long firstSeconds = 0;
      int firstNanos = 0;
      long lastSeconds = 0;
      int lastNanos = 0;
      long count = 0;
      long timestamp = 0;
      long records = 1; // entries written before the field stood for one flow record each time: a lower bound
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
      return new Combined(target, fallback, identity, Instant.ofEpochSecond(firstSeconds, firstNanos),
          Instant.ofEpochSecond(lastSeconds, lastNanos), count, records, timestamp);
    }
  }
}
