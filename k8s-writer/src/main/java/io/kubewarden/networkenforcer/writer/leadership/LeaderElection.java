package io.kubewarden.networkenforcer.writer.leadership;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElector;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import io.kubewarden.networkenforcer.writer.apply.SingleAttempt;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Competes for a {@code coordination.k8s.io} Lease. {@link #isLeader()} turns false before the stop
 * callback runs, so every guarded write is refused from that instant on.
 */
public final class LeaderElection implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LeaderElection.class);

  /** What to do when leadership starts and ends. */
  public interface Listener {
    void startedLeading();

    void stoppedLeading();
  }

  private final KubernetesClient client;
  private final String namespace;
  private final String leaseName;
  private final String identity;
  private final Duration leaseDuration;
  private final Duration renewDeadline;
  private final Duration retryPeriod;
  private final Listener listener;
  private final AtomicBoolean leader = new AtomicBoolean();

  /** Who holds the lease as last observed; null before the first observation. */
  private volatile String holder;

  private ExecutorService executor;
  private CompletableFuture<?> running;
  private boolean closed;

  public LeaderElection(
      KubernetesClient client,
      String namespace,
      String leaseName,
      String identity,
      Duration leaseDuration,
      Duration renewDeadline,
      Duration retryPeriod,
      Listener listener) {
    this.client = leaseClient(client, renewDeadline);
    this.namespace = namespace;
    this.leaseName = leaseName;
    this.identity = identity;
    this.leaseDuration = leaseDuration;
    this.renewDeadline = renewDeadline;
    this.retryPeriod = retryPeriod;
    this.listener = listener;
  }

  /**
   * A client of its own for the Lease, without request retries and with timeouts well inside the
   * renew deadline. With the shared client's retries one failing renew blocks for ~20 s, far past
   * the deadline, so a partitioned leader would still think it leads while another replica has
   * taken the Lease: two writers at once.
   */
  static KubernetesClient leaseClient(KubernetesClient shared, Duration renewDeadline) {
    int timeoutMs = (int) Math.max(200, Math.min(Integer.MAX_VALUE, renewDeadline.toMillis() / 3));
    return SingleAttempt.client(
        shared, c -> c.withRequestTimeout(timeoutMs).withConnectionTimeout(timeoutMs));
  }

  /** Joins the election; after a lost lease it joins again by itself until {@link #close()}. */
  public synchronized void start() {
    if (closed || running != null) {
      return;
    }
    if (executor == null) {
      executor =
          Executors.newSingleThreadExecutor(
              r -> {
                Thread t = new Thread(r, "leader-election-" + identity);
                t.setDaemon(true);
                return t;
              });
    }
    LeaderElector elector =
        new LeaderElector(
            client,
            new LeaderElectionConfigBuilder()
                .withName(leaseName)
                .withLock(new LeaseLock(namespace, leaseName, identity))
                .withLeaseDuration(leaseDuration)
                .withRenewDeadline(renewDeadline)
                .withRetryPeriod(retryPeriod)
                .withReleaseOnCancel(true)
                .withLeaderCallbacks(
                    new LeaderCallbacks(
                        this::onStart,
                        this::onStop,
                        id -> {
                          holder = id;
                          LOG.info("lease {}/{} is held by {}", namespace, leaseName, id);
                        }))
                .build(),
            executor);
    CompletableFuture<?> term = elector.start();
    running = term;
    term.whenComplete((v, e) -> ended(term, e));
  }

  /**
   * The elector's run is over: it could not renew (or never got the lease and failed). fabric8 does
   * not compete again by itself, so a replica that lost the lease rejoins as a candidate.
   */
  private void ended(CompletableFuture<?> term, Throwable error) {
    onStop();
    synchronized (this) {
      if (closed || running != term) {
        return;
      }
      running = null;
      if (error != null && !(error instanceof CancellationException)) {
        LOG.warn("leader election of {} ended with an error: {}", identity, error.toString());
      }
      LOG.info("{} competes for lease {}/{} again", identity, namespace, leaseName);
      CompletableFuture.delayedExecutor(retryPeriod.toMillis(), TimeUnit.MILLISECONDS)
          .execute(this::start);
    }
  }

  private void onStart() {
    leader.set(true);
    LOG.info("{} is now the leader (lease {}/{})", identity, namespace, leaseName);
    listener.startedLeading();
  }

  private void onStop() {
    if (leader.getAndSet(false)) {
      LOG.warn("{} is no longer the leader: writing stops now", identity);
      listener.stoppedLeading();
    }
  }

  /**
   * The identity holding the lease as last observed (this one's when leading); empty before any.
   */
  public Optional<String> holder() {
    return Optional.ofNullable(holder);
  }

  public String identity() {
    return identity;
  }

  public boolean isLeader() {
    return leader.get();
  }

  /** Leaves the election and joins it again: for a leader that found it cannot work. */
  public synchronized void rejoin() {
    CompletableFuture<?> term = running;
    running = null;
    if (term != null) {
      term.cancel(true);
    }
    onStop();
    start();
  }

  /** Leaves the election, releasing the lease when we hold it and the API server is reachable. */
  @Override
  public synchronized void close() {
    closed = true;
    boolean was = leader.getAndSet(false);
    if (running != null) {
      running.cancel(true);
      running = null;
    }
    if (was) {
      LOG.info("{} leaves the election", identity);
      listener.stoppedLeading();
    }
    if (executor != null) {
      executor.shutdownNow();
      executor = null;
    }
    client.close();
  }
}
