package io.kubewarden.networkenforcer.writer;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubewarden.networkenforcer.writer.apply.ClusterWriter;
import io.kubewarden.networkenforcer.writer.apply.LeaderGuardedWriter;
import io.kubewarden.networkenforcer.writer.apply.ServerSideApplyWriter;
import io.kubewarden.networkenforcer.writer.cache.ClusterCache;
import io.kubewarden.networkenforcer.writer.leadership.LeaderElection;
import io.kubewarden.networkenforcer.writer.leadership.LeadershipChanges;
import io.kubewarden.networkenforcer.writer.proposals.ConvergenceGauges;
import io.kubewarden.networkenforcer.writer.telemetry.TelemetryExport;
import io.kubewarden.networkenforcer.writer.telemetry.ViolationEvents;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The writer service the CLI runs: joins the leader election and, while leading, runs a {@link
 * LeaderSession}. Only the leader consumes Kafka and writes to the API server.
 */
public final class WriterService implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(WriterService.class);

  private final KubernetesClient client;
  private final WriterConfig config;
  private final ClusterWriter guardedWriter;
  private final ViolationEvents events;
  private final TelemetryExport telemetry;
  private final MeterRegistry meters;
  private final Clock clock;
  private final LeaderElection election;

  /** Sessions start and stop on their own thread, never on the election's. */
  private final ExecutorService lifecycle;

  private volatile LeaderSession session;
  private final AtomicInteger buffered;
  private boolean closed;

  /** The production wiring: server-side apply and the configured telemetry export. */
  public static WriterService create(
      KubernetesClient client, WriterConfig config, MeterRegistry meters) {
    config.validate();
    TelemetryExport telemetry =
        TelemetryExport.create(config.telemetry(), config.namespace(), config.identity());
    return new WriterService(
        client,
        config,
        new ServerSideApplyWriter(client, config.fieldManager()),
        telemetry,
        meters,
        Clock.systemUTC());
  }

  /** Any writer and telemetry (tests use a mock-server writer and an in-memory exporter). */
  public WriterService(
      KubernetesClient client,
      WriterConfig config,
      ClusterWriter writer,
      TelemetryExport telemetry,
      MeterRegistry meters,
      Clock clock) {
    this.client = client;
    this.config = config;
    this.telemetry = telemetry;
    this.events = new ViolationEvents(telemetry.provider());
    this.meters = meters;
    this.clock = clock;
    this.lifecycle =
        Executors.newSingleThreadExecutor(
            r -> new Thread(r, "writer-lifecycle-" + config.identity()));
    LeadershipChanges changes = new LeadershipChanges(meters);
    this.election =
        new LeaderElection(
            client,
            config.namespace(),
            config.leaseName(),
            config.identity(),
            config.leaseDuration(),
            config.renewDeadline(),
            config.retryPeriod(),
            new LeaderElection.Listener() {
              @Override
              public void startedLeading() {
                changes.acquired();
                onLifecycle(WriterService.this::startSession);
              }

              @Override
              public void stoppedLeading() {
                changes.lost();
                onLifecycle(WriterService.this::stopSession);
              }
            });
    this.guardedWriter = new LeaderGuardedWriter(writer, election::isLeader, meters);
    meters.gauge("network.enforcer.writer.leader", election, e -> e.isLeader() ? 1 : 0);
    this.buffered =
        meters.gauge("network.enforcer.writer.violations.buffered", new AtomicInteger());
    ConvergenceGauges.register(meters, this::cache);
  }

  private void onLifecycle(Runnable r) {
    try {
      lifecycle.execute(r);
    } catch (RejectedExecutionException e) {
      LOG.debug("writer {} is closed; lifecycle event ignored", config.identity());
    }
  }

  public void start() {
    LOG.info(
        "writer {} joins the election for lease {}/{}",
        config.identity(),
        config.namespace(),
        config.leaseName());
    election.start();
  }

  public boolean isLeader() {
    return election.isLeader();
  }

  /**
   * A standby that has seen another writer hold the lease: it takes part in the election and can
   * take over. False before its first look at the lease and while it leads.
   */
  public boolean isStandby() {
    return !election.isLeader()
        && election.holder().filter(h -> !h.equals(election.identity())).isPresent();
  }

  /**
   * What the leader holds in its informer caches (policies, proposals, workloads); empty on a
   * standby and while the caches sync. Reading it sends nothing to the API server.
   */
  public Optional<ClusterCache> cache() {
    LeaderSession s = session;
    return s == null ? Optional.empty() : s.cache();
  }

  private void startSession() {
    if (!election.isLeader() || session != null) {
      return;
    }
    LeaderSession s =
        new LeaderSession(
            client, config, guardedWriter, events, meters, clock, election::isLeader, buffered);
    session = s;
    try {
      s.start();
    } catch (Exception e) {
      // Cannot work as leader (Kafka or the API server unreachable): give the lease to someone who
      // can.
      LOG.error(
          "leader session of {} failed to start: {}; giving the lease up",
          config.identity(),
          e.toString());
      meters.counter("network.enforcer.writer.session.start.failures").increment();
      election.rejoin();
      stopSession();
    }
  }

  private void stopSession() {
    if (session != null) {
      session.stop();
      session = null;
    }
  }

  /** Stops writing at once, leaves the election (releasing the lease), flushes telemetry. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    election.close();
    onLifecycle(this::stopSession);
    lifecycle.shutdown();
    try {
      lifecycle.awaitTermination(60, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    guardedWriter.close();
    telemetry.close();
  }
}
