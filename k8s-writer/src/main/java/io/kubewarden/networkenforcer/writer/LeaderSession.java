package io.kubewarden.networkenforcer.writer;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicy;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.common.lifecycle.WorkerThreads;
import io.kubewarden.networkenforcer.common.policy.Labels;
import io.kubewarden.networkenforcer.common.topics.Topics;
import io.kubewarden.networkenforcer.writer.apply.ClusterWriter;
import io.kubewarden.networkenforcer.writer.cache.ClusterCache;
import io.kubewarden.networkenforcer.writer.deadletter.DeadLetters;
import io.kubewarden.networkenforcer.writer.events.EnqueueKeys;
import io.kubewarden.networkenforcer.writer.events.EventFilters;
import io.kubewarden.networkenforcer.writer.events.OptionalWatch;
import io.kubewarden.networkenforcer.writer.events.OwnerKeys;
import io.kubewarden.networkenforcer.writer.policies.NativePolicyPublisher;
import io.kubewarden.networkenforcer.writer.policies.PolicyPublisher;
import io.kubewarden.networkenforcer.writer.policies.PolicyReconciler;
import io.kubewarden.networkenforcer.writer.policies.PolicyTopicReader;
import io.kubewarden.networkenforcer.writer.promotion.Promoter;
import io.kubewarden.networkenforcer.writer.proposals.DesiredProposals;
import io.kubewarden.networkenforcer.writer.proposals.LossConsumer;
import io.kubewarden.networkenforcer.writer.proposals.LossLedger;
import io.kubewarden.networkenforcer.writer.proposals.ProposalConsumer;
import io.kubewarden.networkenforcer.writer.proposals.ProposalReconciler;
import io.kubewarden.networkenforcer.writer.reconcile.Controller;
import io.kubewarden.networkenforcer.writer.reconcile.ObjectEvents;
import io.kubewarden.networkenforcer.writer.reconcile.ObjectKey;
import io.kubewarden.networkenforcer.writer.rendering.AuthorizationPolicies;
import io.kubewarden.networkenforcer.writer.rendering.CiliumNetworkPolicies;
import io.kubewarden.networkenforcer.writer.rendering.IstioAvailability;
import io.kubewarden.networkenforcer.writer.rendering.NativeRenderer;
import io.kubewarden.networkenforcer.writer.rendering.RenderConditions;
import io.kubewarden.networkenforcer.writer.status.StatusMerger;
import io.kubewarden.networkenforcer.writer.status.StatusSync;
import io.kubewarden.networkenforcer.writer.status.ViolationBuffer;
import io.kubewarden.networkenforcer.writer.status.ViolationConsumer;
import io.kubewarden.networkenforcer.writer.telemetry.ViolationEvents;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything the writer does while it holds the lease: informers on policies, proposals, workloads
 * and the rendered objects; one keyed controller per kind (policies, proposals, native
 * NetworkPolicies) whose work queue the informers (through {@link EnqueueKeys}) and the Kafka
 * consumers (proposals, violations, loss) feed; and nothing else. Built on leading, torn down on
 * losing it: all state that matters is in the cluster and on the topics.
 */
final class LeaderSession {
  private static final Logger LOG = LoggerFactory.getLogger(LeaderSession.class);
  private static final Duration SYNC_TIMEOUT = Duration.ofSeconds(60);

  private final KubernetesClient client;
  private final WriterConfig config;
  private final ClusterWriter writer;
  private final ViolationEvents events;
  private final MeterRegistry meters;
  private final Clock clock;
  private final Topics topics;
  private final KafkaClients kafka;
  private static final Duration RETRY_BASE = Duration.ofMillis(500);
  private static final Duration RETRY_MAX = Duration.ofMinutes(5);
  private Controller<ObjectKey> policyController;
  private Controller<ObjectKey> proposalController;
  private Controller<ObjectKey> nativeController;
  private DesiredProposals desiredProposals;
  private ViolationBuffer violations;
  private final List<SharedIndexInformer<?>> informers = new ArrayList<>();
  private final List<Thread> threads = new ArrayList<>();
  private KafkaProducer<String, byte[]> producer;
  private KafkaProducer<byte[], byte[]> deadLetterProducer;
  private ProposalConsumer proposalConsumer;
  private ViolationConsumer violationConsumer;
  private LossConsumer lossConsumer;
  private volatile boolean stopped;

  /** Set once the informers have synced: what the live view reads. */
  private volatile ClusterCache syncedCache;

  private final BooleanSupplier leading;
  private final AtomicInteger buffered;

  LeaderSession(
      KubernetesClient client,
      WriterConfig config,
      ClusterWriter writer,
      ViolationEvents events,
      MeterRegistry meters,
      Clock clock,
      BooleanSupplier leading,
      AtomicInteger buffered) {
    this.leading = leading;
    this.buffered = buffered;
    this.client = client;
    this.config = config;
    this.writer = writer;
    this.events = events;
    this.meters = meters;
    this.clock = clock;
    this.topics = config.kafka().topics();
    this.kafka = new KafkaClients(config, meters);
  }

