package io.kubewarden.networkenforcer.processor.decoding;

import org.apache.kafka.streams.processor.api.ContextualProcessor;
import org.apache.kafka.streams.processor.api.Record;

/** Turns an unreadable record back into its original bytes, with the error in the headers. */
public final class DeadLetterForwarder<V>
    extends ContextualProcessor<String, Decoded<V>, byte[], byte[]> {

  @Override
  public void process(Record<String, Decoded<V>> record) {
    Decoded<V> d = record.value();
    context()
        .forward(new Record<>(d.rawKey(), d.rawValue(), record.timestamp(), d.deadLetterHeaders()));
  }
}
