package io.kubewarden.networkenforcer.ingest.publishing;

import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.ingest.parsing.DropReason;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Every number the ingest service reports. Prometheus names end in {@code _total} for counters. The
 * per-flow counters are looked up once per tag value, not per flow (a registry lookup builds the
 * meter id each time).
 */
public final class IngestMetrics {
  private final MeterRegistry registry;
  private final Map<Provider, Counter> published = new ConcurrentHashMap<>();
  private final Map<Provider, Counter> accepted = new ConcurrentHashMap<>();
  private final Map<String, Map<DropReason, Counter>> dropped = new ConcurrentHashMap<>();

  public IngestMetrics(MeterRegistry registry) {
    this.registry = registry;
    // At 0 from the start, so that an alert's increase() sees the first failure as a change.
    registry.counter("network.enforcer.ingest.publish.errors");
    registry.counter("network.enforcer.ingest.dead.letters");
  }

  public MeterRegistry registry() {
    return registry;
  }

  /** A flow record handed on to the sinks (the aggregator may fold it with others before Kafka). */
  public void accepted(Provider provider) {
    accepted
        .computeIfAbsent(
            provider, p -> counter("network.enforcer.ingest.flows.accepted", "provider", p.name()))
        .increment();
  }

  /** A record Kafka acknowledged. */
  public void published(Provider provider) {
    published
        .computeIfAbsent(
            provider, p -> counter("network.enforcer.ingest.flows.published", "provider", p.name()))
        .increment();
  }

  public void dropped(String source, DropReason reason) {
    dropped
        .computeIfAbsent(source, s -> new ConcurrentHashMap<>())
        .computeIfAbsent(
            reason,
            r ->
                registry.counter(
                    "network.enforcer.ingest.flows.dropped", "source", source, "reason", r.tag()))
        .increment();
  }

  public void badInput(String source) {
    counter("network.enforcer.ingest.input.invalid", "source", source).increment();
  }

  public void lostEvents(long count) {
    counter("network.enforcer.ingest.hubble.lost.events", "source", "hubble").increment(count);
  }

  public void reconnect(String source) {
    counter("network.enforcer.ingest.stream.reconnects", "source", source).increment();
  }

  public void publishFailed() {
    registry.counter("network.enforcer.ingest.publish.errors").increment();
  }

  public void deadLettered() {
    registry.counter("network.enforcer.ingest.dead.letters").increment();
  }

  /** A 0/1 gauge: the provider stream is connected. */
  public AtomicInteger streamUp(String source) {
    return registry.gauge(
        "network.enforcer.ingest.stream.up",
        List.of(Tag.of("source", source)),
        new AtomicInteger());
  }

  private Counter counter(String name, String tagKey, String tagValue) {
    return registry.counter(name, tagKey, tagValue);
  }
}
