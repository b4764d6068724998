package io.kubewarden.networkenforcer.writer;

import io.kubewarden.networkenforcer.writer.deadletter.DeadLetters;

import io.kubewarden.networkenforcer.writer.cache.ClusterCache;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicy;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.common.lifecycle.WorkerThreads;
import io.kubewarden.networkenforcer.common.policy.Labels;
import io.kubewarden.networkenforcer.common.topics.Topics;
import io.kubewarden.networkenforcer.writer.apply.ClusterWriter;
import io.kubewarden.networkenforcer.common.workload.WorkloadKind;
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
import io.kubewarden.networkenforcer.writer.rendering.IstioAvailability;
import io.kubewarden.networkenforcer.writer.rendering.NativeRenderer;
import io.kubewarden.networkenforcer.writer.rendering.Ownership;
import io.kubewarden.networkenforcer.writer.rendering.RenderConditions;
import io.kubewarden.networkenforcer.writer.status.StatusMerger;
import io.kubewarden.networkenforcer.writer.status.StatusSync;
import io.kubewarden.networkenforcer.writer.status.ViolationBuffer;
import io.kubewarden.networkenforcer.writer.status.ViolationConsumer;
import io.kubewarden.networkenforcer.writer.telemetry.ViolationEvents;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything the writer does while it holds the lease: informers on policies, proposals, workloads
 * and the rendered objects; one keyed controller per kind (policies, proposals) whose work queue
 * the informers and the Kafka consumers (proposals, violations) feed; and nothing else. Built on
 * leading, torn down on losing it: all state that matters is in the cluster and on the topics.
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
  private static final Duration RETRY_BASE = Duration.ofMillis(500);
  private static final Duration RETRY_MAX = Duration.ofMinutes(5);
  private Controller<ObjectKey> policyController;
  private Controller<ObjectKey> proposalController;
  private DesiredProposals desiredProposals;
  private ViolationBuffer violations;
  private final List<SharedIndexInformer<?>> informers = new ArrayList<>();
  private final List<Thread> threads = new ArrayList<>();
  private final List<KafkaClientMetrics> consumerMetrics = new ArrayList<>();
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

  LeaderSession(KubernetesClient client, WriterConfig config, ClusterWriter writer, ViolationEvents events,
      MeterRegistry meters, Clock clock, BooleanSupplier leading, AtomicInteger buffered) {
    this.leading = leading;
    this.buffered = buffered;
    this.client = client;
    this.config = config;
    this.writer = writer;
    this.events = events;
    this.meters = meters;
    this.clock = clock;
    this.topics = config.kafka().topics();
  }

  void start() throws Exception {
    producer = new KafkaProducer<>(producerConfig(), new StringSerializer(), new ByteArraySerializer());
    deadLetterProducer = new KafkaProducer<>(producerConfig(), new ByteArraySerializer(), new ByteArraySerializer());
    DeadLetters deadLetters = new DeadLetters(deadLetterProducer, topics.deadLetter(), meters);
    RenderConditions renderConditions = new RenderConditions();
    IstioAvailability istio = new IstioAvailability(client, Duration.ofMinutes(1), clock);
    long resync = config.resyncPeriod().toMillis();

    SharedIndexInformer<WorkloadNetworkPolicy> policyInformer = client.resources(WorkloadNetworkPolicy.class)
        .inAnyNamespace().runnableInformer(resync);
    policyInformer.addIndexers(ClusterCache.targetIndex());
    SharedIndexInformer<WorkloadNetworkPolicyProposal> proposalInformer = client
        .resources(WorkloadNetworkPolicyProposal.class).inAnyNamespace().runnableInformer(resync);
    // Proposals take their owner's uid from here: no GET per proposal record.
    Map<WorkloadKind, SharedIndexInformer<? extends HasMetadata>> workloads = new EnumMap<>(WorkloadKind.class);
    workloads.put(WorkloadKind.Deployment, client.apps().deployments().inAnyNamespace().runnableInformer(0));
    workloads.put(WorkloadKind.StatefulSet, client.apps().statefulSets().inAnyNamespace().runnableInformer(0));
    workloads.put(WorkloadKind.DaemonSet, client.apps().daemonSets().inAnyNamespace().runnableInformer(0));
    workloads.put(WorkloadKind.CronJob, client.batch().v1().cronjobs().inAnyNamespace().runnableInformer(0));
    ClusterCache cache = new ClusterCache(policyInformer, proposalInformer, workloads);

    ObjectEvents objectEvents = new ObjectEvents(writer, clock);
    PolicyPublisher publisher = new PolicyPublisher(producer, topics.policies(), topics.control(), cache, meters,
        clock, leading);
    NativeRenderer renderer = new NativeRenderer(client, writer, istio, renderConditions, meters);
    desiredProposals = new DesiredProposals();
    violations = new ViolationBuffer();
    LossLedger losses = new LossLedger(config.convergenceQuietPeriod());
    ProposalReconciler proposalReconciler = new ProposalReconciler(cache, writer, desiredProposals,
        new Promoter(client, cache, writer, meters), publisher, deadLetters, objectEvents, meters, clock, losses);
    proposalController = new Controller<>("proposals", proposalReconciler, RETRY_BASE, RETRY_MAX, meters);
    StatusSync statusSync = new StatusSync(client, writer, cache, violations, renderConditions, events,
        new StatusMerger(), meters, clock, deadLetters);
    policyController = new Controller<>("policies", new PolicyReconciler(cache, publisher, renderer,
        renderConditions, statusSync, proposalController::enqueue, objectEvents), RETRY_BASE, RETRY_MAX, meters);

    policyInformer.addEventHandler(new ResourceEventHandler<>() {
      @Override
      public void onAdd(WorkloadNetworkPolicy wnp) {
        policyController.enqueue(ObjectKey.of(wnp));
      }

      @Override
      public void onUpdate(WorkloadNetworkPolicy old, WorkloadNetworkPolicy wnp) {
        // A status write of our own changes neither spec, labels nor annotations: no reconcile for it.
        boolean resyncEvent = Objects.equals(old.getMetadata().getResourceVersion(),
            wnp.getMetadata().getResourceVersion());
        boolean changed = !Objects.equals(old.getMetadata().getGeneration(), wnp.getMetadata().getGeneration())
            || !Objects.equals(old.getMetadata().getLabels(), wnp.getMetadata().getLabels())
            || !Objects.equals(old.getMetadata().getAnnotations(), wnp.getMetadata().getAnnotations());
        if (resyncEvent || changed) {
          policyController.enqueue(ObjectKey.of(wnp));
        }
      }

      @Override
      public void onDelete(WorkloadNetworkPolicy wnp, boolean unknownFinalState) {
        policyController.enqueue(ObjectKey.of(wnp));
      }
    });
    proposalInformer.addEventHandler(new ResourceEventHandler<>() {
      @Override
      public void onAdd(WorkloadNetworkPolicyProposal p) {
        proposalController.enqueue(ObjectKey.of(p));
      }

      @Override
      public void onUpdate(WorkloadNetworkPolicyProposal old, WorkloadNetworkPolicyProposal p) {
        proposalController.enqueue(ObjectKey.of(p));
      }

      @Override
      public void onDelete(WorkloadNetworkPolicyProposal p, boolean unknownFinalState) {
        proposalReconciler.onDeleted(p);
        proposalController.enqueue(ObjectKey.of(p));
      }
    });
    informers.add(policyInformer);
    informers.add(proposalInformer);
    informers.addAll(workloads.values());
    // Drift: a rendered object changed or deleted behind our back is rendered again.
    ResourceEventHandler<HasMetadata> drift = new ResourceEventHandler<>() {
      @Override
      public void onAdd(HasMetadata o) {}

      @Override
      public void onUpdate(HasMetadata old, HasMetadata o) {
        enqueueOwner(o);
      }

      @Override
      public void onDelete(HasMetadata o, boolean unknownFinalState) {
        enqueueOwner(o);
      }
    };
    SharedIndexInformer<NetworkPolicy> npInformer = client.network().v1().networkPolicies().inAnyNamespace()
        .withLabel(Labels.MANAGED_BY, Labels.MANAGED_BY_VALUE).runnableInformer(0);
    startDriftWatch("NetworkPolicy", npInformer, drift);
    if (istio.available()) {
      SharedIndexInformer<GenericKubernetesResource> apInformer = client
          .genericKubernetesResources(AuthorizationPolicies.CONTEXT).inAnyNamespace()
          .withLabel(Labels.MANAGED_BY, Labels.MANAGED_BY_VALUE).runnableInformer(0);
      startDriftWatch("AuthorizationPolicy", apInformer, drift);
    }
    List<SharedIndexInformer<?>> needed = new ArrayList<>(List.of(policyInformer, proposalInformer));
    needed.addAll(workloads.values());
    for (SharedIndexInformer<?> i : needed) {
      i.start().toCompletableFuture().get(SYNC_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    }
    if (stopped || !leading.getAsBoolean()) {
      return;
    }
    syncedCache = cache;
    // Every policy is published below; tombstone what the cluster no longer has. Reconcilers start
    // only now, on complete caches: "does this target have a policy?" must not be answered from a
    // half-filled cache (it would promote or apply over an existing policy).
    var keysOnTopic = PolicyTopicReader.liveKeys(config.kafka().clientConfig(), topics.policies().name(), SYNC_TIMEOUT);
    publisher.resync(cache.allPolicies(), keysOnTopic);
    // The data plane's loss is read before any proposal is reconciled: none shows Converged wrongly.
    lossConsumer = new LossConsumer(metered("loss", new KafkaConsumer<>(consumerConfig("loss"),
        new StringDeserializer(), new ByteArrayDeserializer())), topics.dataPlaneLoss(), losses,
        () -> cache.allProposals().forEach(p -> proposalController.enqueue(ObjectKey.of(p))), deadLetters,
        config.statusUpdateInterval(), clock);
    lossConsumer.catchUp(SYNC_TIMEOUT);
    policyController.start(1, config.identity());
    proposalController.start(1, config.identity());
    startNativePolicyPublishing();

    proposalConsumer = new ProposalConsumer(metered("proposals", new KafkaConsumer<>(consumerConfig("proposals"),
        new StringDeserializer(), new ByteArrayDeserializer())), topics.proposals(), desiredProposals,
        proposalController::enqueue, deadLetters);
    violationConsumer = new ViolationConsumer(metered("violations", new KafkaConsumer<>(consumerConfig("violations"),
        new StringDeserializer(), new ByteArrayDeserializer())), topics.violations(), violations, cache,
        k -> policyController.enqueue(ObjectKey.parse(k)), events, deadLetters, config.statusUpdateInterval(),
        config.maxBufferedViolations(), meters, clock, buffered);
    startThread("writer-proposals-" + config.identity(), proposalConsumer);
    startThread("writer-violations-" + config.identity(), violationConsumer);
    startThread("writer-loss-" + config.identity(), lossConsumer);
    LOG.info("leader session of {} running", config.identity());
  }

  /** The informer caches once synced; empty before, and after {@link #stop()}. */
  Optional<ClusterCache> cache() {
    return Optional.ofNullable(stopped ? null : syncedCache);
  }

  private void enqueueOwner(HasMetadata o) {
    Ownership.controllerOf(o).filter(r -> "WorkloadNetworkPolicy".equals(r.getKind()))
        .ifPresent(r -> policyController.enqueue(new ObjectKey(o.getMetadata().getNamespace(), r.getName())));
  }

  /**
   * Every NetworkPolicy of the cluster to {@code native-policies} (monitor mode evaluates the
   * union). Not needed to run: on the Istio backend the chart grants no NetworkPolicy access.
   */
  private void startNativePolicyPublishing() {
    NativePolicyPublisher natives = new NativePolicyPublisher(producer, topics.nativePolicies(), meters);
    SharedIndexInformer<NetworkPolicy> all = client.network().v1().networkPolicies().inAnyNamespace()
        .runnableInformer(0);
    all.addEventHandler(natives);
    all.exceptionHandler((started, t) -> {
      LOG.warn("watch of NetworkPolicies for monitor mode failed: {}", t.getMessage());
      return !(t instanceof KubernetesClientException e && (e.getCode() == 403 || e.getCode() == 404));
    });
    informers.add(all);
    all.start().thenRun(() -> {
      try {
        natives.resync(all.getStore().list(), PolicyTopicReader.liveKeys(config.kafka().clientConfig(),
            topics.nativePolicies().name(), SYNC_TIMEOUT));
      } catch (Exception e) {
        LOG.warn("cannot resync {}: {}", topics.nativePolicies().name(), e.toString());
      }
    });
  }

  /**
   * Watches rendered objects for drift. Not needed to start: the chart grants only the native kind
   * of its backend, so the other one may be forbidden; then there is no watch, only the resync.
   */
  private <T extends HasMetadata> void startDriftWatch(String kind, SharedIndexInformer<T> informer,
      ResourceEventHandler<HasMetadata> drift) {
    informer.addEventHandler(drift);
    informer.exceptionHandler((started, t) -> {
      Throwable cause = t;
      while (cause.getCause() != null && !(cause instanceof KubernetesClientException)) {
        cause = cause.getCause();
      }
      boolean forbidden = cause instanceof KubernetesClientException e && (e.getCode() == 403 || e.getCode() == 404);
      LOG.warn("watch of rendered {} objects {}: {}", kind, forbidden ? "not permitted, drift is repaired on resync"
          : "failed, retrying", cause.getMessage());
      return !forbidden;
    });
    informers.add(informer);
    informer.start();
  }

  private void startThread(String name, Runnable r) {
    threads.add(WorkerThreads.start(name, r));
  }

  private Properties producerConfig() {
    Properties p = config.kafka().clientConfig();
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    // A proposal record refused as too large for the API server is parked on dead-letter as it came.
    p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(Topics.MAX_RECORD_BYTES));
    p.put(ProducerConfig.CLIENT_ID_CONFIG, "network-enforcer-writer-" + config.identity());
    return p;
  }

  /**
   * The consumer's Kafka client metrics (lag, fetch rate) on the writer's registry, tagged with its
   * group; unbound when the session stops, so a standby exports none.
   */
  private <K, V> KafkaConsumer<K, V> metered(String what, KafkaConsumer<K, V> consumer) {
    KafkaClientMetrics metrics = new KafkaClientMetrics(consumer, Tags.of("group", groupId(what)));
    metrics.bindTo(meters);
    consumerMetrics.add(metrics);
    return consumer;
  }

  private String groupId(String what) {
    return config.consumerGroup() + "-" + what;
  }

  private Properties consumerConfig(String what) {
    Properties p = config.kafka().clientConfig();
    p.put(ConsumerConfig.GROUP_ID_CONFIG, groupId(what));
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    // The processor writes in transactions: records of one that aborts (a crash, a fenced zombie)
    // must not be counted, the processor writes them again. The client's default reads them.
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    // A new group starts at the beginning: nothing produced before the first writer started is lost.
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, "network-enforcer-writer-" + what + "-" + config.identity());
    return p;
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
    informers.forEach(SharedIndexInformer::stop);
    for (Thread t : threads) {
      try {
        t.join(Duration.ofSeconds(30).toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    consumerMetrics.forEach(KafkaClientMetrics::close);
    if (producer != null) {
      producer.close(Duration.ofSeconds(5));
    }
    if (deadLetterProducer != null) {
      deadLetterProducer.close(Duration.ofSeconds(5));
    }
    LOG.info("leader session of {} stopped", config.identity());
  }
}
