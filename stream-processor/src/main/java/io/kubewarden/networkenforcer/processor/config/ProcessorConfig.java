package io.kubewarden.networkenforcer.processor.config;

import io.kubewarden.networkenforcer.common.config.ConfigException;
import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.policy.Backend;
import io.kubewarden.networkenforcer.common.topics.MinInSyncReplicas;
import io.kubewarden.networkenforcer.common.topics.Topics;
import io.kubewarden.networkenforcer.processor.rocksdb.BoundedMemoryRocksDbConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsConfig;

/**
 * Everything the stream processor can be told, with defaults and one {@link #validate()} that says
 * what to fix. {@link #streamsProperties()} turns it into the Kafka Streams configuration.
 *
 * @param applicationId Kafka Streams application id: consumer group, state directory and prefix of
 *     the internal topics
 * @param processingGuarantee {@code exactly_once_v2} (default: violation counts must not double on
 *     failover) or {@code at_least_once}
 * @param evidenceFlushInterval how often changed evidence (first/last seen, counts) is published
 * @param commitInterval how often offsets and transactions are committed
 * @param cacheMaxBytes record cache in front of the state stores, shared by all stream threads
 * @param rocksDbMemoryBytes off-heap memory all RocksDB stores of this process may use together
 * @param provider the installation's flow provider
 * @param backend the policy model learned proposals use; {@code provider.backend()} when null
 * @param createTopics create missing topics (with {@code kafka.partitions}) before starting
 * @param inMemoryStores keep the stores on the heap instead of RocksDB (offline runs and fast
 *     tests; still changelogged, so nothing is lost on a restart, only restored from Kafka)
 * @param learning cluster ranges, how outside addresses are learned, convergence thresholds
 * @param combineInterval how long the observations of one target and flow are combined into one
 *     record before the repartition ({@link #DEFAULT_COMBINE_INTERVAL}; 0 = every observation
 *     travels alone)
 * @param combineMaxPending combinations waiting per task before they are forwarded early ({@link
 *     #DEFAULT_COMBINE_MAX_PENDING}; bounds the combiner's memory, about 1 KiB each)
 * @param proposalEmission when a changed allow-list is published ({@link
 *     ProposalEmission#EVERY_CHANGE} by default; offline learning holds changes until the flush)
 * @param proposalInterval with {@link ProposalEmission#EVERY_CHANGE}: a target's proposal is
 *     published at once when its allow-list changes, then at most once per interval with every
 *     change since ({@link #DEFAULT_PROPOSAL_INTERVAL}; 0 = every change at once). A target that
 *     gains a thousand peers in a second (the cluster DNS of a new cluster) is rendered twice, not
 *     a thousand times.
 * @param storeChangelogs back the state stores by changelog topics (default); off only for a run
 *     whose state is thrown away at its end (offline learning), where a changelog record per store
 *     write is pure cost
 * @param observationsShuffled send observations to their target's task through the observations
 *     repartition topic (default). Off only where one task holds every partition (one partition,
 *     one process: the in-process driver of offline learning), where the combiner hands each
 *     observation straight to the target processor: the same processors see the same records,
 *     without a serialization and a topic round trip per observation
 * @param policyInputs read the policies and control topics and re-attribute denies through their
 *     topic (default). Off only for a run that is handed flows alone (the in-process driver of
 *     offline learning and replay), where no target has a policy: a deny is counted as its
 *     re-attribution would have been. The driver checks each record it is given against the name of
 *     every other source topic, compiling each as a pattern: three unused sources were 40 % of the
 *     driver's time
 * @param flowBatches the flows topic's records are {@link
 *     io.kubewarden.networkenforcer.processor.observation.FlowBatch}es of flow records. Only the
 *     in-process driver of offline learning and replay, which commits and checks every record it is
 *     handed, hands over batches; never on with the observations shuffled (the service)
 * @param groupInstanceId this instance's stable name in the consumer group (Kafka's static
 *     membership, {@code group.instance.id}; Kafka Streams adds {@code -<thread>} per stream
 *     thread), or null for dynamic membership. An instance that restarts under the same name within
 *     the session timeout gets its tasks back without a rebalance of the others; it must be unique
 *     among the running instances (the chart gives each StatefulSet pod its name)
 */
