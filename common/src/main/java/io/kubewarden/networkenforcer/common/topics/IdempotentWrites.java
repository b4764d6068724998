package io.kubewarden.networkenforcer.common.topics;

import java.util.Properties;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * How every producer of the product writes outside a transaction: idempotent, acknowledged by all
 * in-sync replicas, and one request in flight per broker.
 *
 * <p>Why one: a broker takes any first sequence number from a producer it holds no state for. When
 * the first batch of a partition fails with a retriable error (a new partition's leader not serving
 * it yet) while the batches behind it, pipelined on the same connection, land, the retried first
 * batch is refused as out of order until the delivery timeout drops it: the bench once lost 1,257
 * of 50,000 flows that way, and {@code FirstRecordsAfterCreationTest} lost 17 records in one of 20
 * rounds (under load, after {@link MissingTopics} had seen every partition served). With one
 * request in flight no batch is sent before the one ahead of it landed. Ingest publishes a window
 * of aggregated flows at a time, so the pipelining this gives up was not what its rate rests on.
 */
public final class IdempotentWrites {
  private IdempotentWrites() {}

  /** Sets the three settings on {@code p} (over anything given before) and returns it. */
  public static Properties apply(Properties p) {
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
    return p;
  }
}