  void start() throws Exception {
    producer = kafka.producer();
    deadLetterProducer = kafka.rawProducer();
    DeadLetters deadLetters = new DeadLetters(deadLetterProducer, topics.deadLetter(), meters);
    RenderConditions renderConditions = new RenderConditions();
    IstioAvailability istio = new IstioAvailability(client, Duration.ofMinutes(1), clock);
    ClusterInformers cluster = new ClusterInformers(client, config.resyncPeriod());
    ClusterCache cache = cluster.cache;

    ObjectEvents objectEvents = new ObjectEvents(writer, clock);
    PolicyPublisher publisher =
        new PolicyPublisher(
            producer, topics.policies(), topics.control(), cache, meters, clock, leading);
    NativeRenderer renderer = new NativeRenderer(client, writer, istio, renderConditions, meters);
    desiredProposals = new DesiredProposals();
    violations = new ViolationBuffer();
    LossLedger losses = new LossLedger(config.convergenceQuietPeriod());
    ProposalReconciler proposalReconciler =
        new ProposalReconciler(
            cache,
            writer,
            desiredProposals,
            new Promoter(client, cache, writer, meters),
            publisher,
            deadLetters,
            objectEvents,
            meters,
            clock,
            losses);
    proposalController =
        new Controller<>("proposals", proposalReconciler, RETRY_BASE, RETRY_MAX, meters);
    StatusSync statusSync =
        new StatusSync(
            client,
            writer,
            cache,
            violations,
            renderConditions,
            events,
            new StatusMerger(),
            meters,
            clock,
            deadLetters);
    policyController =
        new Controller<>(
            "policies",
            new PolicyReconciler(
                cache,
                publisher,
                renderer,
                renderConditions,
                statusSync,
                proposalController::enqueue,
                objectEvents),
            RETRY_BASE,
            RETRY_MAX,
            meters);

    cluster.policies.addEventHandler(
        EnqueueKeys.<WorkloadNetworkPolicy>to(policyController::enqueue)
            .updatesWhen(EventFilters.specOrMetadataChangedOrResync()));
    // The final state of a deleted proposal decides whose delete it was (WhoDeleted).
    cluster.proposals.addEventHandler(
        EnqueueKeys.<WorkloadNetworkPolicyProposal>to(proposalController::enqueue)
            .finalStateTo(proposalReconciler::onDeleted));
    informers.addAll(cluster.all());
    startDriftWatches(istio);
    cluster.startAndSync(SYNC_TIMEOUT);
    if (stopped || !leading.getAsBoolean()) {
      return;
    }
    syncedCache = cache;
    // Every policy is published below; tombstone what the cluster no longer has. Reconcilers start
    // only now, on complete caches: "does this target have a policy?" must not be answered from a
    // half-filled cache (it would promote or apply over an existing policy).
    var keysOnTopic =
        PolicyTopicReader.liveKeys(
            config.kafka().clientConfig(), topics.policies().name(), SYNC_TIMEOUT);
    publisher.resync(cache.allPolicies(), keysOnTopic);
    // The data plane's loss is read before any proposal is reconciled: none shows Converged
    // wrongly.
    lossConsumer =
        new LossConsumer(
            kafka.consumer("loss"),
            topics.dataPlaneLoss(),
            losses,
            () -> cache.allProposals().forEach(p -> proposalController.enqueue(ObjectKey.of(p))),
            deadLetters,
            config.statusUpdateInterval(),
            clock);
    lossConsumer.catchUp(SYNC_TIMEOUT);
    policyController.start(1, config.identity());
    proposalController.start(1, config.identity());
    startNativePolicyPublishing();

    startConsumers(cache, deadLetters);
    LOG.info("leader session of {} running", config.identity());
  }

  /**
   * The topics' consumers, each on its own thread; they only record desired state and queue keys.
   */
  private void startConsumers(ClusterCache cache, DeadLetters deadLetters) {
    proposalConsumer =
        new ProposalConsumer(
            kafka.consumer("proposals"),
            topics.proposals(),
            desiredProposals,
            proposalController::enqueue,
            deadLetters);
    violationConsumer =
        new ViolationConsumer(
            kafka.consumer("violations"),
            topics.violations(),
            violations,
            cache,
            k -> policyController.enqueue(ObjectKey.parse(k)),
            events,
            deadLetters,
            config.statusUpdateInterval(),
            config.maxBufferedViolations(),
            meters,
            clock,
            buffered);
    startThread("writer-proposals-" + config.identity(), proposalConsumer);
    startThread("writer-violations-" + config.identity(), violationConsumer);
    startThread("writer-loss-" + config.identity(), lossConsumer);
  }

