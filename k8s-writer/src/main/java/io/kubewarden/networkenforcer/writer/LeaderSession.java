package io.kubewarden.networkenforcer.writer;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicy;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.common.topics.Topics;
import io.kubewarden.networkenforcer.writer.apply.ClusterWriter;
import io.kubewarden.networkenforcer.writer.cache.ClusterCache;
import io.kubewarden.networkenforcer.writer.deadletter.DeadLetters;
import io.kubewarden.networkenforcer.writer.events.EnqueueKeys;
import io.kubewarden.networkenforcer.writer.events.EventFilters;
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
import io.kubewarden.networkenforcer.writer.reconcile.Reconciler;
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
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
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
  private static final Duration RETRY_BASE = Duration.ofMillis(500);
  private static final Duration RETRY_MAX = Duration.ofMinutes(5);

  private final KubernetesClient client;
  private final WriterConfig config;
  private final ClusterWriter writer;
  private final ViolationEvents events;
  private final MeterRegistry meters;
  private final Clock clock;
  private final Topics topics;
  private final KafkaClients kafka;
  private Controller<ObjectKey> policyController;
  private Controller<ObjectKey> proposalController;
  private Controller<ObjectKey> nativeController;
  private DesiredProposals desiredProposals;
  private ViolationBuffer violations;
  private final List<SharedIndexInformer<?>> informers = new ArrayList<>();
  private final ConsumerThreads consumers = new ConsumerThreads();
  private KafkaProducer<String, byte[]> producer;
  private KafkaProducer<byte[], byte[]> deadLetterProducer;
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
    IstioAvailability istio = new IstioAvailability(client, Duration.ofMinutes(1), clock);
    ClusterInformers cluster = new ClusterInformers(client, config.resyncPeriod());
    ClusterCache cache = cluster.cache;
    ObjectEvents objectEvents = new ObjectEvents(writer, clock);
    PolicyPublisher publisher =
        new PolicyPublisher(
            producer, topics.policies(), topics.control(), cache, meters, clock, leading);
    desiredProposals = new DesiredProposals();
    violations = new ViolationBuffer();
    LossLedger losses = new LossLedger(config.convergenceQuietPeriod());
    ProposalReconciler proposalReconciler =
        proposalReconciler(cache, publisher, deadLetters, objectEvents, losses);
    proposalController = controller("proposals", proposalReconciler);
    policyController =
        controller(
            "policies", policyReconciler(cache, publisher, istio, deadLetters, objectEvents));
    routeEvents(cluster);
    informers.addAll(DriftWatches.start(client, istio, policyController::enqueue));
    cluster.startAndSync(SYNC_TIMEOUT);
    if (stopped || !leading.getAsBoolean()) {
      return;
    }
    syncedCache = cache;
    catchUp(cache, publisher, losses, deadLetters);
    policyController.start(1, config.identity());
    proposalController.start(1, config.identity());
    startNativePolicyPublishing();
    startConsumers(cache, deadLetters);
    LOG.info("leader session of {} running", config.identity());
  }

  private Controller<ObjectKey> controller(String name, Reconciler<ObjectKey> reconciler) {
    return new Controller<>(name, reconciler, RETRY_BASE, RETRY_MAX, meters);
  }

  private ProposalReconciler proposalReconciler(
      ClusterCache cache,
      PolicyPublisher publisher,
      DeadLetters deadLetters,
      ObjectEvents objectEvents,
      LossLedger losses) {
    return new ProposalReconciler(
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
  }

  /** Publish, render, status; a policy's change queues the proposals of its target. */
  private PolicyReconciler policyReconciler(
      ClusterCache cache,
      PolicyPublisher publisher,
      IstioAvailability istio,
      DeadLetters deadLetters,
      ObjectEvents objectEvents) {
    RenderConditions renderConditions = new RenderConditions();
    NativeRenderer renderer = new NativeRenderer(client, writer, istio, renderConditions, meters);
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
    return new PolicyReconciler(
        cache,
        publisher,
        renderer,
        renderConditions,
        statusSync,
        proposalController::enqueue,
        objectEvents);
  }

  /** The informers' events as keys on the queues; the filters are named in {@link EventFilters}. */
  private void routeEvents(ClusterInformers cluster) {
    cluster.policies.addEventHandler(
        EnqueueKeys.<WorkloadNetworkPolicy>to(policyController::enqueue)
            .updatesWhen(EventFilters.specOrMetadataChangedOrResync()));
    // A person's delete waits in the cluster (LearningResetFinalizer), not in an event handler.
    cluster.proposals.addEventHandler(
        EnqueueKeys.<WorkloadNetworkPolicyProposal>to(proposalController::enqueue));
    informers.addAll(cluster.all());
  }

  /**
   * Before any reconciler runs, on complete caches: "does this target have a policy?" must not be
   * answered from a half-filled cache (it would promote or apply over an existing policy). Every
   * policy is published and what the cluster no longer has is tombstoned; the data plane's loss is
   * read, so no proposal shows Converged wrongly.
   */
  private void catchUp(
      ClusterCache cache, PolicyPublisher publisher, LossLedger losses, DeadLetters deadLetters)
      throws Exception {
    var keysOnTopic =
        PolicyTopicReader.liveKeys(
            config.kafka().clientConfig(), topics.policies().name(), SYNC_TIMEOUT);
    publisher.resync(cache.allPolicies(), keysOnTopic);
    lossConsumer =
        new LossConsumer(
            kafka.consumer("loss"),
            topics.dataPlaneLoss(),
            losses,
            () -> cache.allProposals().forEach(p -> proposalController.enqueue(ObjectKey.of(p))),
            deadLetters,
            config.statusUpdateInterval(),
            clock);
    consumers.stopsWith(lossConsumer::stop);
    lossConsumer.catchUp(SYNC_TIMEOUT);
  }

  /**
   * The topics' consumers, each on its own thread; they only record desired state and queue keys.
   */
  private void startConsumers(ClusterCache cache, DeadLetters deadLetters) {
    ProposalConsumer proposalConsumer =
        new ProposalConsumer(
            kafka.consumer("proposals"),
            topics.proposals(),
            desiredProposals,
            proposalController::enqueue,
            deadLetters);
    ViolationConsumer violationConsumer =
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
    consumers.stopsWith(proposalConsumer::stop);
    consumers.stopsWith(violationConsumer::stop);
    consumers.start("writer-proposals-" + config.identity(), proposalConsumer);
    consumers.start("writer-violations-" + config.identity(), violationConsumer);
    consumers.start("writer-loss-" + config.identity(), lossConsumer);
  }

  /** The informer caches once synced; empty before, and after {@link #stop()}. */
  Optional<ClusterCache> cache() {
    return Optional.ofNullable(stopped ? null : syncedCache);
  }

  /** Every NetworkPolicy of the cluster to {@code native-policies} ({@link NativePolicyFeed}). */
  private void startNativePolicyPublishing() {
    NativePolicyFeed feed =
        NativePolicyFeed.start(
            client, producer, config, SYNC_TIMEOUT, RETRY_BASE, RETRY_MAX, meters);
    nativeController = feed.controller();
    informers.add(feed.informer());
  }

  /** Stops everything at once. Nothing is committed that was not written. */
  void stop() {
    stopped = true;
    // The consumers first (they queue keys), then the controllers, then what they read from.
    consumers.stopAll();
    Stream.of(policyController, proposalController, nativeController)
        .filter(Objects::nonNull)
        .forEach(Controller::close);
    informers.forEach(SharedIndexInformer::stop);
    consumers.join(Duration.ofSeconds(30));
    kafka.close();
    Stream.of(producer, deadLetterProducer)
        .filter(Objects::nonNull)
        .forEach(p -> p.close(Duration.ofSeconds(5)));
    LOG.info("leader session of {} stopped", config.identity());
  }
}
