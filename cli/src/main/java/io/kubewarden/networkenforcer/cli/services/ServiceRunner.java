package io.kubewarden.networkenforcer.cli.services;

import io.kubewarden.networkenforcer.cli.config.ServiceOptions;
import io.kubewarden.networkenforcer.cli.management.ManagementServer;
import io.kubewarden.networkenforcer.cli.management.ServiceMetrics;
import io.kubewarden.networkenforcer.cli.management.ThreadDeaths;
import io.kubewarden.networkenforcer.common.http.AccessCheck;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the parts of one process until it is told to stop (SIGTERM, Ctrl-C, or {@link #stop()}):
 * starts them in order with the management server, then closes them in reverse order.
 */
public final class ServiceRunner implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ServiceRunner.class);

  /** Every runner of this JVM that is waiting, so tests and embedders can stop them. */
  private static final Set<ServiceRunner> ACTIVE = ConcurrentHashMap.newKeySet();

  private final String name;
  private final PrometheusMeterRegistry registry;
  private final int managementPort;
  private final int probePort;
  private final Deque<AutoCloseable> parts = new ArrayDeque<>();
  private final List<ManagementServer.Check> readiness = new CopyOnWriteArrayList<>();
  private final List<ManagementServer.Check> liveness = new CopyOnWriteArrayList<>();

  private final CountDownLatch stopped = new CountDownLatch(1);
  private ManagementServer management;
  private ThreadDeaths threadDeaths;

  public ServiceRunner(
      String name, PrometheusMeterRegistry registry, int managementPort, int probePort) {
    this.name = name;
    this.registry = registry;
    this.managementPort = managementPort;
    this.probePort = probePort;
  }

  /**
   * The runner of one of the product's services: its metrics registry named after it, its ports
   * from the service options.
   */
  public static ServiceRunner of(String name, ServiceOptions service) {
    return new ServiceRunner(
        name, ServiceMetrics.create(name), service.managementPort(), service.probePort());
  }

  /**
   * Starts the management server first, so /healthz answers while the rest starts; {@code access}
   * decides who may read /metrics and the further pages.
   */
  public ServiceRunner startManagement(AccessCheck access) {
    threadDeaths = ThreadDeaths.watch();
    liveness.add(threadDeaths.check());
    management =
        new ManagementServer(managementPort, probePort, access, registry, liveness, readiness);
    LOG.info(
        "{}: /healthz and /readyz on port {}, /metrics on port {}",
        name,
        management.probePort(),
        management.port());
    return this;
  }

  public PrometheusMeterRegistry registry() {
    return registry;
  }

  public int managementPort() {
    return management == null ? managementPort : management.port();
  }

  public int probePort() {
    return management == null ? probePort : management.probePort();
  }

  /** Something to close on the way out (closed in reverse order of adding). */
  public <T extends AutoCloseable> T add(T part) {
    parts.push(part);
    return part;
  }

  /** A further page on the management port (after {@link #startManagement(AccessCheck)}). */
  public void page(String path, Supplier<ManagementServer.Page> page) {
    if (management == null) {
      throw new IllegalStateException("start the management server before adding " + path);
    }
    management.page(path, page);
    LOG.info("{}: {} on port {}", name, path, management.port());
  }

  public void ready(String check, BooleanSupplier ready) {
    readiness.add(new ManagementServer.Check(check, ready));
  }

  /**
   * A liveness check: {@code /healthz} fails (and the kubelet restarts the pod) while it is false.
   */
  public void alive(String check, BooleanSupplier alive) {
    liveness.add(new ManagementServer.Check(check, alive));
  }

  /** Blocks until SIGTERM/Ctrl-C or {@link #stop()}. */
  public void awaitShutdown() throws InterruptedException {
    Thread hook =
        new Thread(
            () -> {
              LOG.info("{}: stopping", name);
              stop();
              close();
            },
            name + "-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    ACTIVE.add(this);
    try {
      stopped.await();
    } finally {
      ACTIVE.remove(this);
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException e) {
        // Already shutting down: the hook is running.
      }
    }
  }

  /** Stops every waiting runner of this JVM (as SIGTERM would). */
  public static void stopAll() {
    ACTIVE.forEach(ServiceRunner::stop);
  }

  /** The runners currently serving, for tests that wait for a service to come up. */
  public static Set<ServiceRunner> active() {
    return Set.copyOf(ACTIVE);
  }

  public void stop() {
    stopped.countDown();
  }

  @Override
  public synchronized void close() {
    while (!parts.isEmpty()) {
      AutoCloseable part = parts.pop();
      try {
        part.close();
      } catch (Exception e) {
        LOG.warn("{}: closing {} failed: {}", name, part.getClass().getSimpleName(), e.toString());
      }
    }
    if (management != null) {
      management.close();
      management = null;
    }
    if (threadDeaths != null) {
      threadDeaths.close();
    }
    registry.close();
  }
}