  /** Drift: a rendered object changed or deleted behind our back is rendered again. */
  private void startDriftWatches(IstioAvailability istio) {
    EnqueueKeys<HasMetadata> drift =
        EnqueueKeys.<HasMetadata>to(policyController::enqueue)
            .keyedBy(OwnerKeys::policyOf)
            .addsWhen(EventFilters.never());
    startDriftWatch(
        "NetworkPolicy",
        client
            .network()
            .v1()
            .networkPolicies()
            .inAnyNamespace()
            .withLabel(Labels.MANAGED_BY, Labels.MANAGED_BY_VALUE)
            .runnableInformer(0),
        drift);
    if (servesCiliumNetworkPolicies()) {
      startDriftWatch(
          CiliumNetworkPolicies.KIND,
          client
              .genericKubernetesResources(CiliumNetworkPolicies.CONTEXT)
              .inAnyNamespace()
              .withLabel(Labels.MANAGED_BY, Labels.MANAGED_BY_VALUE)
              .runnableInformer(0),
          drift);
    }
    if (istio.available()) {
      startDriftWatch(
          "AuthorizationPolicy",
          client
              .genericKubernetesResources(AuthorizationPolicies.CONTEXT)
              .inAnyNamespace()
              .withLabel(Labels.MANAGED_BY, Labels.MANAGED_BY_VALUE)
              .runnableInformer(0),
          drift);
    }
  }

  private boolean servesCiliumNetworkPolicies() {
    try {
      return client.supports(CiliumNetworkPolicies.API_VERSION, CiliumNetworkPolicies.KIND);
    } catch (RuntimeException e) {
      LOG.warn("cannot ask whether the API server serves CiliumNetworkPolicy: {}", e.toString());
      return false;
    }
  }

  /** The informer caches once synced; empty before, and after {@link #stop()}. */
  Optional<ClusterCache> cache() {
    return Optional.ofNullable(stopped ? null : syncedCache);
  }

  /**
   * Every NetworkPolicy of the cluster to {@code native-policies} (monitor mode evaluates the
   * union). Not needed to run: on the Istio backend the chart grants no NetworkPolicy access.
   */
  private void startNativePolicyPublishing() {
    SharedIndexInformer<NetworkPolicy> all =
        client.network().v1().networkPolicies().inAnyNamespace().runnableInformer(0);
    nativeController =
        new Controller<>(
            "native-policies",
            new NativePolicyPublisher(
                producer,
                topics.nativePolicies(),
                key -> Optional.ofNullable(all.getStore().getByKey(key.toString())),
                meters),
            RETRY_BASE,
            RETRY_MAX,
            meters);
    all.addEventHandler(EnqueueKeys.<NetworkPolicy>to(nativeController::enqueue));
    all.exceptionHandler(
        (started, t) -> {
          LOG.warn("watch of NetworkPolicies for monitor mode failed: {}", t.getMessage());
          return !(t instanceof KubernetesClientException e
              && (e.getCode() == 403 || e.getCode() == 404));
        });
    informers.add(all);
    nativeController.start(1, config.identity());
    all.start()
        .thenRun(
            () -> {
              try {
                NativePolicyPublisher.stale(
                        all.getStore().list(),
                        PolicyTopicReader.liveKeys(
                            config.kafka().clientConfig(),
                            topics.nativePolicies().name(),
                            SYNC_TIMEOUT))
                    .forEach(nativeController::enqueue);
              } catch (Exception e) {
                LOG.warn("cannot resync {}: {}", topics.nativePolicies().name(), e.toString());
              }
            });
  }

  /**
   * Watches rendered objects for drift. Not needed to start: the chart grants only the native kind
   * of its backend, so the other one may be forbidden; then there is no watch, only the resync.
   */
  private <T extends HasMetadata> void startDriftWatch(
      String kind, SharedIndexInformer<T> informer, EnqueueKeys<HasMetadata> drift) {
    informer.addEventHandler(drift);
    informers.add(OptionalWatch.of("rendered " + kind + " objects", informer));
    informer.start();
  }

  private void startThread(String name, Runnable r) {
    threads.add(WorkerThreads.start(name, r));
  }

  /** Stops everything at once. Nothing is committed that was not written. */
  void stop() {
    stopped = true;
    if (proposalConsumer != null) {
      proposalConsumer.stop();
    }
    if (violationConsumer != null) {
      violationConsumer.stop();
    }
    if (lossConsumer != null) {
      lossConsumer.stop();
    }
    if (policyController != null) {
      policyController.close();
    }
    if (proposalController != null) {
      proposalController.close();
    }
    if (nativeController != null) {
      nativeController.close();
    }
    informers.forEach(SharedIndexInformer::stop);
    for (Thread t : threads) {
      try {
        t.join(Duration.ofSeconds(30).toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    kafka.close();
    if (producer != null) {
      producer.close(Duration.ofSeconds(5));
    }
    if (deadLetterProducer != null) {
      deadLetterProducer.close(Duration.ofSeconds(5));
    }
    LOG.info("leader session of {} stopped", config.identity());
  }
}