public record ProcessorConfig(
    String applicationId,
    KafkaSettings kafka,
    String processingGuarantee,
    Duration evidenceFlushInterval,
    Duration commitInterval,
    long cacheMaxBytes,
    Path stateDir,
    int standbyReplicas,
    int streamThreads,
    long rocksDbMemoryBytes,
    Provider provider,
    Backend backend,
    boolean createTopics,
    boolean inMemoryStores,
    LearningSettings learning,
    Duration combineInterval,
    int combineMaxPending,
    ProposalEmission proposalEmission,
    Duration proposalInterval,
    boolean storeChangelogs,
    boolean observationsShuffled,
    boolean policyInputs,
    boolean flowBatches,
    String groupInstanceId) {

  public static final String DEFAULT_APPLICATION_ID = "network-enforcer-processor";
  public static final Duration DEFAULT_EVIDENCE_FLUSH_INTERVAL = Duration.ofSeconds(30);

  /**
   * Chosen from the benchmark in README.md: 1 s keeps transactions few without delaying proposals.
   */
  public static final Duration DEFAULT_COMMIT_INTERVAL = Duration.ofSeconds(1);

  /**
   * How long observations of one target and flow are combined before the repartition (0: not
   * combined). The combiner's buffer is a changelogged store, so the interval only trades latency
   * for fewer records; it costs no safety.
   */
  // A combined observation carries the number of flow records it stands for, so violation counts
  // stay
  // one per flow record (api.md) with the combiner on.
  public static final Duration DEFAULT_COMBINE_INTERVAL = Duration.ofSeconds(1);

  public static final int DEFAULT_COMBINE_MAX_PENDING = 10_000;

  /**
   * At most one proposal per target per ten seconds from allow-list changes, after the first at
   * once: each is a whole rendering of the target (every peer and its evidence), so publishing one
   * per new peer is quadratic in bytes, and each becomes a write to the API server. A person
   * reviews proposals over hours; while a cluster is being learned nearly every target changes all
   * the time, and at one second the realistic mix of {@code ScaleOutBenchmark} spent 29 % more CPU
   * per flow (109 against 85 µs).
   */
  public static final Duration DEFAULT_PROPOSAL_INTERVAL = Duration.ofSeconds(10);

  public static final long DEFAULT_CACHE_MAX_BYTES = 16L * 1024 * 1024;
  public static final long DEFAULT_ROCKSDB_MEMORY_BYTES =
      BoundedMemoryRocksDbConfig.DEFAULT_MEMORY_BYTES;

  /**
   * Streams configuration key carrying {@link #rocksDbMemoryBytes} to the RocksDB config setter.
   */
  public static final String ROCKSDB_MEMORY_CONFIG = BoundedMemoryRocksDbConfig.MEMORY_CONFIG;

  public ProcessorConfig {
    Objects.requireNonNull(kafka, "kafka settings");
    applicationId = applicationId == null ? DEFAULT_APPLICATION_ID : applicationId;
    processingGuarantee =
        processingGuarantee == null ? StreamsConfig.EXACTLY_ONCE_V2 : processingGuarantee;
    evidenceFlushInterval =
        evidenceFlushInterval == null ? DEFAULT_EVIDENCE_FLUSH_INTERVAL : evidenceFlushInterval;
    commitInterval = commitInterval == null ? DEFAULT_COMMIT_INTERVAL : commitInterval;
    stateDir =
        stateDir == null
            ? Path.of(System.getProperty("java.io.tmpdir"), "network-enforcer-streams")
            : stateDir;
    provider = provider == null ? Provider.istio : provider;
    backend = backend == null ? provider.backend() : backend;
    learning = learning == null ? LearningSettings.DEFAULTS : learning;
    combineInterval = combineInterval == null ? DEFAULT_COMBINE_INTERVAL : combineInterval;
    combineMaxPending = combineMaxPending == 0 ? DEFAULT_COMBINE_MAX_PENDING : combineMaxPending;
    proposalEmission = proposalEmission == null ? ProposalEmission.EVERY_CHANGE : proposalEmission;
    proposalInterval = proposalInterval == null ? DEFAULT_PROPOSAL_INTERVAL : proposalInterval;
  }

  public static Builder builder(KafkaSettings kafka) {
    return new Builder(kafka);
  }

  public Builder toBuilder() {
    return new Builder(kafka)
        .applicationId(applicationId)
        .processingGuarantee(processingGuarantee)
        .evidenceFlushInterval(evidenceFlushInterval)
        .commitInterval(commitInterval)
        .cacheMaxBytes(cacheMaxBytes)
        .stateDir(stateDir)
        .standbyReplicas(standbyReplicas)
        .streamThreads(streamThreads)
        .rocksDbMemoryBytes(rocksDbMemoryBytes)
        .provider(provider)
        .backend(backend)
        .createTopics(createTopics)
        .inMemoryStores(inMemoryStores)
        .learning(learning)
        .combineInterval(combineInterval)
        .combineMaxPending(combineMaxPending)
        .proposalEmission(proposalEmission)
        .proposalInterval(proposalInterval)
        .storeChangelogs(storeChangelogs)
        .observationsShuffled(observationsShuffled)
        .policyInputs(policyInputs)
        .flowBatches(flowBatches)
        .groupInstanceId(groupInstanceId);
  }

  /** Checks every value and says what to fix. Returns this for chaining. */
  public ProcessorConfig validate() {
    kafka.validate();
    if (applicationId.isBlank() || !applicationId.matches("[a-zA-Z0-9._-]+")) {
      throw new ConfigException(
          "processor application id '"
              + applicationId
              + "' must be non-empty and contain only letters, digits, '.', '_' and '-'");
    }
    if (!StreamsConfig.EXACTLY_ONCE_V2.equals(processingGuarantee)
        && !StreamsConfig.AT_LEAST_ONCE.equals(processingGuarantee)) {
      throw new ConfigException(
          "processing guarantee must be exactly_once_v2 or at_least_once, got '"
              + processingGuarantee
              + "'");
    }
    requirePositive("evidence flush interval", evidenceFlushInterval);
    learning.validate();
    requirePositive("commit interval", commitInterval);
    if (proposalInterval.isNegative()) {
      throw new ConfigException(
          "proposal interval must be 0 (every change at once) or positive, got "
              + proposalInterval);
    }
    if (combineInterval.isNegative()) {
      throw new ConfigException(
          "observation combine interval must be 0 (off) or positive, got " + combineInterval);
    }
    if (!observationsShuffled && kafka.partitions() != 1) {
      throw new ConfigException(
          "observations can skip the repartition only with one partition, got "
              + kafka.partitions());
    }
    if (flowBatches && (observationsShuffled || combineInterval.isZero())) {
      throw new ConfigException(
          "flow batches are read by the combiner of the in-process driver only (one partition, "
              + "observations not shuffled, a combine interval)");
    }
    if (groupInstanceId != null && (groupInstanceId.isBlank() || groupInstanceId.length() > 200)) {
      throw new ConfigException(
          "group instance id must be null (dynamic membership) or 1 to 200 characters, got '"
              + groupInstanceId
              + "'");
    }
    if (combineMaxPending < 1) {
      throw new ConfigException(
          "the combiner needs room for at least one combination, got " + combineMaxPending);
    }
    if (cacheMaxBytes < 0) {
      throw new ConfigException(
          "processor cache size must be 0 or more bytes, got " + cacheMaxBytes);
    }
    if (standbyReplicas < 0) {
      throw new ConfigException("standby replicas must be 0 or more, got " + standbyReplicas);
    }
    if (streamThreads < 1) {
      throw new ConfigException("stream threads must be at least 1, got " + streamThreads);
    }
    if (rocksDbMemoryBytes < 8L * 1024 * 1024) {
      throw new ConfigException(
          "RocksDB memory must be at least 8 MiB, got " + rocksDbMemoryBytes + " bytes");
    }
    if (provider == Provider.istio && backend != Backend.istio) {
      throw new ConfigException(
          "the istio provider learns the istio backend only; backend '"
              + backend
              + "' does not fit");
    }
    if (provider == Provider.calico && backend != Backend.kubernetes) {
      throw new ConfigException(
          "the calico provider learns the kubernetes backend only; backend '"
              + backend
              + "' does not fit");
    }
    // Hubble reports the DNS names CiliumNetworkPolicy toFQDNs rules need; the others do not.
    if (provider == Provider.cilium && backend == Backend.istio) {
      throw new ConfigException(
          "the cilium provider learns the kubernetes or cilium backend; backend 'istio' does not"
              + " fit");
    }
    if (learning.ciliumEntities() && backend != Backend.cilium) {
      throw new ConfigException(
          "Cilium entities are rules of the cilium backend; backend '"
              + backend
              + "' has none: drop --cilium-entities or choose --backend cilium");
    }
    if (learning.l7Http() && backend != Backend.cilium) {
      throw new ConfigException(
          "L7 HTTP rules are rules of the cilium backend; backend '"
              + backend
              + "' has none: drop --learn-l7-http or choose --backend cilium");
    }
    return this;
  }

  private static void requirePositive(String name, Duration d) {
    if (d.isZero() || d.isNegative()) {
      throw new ConfigException(name + " must be positive, got " + d);
    }
  }

  public Topics topics() {
    return kafka.topics();
  }

  /** The processor's own loop topic: denies re-attributed from a destination to a source target. */
  public String reattributionTopic() {
    return applicationId + "-deny-reattribution";
  }

  /** The Kafka Streams configuration of this processor. */
  public Properties streamsProperties() {
    Properties p = kafka.clientConfig();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, processingGuarantee);
    // exactly_once_v2 sets this itself; at_least_once (replay, or a switch from exactly_once_v2
    // with
    // aborted records still on the topics) would otherwise read records of aborted transactions.
    p.put(StreamsConfig.consumerPrefix(ConsumerConfig.ISOLATION_LEVEL_CONFIG), "read_committed");
    p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, Long.toString(commitInterval.toMillis()));
    p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, Long.toString(cacheMaxBytes));
    p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
    p.put(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, Integer.toString(standbyReplicas));
    p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, Integer.toString(streamThreads));
    p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, Short.toString(kafka.replicationFactor()));
    // The internal topics Kafka Streams creates (changelogs, repartition) get the rule of ours.
    p.put(
        StreamsConfig.topicPrefix(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG),
        Integer.toString(MinInSyncReplicas.of(kafka.replicationFactor())));
    p.put(
        StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG,
        BoundedMemoryRocksDbConfig.class.getName());
    p.put(ROCKSDB_MEMORY_CONFIG, Long.toString(rocksDbMemoryBytes));
    if (groupInstanceId != null) {
      p.put(
          StreamsConfig.mainConsumerPrefix(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG),
          groupInstanceId);
    }
    p.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.ByteArraySerde.class.getName());
    p.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.ByteArraySerde.class.getName());
    // Outputs are JSON and compress well; proposals and violations repeat most of their bytes.
    p.put(StreamsConfig.producerPrefix(ProducerConfig.COMPRESSION_TYPE_CONFIG), "lz4");
    // The producer checks a record's uncompressed size against this (default 1 MiB): the proposal
    // of a
    // target with thousands of peers (the cluster DNS of 3,000 workloads) is larger, and the stream
    // thread failed on it. Compressed it fits the broker's default message size many times over.
    p.putIfAbsent(
        StreamsConfig.producerPrefix(ProducerConfig.MAX_REQUEST_SIZE_CONFIG),
        Integer.toString(Topics.MAX_RECORD_BYTES));
    return p;
  }

  /** Builder: most settings have good defaults. */
  public static final class Builder {
    private final KafkaSettings kafka;
    private String applicationId;
    private String processingGuarantee;
    private Duration evidenceFlushInterval;
    private Duration commitInterval;
    private long cacheMaxBytes = DEFAULT_CACHE_MAX_BYTES;
    private Path stateDir;
    private int standbyReplicas;
    private int streamThreads = 1;
    private long rocksDbMemoryBytes = DEFAULT_ROCKSDB_MEMORY_BYTES;
    private Provider provider;
    private Backend backend;
    private boolean createTopics = true;
    private boolean inMemoryStores;
    private LearningSettings learning;
    private Duration combineInterval;
    private int combineMaxPending;
    private ProposalEmission proposalEmission;
    private Duration proposalInterval;
    private boolean storeChangelogs = true;
    private boolean observationsShuffled = true;
    private boolean policyInputs = true;
    private boolean flowBatches;
    private String groupInstanceId;

    private Builder(KafkaSettings kafka) {
      this.kafka = kafka;
    }

    public Builder applicationId(String v) {
      applicationId = v;
      return this;
    }

    public Builder processingGuarantee(String v) {
      processingGuarantee = v;
      return this;
    }

    public Builder evidenceFlushInterval(Duration v) {
      evidenceFlushInterval = v;
      return this;
    }

    public Builder commitInterval(Duration v) {
      commitInterval = v;
      return this;
    }

    public Builder cacheMaxBytes(long v) {
      cacheMaxBytes = v;
      return this;
    }

    public Builder stateDir(Path v) {
      stateDir = v;
      return this;
    }

    public Builder standbyReplicas(int v) {
      standbyReplicas = v;
      return this;
    }

    public Builder streamThreads(int v) {
      streamThreads = v;
      return this;
    }

    public Builder rocksDbMemoryBytes(long v) {
      rocksDbMemoryBytes = v;
      return this;
    }

    public Builder provider(Provider v) {
      provider = v;
      return this;
    }

    public Builder backend(Backend v) {
      backend = v;
      return this;
    }

    public Builder createTopics(boolean v) {
      createTopics = v;
      return this;
    }

    public Builder inMemoryStores(boolean v) {
      inMemoryStores = v;
      return this;
    }

    public Builder learning(LearningSettings v) {
      learning = v;
      return this;
    }

    public Builder combineInterval(Duration v) {
      combineInterval = v;
      return this;
    }

    public Builder combineMaxPending(int v) {
      combineMaxPending = v;
      return this;
    }

    public Builder proposalEmission(ProposalEmission v) {
      proposalEmission = v;
      return this;
    }

    public Builder proposalInterval(Duration v) {
      proposalInterval = v;
      return this;
    }

    public Builder storeChangelogs(boolean v) {
      storeChangelogs = v;
      return this;
    }

    public Builder policyInputs(boolean v) {
      policyInputs = v;
      return this;
    }

    public Builder flowBatches(boolean v) {
      flowBatches = v;
      return this;
    }

    public Builder observationsShuffled(boolean v) {
      observationsShuffled = v;
      return this;
    }

    public Builder groupInstanceId(String v) {
      groupInstanceId = v;
      return this;
    }

    public ProcessorConfig build() {
      return new ProcessorConfig(
          applicationId,
          kafka,
          processingGuarantee,
          evidenceFlushInterval,
          commitInterval,
          cacheMaxBytes,
          stateDir,
          standbyReplicas,
          streamThreads,
          rocksDbMemoryBytes,
          provider,
          backend,
          createTopics,
          inMemoryStores,
          learning,
          combineInterval,
          combineMaxPending,
          proposalEmission,
          proposalInterval,
          storeChangelogs,
          observationsShuffled,
          policyInputs,
          flowBatches,
          groupInstanceId);
    }
  }
}
