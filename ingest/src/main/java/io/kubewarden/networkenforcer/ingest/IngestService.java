package io.kubewarden.networkenforcer.ingest;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubewarden.networkenforcer.common.config.ConfigException;
import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.http.AccessCheck;
import io.kubewarden.networkenforcer.ingest.dumper.FlowDumper;
import io.kubewarden.networkenforcer.ingest.dumper.FlowDumperServer;
import io.kubewarden.networkenforcer.ingest.goldmane.GoldmaneSource;
import io.kubewarden.networkenforcer.ingest.hubble.HubbleSource;
import io.kubewarden.networkenforcer.ingest.publishing.AlreadyPublished;
import io.kubewarden.networkenforcer.ingest.publishing.DeadLetterPublisher;
import io.kubewarden.networkenforcer.ingest.publishing.DroppedInputSink;
import io.kubewarden.networkenforcer.ingest.publishing.FlowAggregator;
import io.kubewarden.networkenforcer.ingest.publishing.FlowIntake;
import io.kubewarden.networkenforcer.ingest.publishing.FlowPublisher;
import io.kubewarden.networkenforcer.ingest.publishing.FlowSink;
import io.kubewarden.networkenforcer.ingest.publishing.IngestMetrics;
import io.kubewarden.networkenforcer.ingest.publishing.KafkaReachability;
import io.kubewarden.networkenforcer.ingest.publishing.LossPublisher;
import io.kubewarden.networkenforcer.ingest.publishing.LossWindows;
import io.kubewarden.networkenforcer.ingest.publishing.ResumePoint;
import io.kubewarden.networkenforcer.ingest.resolution.ClusterStateFile;
import io.kubewarden.networkenforcer.ingest.resolution.ClusterView;
import io.kubewarden.networkenforcer.ingest.resolution.InformerClusterView;
import io.kubewarden.networkenforcer.ingest.resolution.WorkloadResolver;
import io.kubewarden.networkenforcer.ingest.transport.ClientIdentity;
import io.kubewarden.networkenforcer.ingest.transport.ServerTls;
import io.kubewarden.networkenforcer.ingest.transport.TlsMaterialLoader;
import io.kubewarden.networkenforcer.ingest.ztunnel.OtlpGrpcReceiver;
import io.kubewarden.networkenforcer.ingest.ztunnel.OtlpHttpReceiver;
import io.kubewarden.networkenforcer.ingest.ztunnel.OtlpLogIngestor;
import io.kubewarden.networkenforcer.ingest.ztunnel.ZtunnelLogParser;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ingest service: resolves pods with informers (or a cluster-state file), runs the source of
 * the configured provider and publishes flow records to Kafka. {@link #start()} / {@link #close()}.
 */
public final class IngestService implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(IngestService.class);
  private static final Duration CERT_RELOAD_CHECK = Duration.ofMinutes(1);

  /** How often and how patiently readiness asks whether the brokers answer. */
  private static final Duration KAFKA_CHECK_INTERVAL = Duration.ofSeconds(2);

  private static final Duration KAFKA_CHECK_TIMEOUT = Duration.ofSeconds(3);

  private final IngestConfig config;
  private final KafkaSettings kafka;
  private final IngestMetrics metrics;
  private final KubernetesClient client;
  private final Deque<AutoCloseable> running = new ArrayDeque<>();
  private volatile BooleanSupplier ready = () -> false;
  private volatile BooleanSupplier kafkaReachable = () -> false;
  private FlowDumperServer dumperServer;
  private AccessCheck dumperAccess =
      (authorization, path, method) ->
          new AccessCheck.Verdict(403, "the flow dumper's access check is not configured");
  private OtlpGrpcReceiver otlpGrpc;
  private OtlpHttpReceiver otlpHttp;

  /**
   * @param client read-only API access for informers and TLS Secrets; may be null when a
   *     cluster-state file is set and no certificate is read through the API
   */
  public IngestService(
      IngestConfig config, KafkaSettings kafka, MeterRegistry registry, KubernetesClient client) {
    this.config = config.validate();
    this.kafka = kafka.validate();
    this.metrics = new IngestMetrics(registry);
    this.client = client;
  }

  /** Who may drain the flow dumper (before {@link #start()}); nobody unless set. */
  public IngestService dumperAccess(AccessCheck access) {
    this.dumperAccess = access;
    return this;
  }

  public synchronized IngestService start() {
    try {
      ClusterView view = clusterView();
      WorkloadResolver resolver = new WorkloadResolver(view);
      // Resources close in reverse order. Loss is closed after the flows publisher, so the flows it
      // could not deliver on the way out still reach data-plane-loss.
      LossPublisher lossPublisher = track(new LossPublisher(kafka, metrics));
      LossWindows losses =
          track(
              new LossWindows(
                  config.provider(), config.producer().aggregationWindow(), lossPublisher));
      FlowPublisher flows = track(new FlowPublisher(kafka, config.producer(), metrics, writer()));
      KafkaReachability reachability =
          track(KafkaReachability.start(kafka, KAFKA_CHECK_INTERVAL, KAFKA_CHECK_TIMEOUT));
      kafkaReachable = reachability::reachable;
      // Closed before the publisher: its last window is published (SIGTERM runs close()).
      FlowAggregator aggregated =
          track(
              new FlowAggregator(
                  flows,
                  config.producer().aggregationWindow(),
                  config.producer().aggregationMaxFlows()));
      DeadLetterPublisher deadLetters = track(new DeadLetterPublisher(kafka, metrics));
      List<FlowSink> sinks = new ArrayList<>();
      List<DroppedInputSink> droppedSinks = new ArrayList<>();
      // A restart resumes a provider stream a little before the last flow published and drops what
      // the provider resends that the flows topic already holds.
      Optional<ResumePoint.Resume> resume =
          switch (config.provider()) {
            case cilium, calico -> resumePoint();
            default -> Optional.empty();
          };
      String source =
          config.provider() == Provider.calico ? GoldmaneSource.SOURCE : HubbleSource.SOURCE;
      var flowsTopic = kafka.topics().flows();
      sinks.add(
          resume
              .<FlowSink>map(
                  r ->
                      new AlreadyPublished(
                          aggregated,
                          r.published(),
                          f ->
                              flowsTopic
                                  .valueSerde()
                                  .deserializer()
                                  .deserialize(
                                      flowsTopic.name(),
                                      flowsTopic
                                          .valueSerde()
                                          .serializer()
                                          .serialize(flowsTopic.name(), f)),
                          source,
                          metrics))
              .orElse(aggregated));
      if (config.dumper().enabled()) {
        FlowDumper dumper = new FlowDumper(config.dumper().bufferSize());
        sinks.add(dumper);
        droppedSinks.add(dumper);
        dumperServer =
            track(
                new FlowDumperServer(
                        dumper, new InetSocketAddress(config.dumper().port()), dumperAccess)
                    .start());
        LOG.info(
            "flow dumper: GET http://:{}/flow (buffer {})", dumperServer.port(), dumper.capacity());
      }
      // Loss reports are counted per node and window and published for the writer (Converged).
      // Flows Kafka did not take are loss of their own, published as the data plane's is.
      flows.onLoss(losses);
      FlowIntake intake =
          new FlowIntake(sinks, deadLetters, metrics, droppedSinks).withLossSink(losses);
      TlsMaterialLoader tls = new TlsMaterialLoader(client);
      Clock clock = Clock.systemUTC();
      switch (config.provider()) {
        case cilium -> {
          HubbleSource hubble =
              track(
                  new HubbleSource(
                      config.hubble(), config.hubbleNodeLocal(), tls, resolver, intake, clock));
          resume.ifPresent(r -> hubble.resumeFrom(r.since()));
          hubble.start();
          ready = hubble::isReady;
        }
        case calico -> {
          GoldmaneSource goldmane =
              track(new GoldmaneSource(config.goldmane(), tls, resolver, intake, clock));
          resume.ifPresent(r -> goldmane.resumeFrom(r.since()));
          goldmane.start();
          ready = goldmane::isReady;
        }
        case istio -> startOtlp(tls, resolver, intake, clock);
        default ->
            throw new ConfigException("provider " + config.provider() + " has no ingest source");
      }
      LOG.info(
          "ingest started: provider {}, flows to {}",
          config.provider(),
          kafka.topics().flows().name());
      return this;
    } catch (IOException e) {
      close();
      throw new UncheckedIOException("cannot open a listening port: " + e.getMessage(), e);
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  private void startOtlp(
      TlsMaterialLoader tls, WorkloadResolver resolver, FlowIntake intake, Clock clock)
      throws IOException {
    var istio = config.istio();
    // Validation made sure a TLS receiver has a certificate directory; renewals are picked up.
    ServerTls serverTls =
        istio.tls().isInsecure()
            ? null
            : track(ServerTls.fromDirectory(istio.tls().certDir(), true, CERT_RELOAD_CHECK));
    ClientIdentity fluentBit = serverTls == null ? null : new ClientIdentity(istio.clientName());
    OtlpLogIngestor ingestor =
        new OtlpLogIngestor(new ZtunnelLogParser(resolver, config.trustDomain(), clock), intake);
    otlpGrpc =
        track(new OtlpGrpcReceiver(istio.grpcPort(), serverTls, fluentBit, ingestor).start());
    if (istio.httpPort() > 0) {
      otlpHttp =
          track(new OtlpHttpReceiver(istio.httpPort(), serverTls, fluentBit, ingestor).start());
    }
    LOG.info(
        "OTLP logs receiver: gRPC :{}, HTTP /v1/logs :{}, TLS {}, client {}",
        otlpGrpc.port(),
        otlpHttp == null ? "off" : otlpHttp.port(),
        istio.tls().describe(),
        fluentBit == null ? "anyone (plain text)" : "only " + fluentBit.name());
    ready = otlpGrpc::isRunning;
  }

  /**
   * Node-local ingest writes its node's part of the flows; one Relay reader writes them all (null).
   */
  private String writer() {
    return config.hubbleNodeLocal() == null ? null : config.hubbleNodeLocal().writer();
  }

  /** The flows topic says where the previous process stopped (nothing of our own to keep). */
  private Optional<ResumePoint.Resume> resumePoint() {
    Optional<ResumePoint.Resume> at =
        ResumePoint.resume(
            kafka,
            config.provider(),
            writer(),
            config.producer().aggregationWindow(),
            Duration.ofSeconds(30));
    at.ifPresent(
        r ->
            LOG.info(
                "resuming the {} stream from {} (the flows topic's newest flow, less the window); "
                    + "{} flows already published from there are dropped when resent",
                config.provider(),
                r.since(),
                r.published().stream().mapToLong(f -> f.count()).sum()));
    return at;
  }

  private ClusterView clusterView() {
    if (config.clusterStateFile() != null) {
      LOG.info("resolving pods against cluster-state file {}", config.clusterStateFile());
      return ClusterStateFile.load(config.clusterStateFile());
    }
    if (client == null) {
      throw new ConfigException(
          "ingest needs Kubernetes API access to resolve pods (or a cluster-state file)");
    }
    InformerClusterView view = track(InformerClusterView.start(client));
    view.awaitSynced(Duration.ofMinutes(1));
    return view;
  }

  /**
   * Ready when the provider stream is connected (cilium, calico) or the receiver listens (istio).
   */
  public boolean isReady() {
    return ready.getAsBoolean();
  }

  /**
   * Whether the brokers answered the last check (every 2 s, 3 s to answer): a second readiness
   * check.
   */
  public boolean kafkaReachable() {
    return kafkaReachable.getAsBoolean();
  }

  public IngestMetrics metrics() {
    return metrics;
  }

  /** The OTLP gRPC port actually bound (istio), for tests that ask for port 0. */
  public int otlpGrpcPort() {
    return otlpGrpc == null ? -1 : otlpGrpc.port();
  }

  public int otlpHttpPort() {
    return otlpHttp == null ? -1 : otlpHttp.port();
  }

  public int dumperPort() {
    return dumperServer == null ? -1 : dumperServer.port();
  }

  private <T extends AutoCloseable> T track(T resource) {
    running.push(resource);
    return resource;
  }

  @Override
  public synchronized void close() {
    ready = () -> false;
    kafkaReachable = () -> false;
    while (!running.isEmpty()) {
      AutoCloseable resource = running.pop();
      try {
        resource.close();
      } catch (Exception e) {
        LOG.warn("error while stopping {}: {}", resource.getClass().getSimpleName(), e.toString());
      }
    }
  }
}
