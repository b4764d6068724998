package io.kubewarden.networkenforcer.processor.observation;

import io.kubewarden.networkenforcer.common.codec.BinaryCodec;
import io.kubewarden.networkenforcer.common.codec.MalformedRecordException;
import io.kubewarden.networkenforcer.common.codec.WireReader;
import io.kubewarden.networkenforcer.common.codec.WireWriter;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.FlowRecordCodec;
import io.kubewarden.networkenforcer.common.topics.BinarySerde;

/**
 * The binary form of an {@link Observation} on the processor's internal topics (observations
 * repartition, deny re-attribution): {@code 1 flow FlowRecord} (see {@link FlowRecordCodec}),
 * {@code 2 fallbackTarget}, {@code 3 records} (written when more than one; absent means one). Field
 * numbers are never reused; readers skip unknown ones.
 */
public final class ObservationCodec implements BinaryCodec<Observation> {
  public static final ObservationCodec INSTANCE = new ObservationCodec();

  private ObservationCodec() {}

  /** Binary, with a version header; reads the JSON observations older versions wrote, too. */
  public static BinarySerde<Observation> serde() {
    return new BinarySerde<>(Observation.class, INSTANCE, 512);
  }

  @Override
  public void write(WireWriter out, Observation o) {
    int m = out.beginMessage(1);
    FlowRecordCodec.INSTANCE.write(out, o.flow());
    out.endMessage(m);
    out.string(2, o.fallbackTarget());
    if (o.records() > 1) {
      out.varint(3, o.records());
    }
  }

  @Override
  public Observation read(WireReader in) {
    FlowRecord flow = null;
    String fallback = null;
    long records = 1;
    while (in.hasMore()) {
      int tag = in.readTag();
      switch (WireReader.field(tag)) {
        case 1 -> flow = FlowRecordCodec.INSTANCE.read(in.nested());
        case 2 -> fallback = in.readString();
        case 3 -> records = in.readVarint();
        default -> in.skip(tag);
      }
    }
    if (flow == null) {
      throw new MalformedRecordException("an observation needs its flow");
    }
    return new Observation(flow, fallback, records);
  }
}
