package io.kubewarden.networkenforcer.processor.progress;

import io.kubewarden.networkenforcer.processor.learning.LearnedAllowList;
import io.kubewarden.networkenforcer.processor.store.StoreNames;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.errors.UnknownStateStoreException;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * What this instance holds that has been consumed but not yet published, read from its state
 * stores: observations waiting in the combiner, evidence the punctuator has not yet flushed. While
 * a store cannot be queried (rebalancing, restoring) it counts as holding something.
 */
final class LocalBacklog {
  private final KafkaStreams streams;

  LocalBacklog(KafkaStreams streams) {
    this.streams = streams;
  }

  /** Consumed flows whose observations have not yet reached the repartition topic. */
  boolean combinationsWaiting() {
    try {
      ReadOnlyKeyValueStore<Bytes, byte[]> store =
          streams.store(
              StoreQueryParameters.fromNameAndType(
                  StoreNames.COMBINER, QueryableStoreTypes.<Bytes, byte[]>keyValueStore()));
      // A count, not an iteration: the combiner's store changes on its stream thread meanwhile.
      return store.approximateNumEntries() > 0;
    } catch (UnknownStateStoreException e) {
      // A topology without a combiner (combine interval 0).
      return false;
    } catch (InvalidStateStoreException e) {
      return true;
    }
  }

  /** A learned allow-list whose evidence changed since it was last published. */
  boolean unpublishedEvidence() {
    try {
      ReadOnlyKeyValueStore<String, LearnedAllowList> store =
          streams.store(
              StoreQueryParameters.fromNameAndType(
                  StoreNames.LEARNED,
                  QueryableStoreTypes.<String, LearnedAllowList>keyValueStore()));
      try (KeyValueIterator<String, LearnedAllowList> all = store.all()) {
        while (all.hasNext()) {
          KeyValue<String, LearnedAllowList> e = all.next();
          if (e.value != null && e.value.evidenceDirty()) {
            return true;
          }
        }
      }
      return false;
    } catch (InvalidStateStoreException e) {
      return true;
    }
  }
}
