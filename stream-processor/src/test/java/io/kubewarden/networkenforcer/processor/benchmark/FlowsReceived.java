package io.kubewarden.networkenforcer.processor.benchmark;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.LongSupplier;

/**
 * The processor's {@code flows.received} count, read every few milliseconds by the benchmarks. The
 * counter is looked up once: a registry search walks every meter (Kafka's clients bind hundreds),
 * which at a 20 ms poll took 16 % of a processor process's CPU samples (JFR) and competed with the
 * stream thread for this machine's two cores.
 */
final class FlowsReceived implements LongSupplier {
  private final MeterRegistry registry;
  private Counter counter;

  FlowsReceived(MeterRegistry registry) {
    this.registry = registry;
  }

  @Override
  public long getAsLong() {
    if (counter == null) {
      counter = registry.find("network_enforcer.processor.flows.received").counter();
    }
    return counter == null ? 0 : (long) counter.count();
  }
}
