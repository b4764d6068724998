package io.kubewarden.networkenforcer.cli.incluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kubewarden.networkenforcer.cli.CliRun;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.ingest.goldmane.GoldmaneSource;
import io.kubewarden.networkenforcer.ingest.publishing.FlowIntake;
import io.kubewarden.networkenforcer.ingest.publishing.IngestMetrics;
import io.kubewarden.networkenforcer.ingest.resolution.ClusterStateFile;
import io.kubewarden.networkenforcer.ingest.resolution.WorkloadResolver;
import io.kubewarden.networkenforcer.ingest.transport.Keepalive;
import io.kubewarden.networkenforcer.ingest.transport.StreamSettings;
import io.kubewarden.networkenforcer.ingest.transport.TlsMaterialLoader;
import io.kubewarden.networkenforcer.ingest.transport.TlsMode;
import io.kubewarden.networkenforcer.ingest.transport.TlsSettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Goldmane stand-in the in-cluster Calico install reads, against the product's own Goldmane
 * client over mutual TLS, with Calico's key pair (PKCS#1, server and client auth) on both ends as
 * the chart's default {@code existingSecret} mode uses it: a call from now gets the capture, a
 * resumed call its buckets from the start time on.
 */
class GoldmaneStandInTest {
  /** Start of the sample capture's third 15 s bucket. */
  private static final long THIRD_BUCKET = 1785771630L;

  @TempDir Path dir;
  private final List<FlowRecord> published = new CopyOnWriteArrayList<>();
  private GoldmaneStandIn goldmane;
  private Path clientDir;
  private GoldmaneSource source;

  @BeforeEach
  void serve() throws Exception {
    CertManagerShapedTls tls = CertManagerShapedTls.create(dir.resolve("tigera-ca"));
    CertManagerShapedTls.Pair keyPair =
        tls.serverAndClient("goldmane", List.of("goldmane.calico-system.svc", "localhost"));
    goldmane =
        GoldmaneStandIn.serve(
            Files.readAllLines(CliRun.sample("goldmane-flows.jsonl")),
            "127.0.0.1",
            keyPair.certificate(),
            CertManagerShapedTls.pkcs8Key(keyPair),
            tls.ca());
    // What the product reads from goldmane-key-pair and goldmane-ca-bundle.
    clientDir = Files.createDirectories(dir.resolve("client"));
    Files.copy(keyPair.certificate(), clientDir.resolve("tls.crt"));
    Files.copy(keyPair.key(), clientDir.resolve("tls.key"));
    Files.copy(tls.ca(), clientDir.resolve("ca.crt"));
    assertThat(Files.readString(clientDir.resolve("tls.key")))
        .startsWith("-----BEGIN RSA PRIVATE KEY-----");
  }

  @AfterEach
  void stop() throws Exception {
    if (source != null) {
      source.close();
    }
    goldmane.close();
  }

  @Test
  void aCallFromNowGetsTheCaptureAndTheProductPublishesEachConnectionOnce() {
    source = follow(null);
    await().atMost(Duration.ofSeconds(30)).until(() -> goldmane.flowsSent() == 7);
    // 7 reports: 3 connections reported by both ends, 1 to the internet by its source only.
    await().atMost(Duration.ofSeconds(30)).until(() -> published.size() == 4);
    assertThat(goldmane.calls()).isEqualTo(1);
    assertThat(goldmane.startTimeGte(0)).isZero();
    assertThat(goldmane.capturedFlows()).isEqualTo(7);
  }

  @Test
  void aResumedCallGetsTheBucketsFromItsStartTimeOn() {
    source = follow(Instant.ofEpochSecond(THIRD_BUCKET));
    await().atMost(Duration.ofSeconds(30)).until(() -> published.size() == 2);
    assertThat(goldmane.startTimeGte(0)).isEqualTo(THIRD_BUCKET);
    assertThat(goldmane.flowsSent(0)).isEqualTo(3);
    assertThat(published)
        .extracting(r -> r.firstSeen().getEpochSecond())
        .containsExactlyInAnyOrder(THIRD_BUCKET, THIRD_BUCKET + 15);
  }

  private GoldmaneSource follow(Instant resumeFrom) {
    GoldmaneSource s =
        new GoldmaneSource(
            new StreamSettings(
                "localhost:" + goldmane.port(),
                TlsSettings.fromDirectory(TlsMode.existingSecret, clientDir, null),
                Duration.ofMillis(50),
                Duration.ofMillis(400),
                Keepalive.grpcGoCompatible()),
            new TlsMaterialLoader(null),
            new WorkloadResolver(ClusterStateFile.load(CliRun.sample("cluster-state.json"))),
            new FlowIntake(
                List.of(published::add),
                (src, reason, payload, e) -> {},
                new IngestMetrics(new SimpleMeterRegistry())),
            Clock.systemUTC());
    if (resumeFrom != null) {
      s.resumeFrom(resumeFrom);
    }
    s.start();
    return s;
  }
}
