package io.kubewarden.networkenforcer.ingest.hubble;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.util.JsonFormat;
import io.kubewarden.networkenforcer.ingest.Fixtures;
import io.kubewarden.networkenforcer.ingest.proto.hubble.flow.Layer4;
import io.kubewarden.networkenforcer.ingest.proto.hubble.observer.GetFlowsResponse;
import io.kubewarden.networkenforcer.ingest.publishing.DeadLetterSink;
import io.kubewarden.networkenforcer.ingest.publishing.FlowIntake;
import io.kubewarden.networkenforcer.ingest.publishing.IngestMetrics;
import io.kubewarden.networkenforcer.ingest.resolution.WorkloadResolver;
import io.kubewarden.networkenforcer.ingest.transport.Keepalive;
import io.kubewarden.networkenforcer.ingest.transport.StreamSettings;
import io.kubewarden.networkenforcer.ingest.transport.TlsMaterialLoader;
import io.kubewarden.networkenforcer.ingest.transport.TlsSettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Prints how many Hubble messages per second one source thread decodes, resolves and hands on
 * (Kafka excluded). A figure, not a timed assertion: only the count is checked.
 */
class HubbleThroughputTest {
  private static final int MESSAGES = 40_000;

  @Test
  void decodeResolveAndHandOn() throws Exception {
    GetFlowsResponse.Builder template = GetFlowsResponse.newBuilder();
    JsonFormat.parser()
        .ignoringUnknownFields()
        .merge(Files.readAllLines(Fixtures.file("hubble-flows.jsonl")).get(1), template);
    List<byte[]> messages = new ArrayList<>(MESSAGES);
    for (int i = 0; i < MESSAGES; i++) {
      GetFlowsResponse.Builder b = template.clone();
      // A distinct client port per message: each one a new connection.
      b.getFlowBuilder()
          .setL4(
              Layer4.newBuilder()
                  .setTCP(
                      b.getFlow().getL4().getTCP().toBuilder().setSourcePort(1024 + i % 60000)));
      b.getFlowBuilder()
          .getTimeBuilder()
          .setSeconds(b.getFlow().getTime().getSeconds() + i / 60000 * 60L);
      messages.add(b.build().toByteArray());
    }
    AtomicLong handedOn = new AtomicLong();
    FlowIntake intake =
        new FlowIntake(
            List.of(r -> handedOn.incrementAndGet()),
            DeadLetterSink.discard(),
            new IngestMetrics(new SimpleMeterRegistry()));
    try (HubbleSource source =
        new HubbleSource(
            new StreamSettings(
                "localhost:1",
                TlsSettings.insecure(),
                Duration.ofSeconds(1),
                Duration.ofSeconds(1),
                Keepalive.grpcGoCompatible()),
            new TlsMaterialLoader(null),
            new WorkloadResolver(Fixtures.clusterState()),
            intake,
            Clock.systemUTC())) {
      // First half warms the JIT up; the second half is measured.
      messages.subList(0, MESSAGES / 2).forEach(source::handle);
      long start = System.nanoTime();
      messages.subList(MESSAGES / 2, MESSAGES).forEach(source::handle);
      double seconds = (System.nanoTime() - start) / 1e9;
      System.out.printf(
          "hubble: %d messages decoded, resolved and handed on in %.2f s = %.0f flows/s%n",
          MESSAGES / 2, seconds, MESSAGES / 2 / seconds);
    }
    assertThat(handedOn.get()).isEqualTo(MESSAGES);
  }
}
