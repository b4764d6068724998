package io.kubewarden.networkenforcer.processor.topology;

import io.kubewarden.networkenforcer.common.crd.PolicySnapshot;
import io.kubewarden.networkenforcer.common.policy.NativePolicySnapshot;
import io.kubewarden.networkenforcer.common.policy.TargetKey;
import io.kubewarden.networkenforcer.common.topics.JsonSerde;
import io.kubewarden.networkenforcer.common.topics.Topic;
import io.kubewarden.networkenforcer.common.topics.Topics;
import io.kubewarden.networkenforcer.processor.config.ProcessorConfig;
import io.kubewarden.networkenforcer.processor.decoding.DeadLetterForwarder;
import io.kubewarden.networkenforcer.processor.decoding.Decoded;
import io.kubewarden.networkenforcer.processor.decoding.RecordDecoder;
import io.kubewarden.networkenforcer.processor.evaluation.NativePolicies;
import io.kubewarden.networkenforcer.processor.learning.AllowListLearner;
import io.kubewarden.networkenforcer.processor.learning.LearnedAllowList;
import io.kubewarden.networkenforcer.processor.learning.PortStatsCodec;
import io.kubewarden.networkenforcer.processor.metrics.ProcessorMetrics;
import io.kubewarden.networkenforcer.processor.observation.Observation;
import io.kubewarden.networkenforcer.processor.observation.ObservationCodec;
import io.kubewarden.networkenforcer.processor.observation.ObservationCombiner;
import io.kubewarden.networkenforcer.processor.observation.ObservationMapper;
import io.kubewarden.networkenforcer.processor.observation.PendingCombinations;
import io.kubewarden.networkenforcer.processor.store.StoreNames;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Branched;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/**
 * The processor's topology: (flows, policies, control) → (proposals, violations, dead-letter).
 * Built by {@link #build} for the application and for the TopologyTestDriver tests alike.
 *
 * <pre>
 * flows ─decode─ observe and combine per target ─repartition(observations, by target)─┐
 * policies ─decode──────────────────────────────────────────────────────────┤
 * control ─decode───────────────────────────────────────────────────────────┼─ targets (stores) ─┬─ proposals
 * &lt;app&gt;-deny-reattribution ─decode──────────────────────────────────────────┘                    ├─ violations
 * every unreadable record ─────────────────────────────────────── dead-letter                  └─ &lt;app&gt;-deny-reattribution
 * </pre>
 *
 * <p>policies, control, the re-attribution topic and the observations repartition topic must have
 * the same partition count (checked at start by the application).
 */
public final class NetworkEnforcerTopology {
  /** The repartition topic is {@code <application id>-observations-repartition}. */
  public static final String OBSERVATIONS = "observations";

  private static final Duration REATTRIBUTION_RETENTION = Duration.ofDays(1);

  private NetworkEnforcerTopology() {}

  /** The name of the internal repartition topic Kafka Streams creates for observations. */
  public static String observationsRepartitionTopic(ProcessorConfig config) {
    return config.applicationId() + "-" + OBSERVATIONS + "-repartition";
  }

  /** The processor's loop topic, created by the application with the co-partitioned count. */
  public static Topic<String, Observation> reattributionTopic(ProcessorConfig config) {
    return new Topic<>(
        config.reattributionTopic(),
        Serdes.String(),
        ObservationCodec.serde(),
        false,
        Optional.of(REATTRIBUTION_RETENTION));
  }

  public static Topology build(ProcessorConfig config, MeterRegistry registry) {
    ProcessorMetrics metrics = new ProcessorMetrics(registry);
    Topics topics = config.topics();
    StreamsBuilder builder = new StreamsBuilder();
    // Written at each commit: a busy target's allow-list changes with every new peer (see the
    // store).
    builder.addStateStore(
        changelogged(
            config,
            WrittenAtCommitStore.builder(
                cached(
                    config,
                    Stores.keyValueStoreBuilder(
                        store(config, StoreNames.LEARNED),
                        Serdes.String(),
                        new JsonSerde<>(LearnedAllowList.class))))));
    builder.addStateStore(
        changelogged(
            config,
            cached(
                config,
                Stores.keyValueStoreBuilder(
                    store(config, StoreNames.EVIDENCE), Serdes.String(), PortStatsCodec.serde()))));
    builder.addStateStore(
        changelogged(
            config,
            cached(
                config,
                Stores.keyValueStoreBuilder(
                    store(config, StoreNames.POLICIES),
                    Serdes.String(),
                    new JsonSerde<>(PolicySnapshot.class)))));
    // A few entries (targets reset in the last minutes of flow time): no cache.
    builder.addStateStore(
        changelogged(
            config,
            Stores.keyValueStoreBuilder(
                store(config, StoreNames.RESET_FENCES), Serdes.String(), Serdes.Long())));
    // Global: monitor mode needs the NetworkPolicies of a target's namespace, wherever they are
    // keyed.
    builder.globalTable(
        topics.nativePolicies().name(),
        Consumed.with(
                Serdes.String(), NativePolicies.lenientSerde(topics.nativePolicies().valueSerde()))
            .withName("native-policies-source"),
        Materialized.<String, NativePolicySnapshot>as(store(config, StoreNames.NATIVE_POLICIES))
            .withKeySerde(Serdes.String())
            .withValueSerde(NativePolicies.lenientSerde(topics.nativePolicies().valueSerde()))
            .withCachingDisabled());
    String deadLetter = topics.deadLetter().name();

    ObservationMapper mapper = new ObservationMapper(config.backend(), metrics);
    Topic<String, Observation> reattribution = reattributionTopic(config);
    KStream<String, Observation> perTarget;
    if (config.combineInterval().isZero()) {
      perTarget =
          decoded(builder, topics.flows(), null, "flows", deadLetter, metrics)
              .filter((key, flow) -> flow != null, Named.as("skip-flow-tombstones"))
              .flatMap((key, flow) -> mapper.observe(flow), Named.as("observe-per-target"))
              .peek((key, observation) -> metrics.observationsCombined(1), Named.as("count-sent"));
    } else {
      // The combiner reads the flow records as bytes (it decodes a record only when it starts a
      // combination) and keeps its buffer in a changelogged store (see ObservationCombiner).
      builder.addStateStore(changelogged(config, PendingCombinations.builder(StoreNames.COMBINER)));
      Map<String, KStream<String, Decoded<Observation>>> combined =
          builder.stream(
                  topics.flows().name(),
                  Consumed.with(Serdes.ByteArray(), Serdes.ByteArray()).withName("read-flows"))
              .process(
                  () ->
                      new ObservationCombiner(
                          topics.flows().name(),
                          Topics.flowRecordSerde(),
                          mapper,
                          metrics,
                          config.combineInterval(),
                          config.combineMaxPending(),
                          config.flowBatches()),
                  Named.as("observe-and-combine-per-target"),
                  StoreNames.COMBINER)
              .split(Named.as("flows-"))
              .branch((key, decoded) -> decoded.isFailed(), Branched.as("unreadable"))
              .defaultBranch(Branched.as("readable"));
      deadLettered(combined.get("flows-unreadable"), "flows", deadLetter);
      perTarget =
          combined.get("flows-readable").mapValues(Decoded::value, Named.as("value-of-flows"));
    }
    // One partition in one process (offline learning): the target's task is this one, nothing to
    // move.
    KStream<String, Observation> atTarget =
        config.observationsShuffled()
            ? perTarget.repartition(
                Repartitioned.<String, Observation>as(OBSERVATIONS)
                    .withKeySerde(Serdes.String())
                    .withValueSerde(reattribution.valueSerde())
                    .withNumberOfPartitions(config.kafka().partitions()))
            : perTarget;
    KStream<String, TargetEvent> observations =
        atTarget.mapValues(TargetEvent.Observed::new, Named.as("observation-event"));

    // Built in this order (policies, control, re-attributions) so the service's topology, its
    // sub-topologies and task ids, stay as they were. Without policies (offline learning: flows are
    // the one input) a deny has nowhere to be re-attributed, and the loop is left out.
    KStream<String, TargetEvent> events = observations;
    if (config.policyInputs()) {
      KStream<String, TargetEvent> policies =
          decoded(builder, topics.policies(), TargetKey::parse, "policies", deadLetter, metrics)
              .mapValues(TargetEvent.PolicyChanged::new, Named.as("policy-event"));
      KStream<String, TargetEvent> control =
          decoded(builder, topics.control(), TargetKey::parse, "control", deadLetter, metrics)
              .filter((key, command) -> command != null, Named.as("skip-control-tombstones"))
              .mapValues(TargetEvent.Command::new, Named.as("control-event"));
      events =
          events
              .merge(policies, Named.as("merge-policies"))
              .merge(control, Named.as("merge-control"));
      // Denies of a target without a policy go on to their fallback target, wherever it is.
      events =
          events.merge(
              decoded(builder, reattribution, TargetKey::parse, "reattributed", deadLetter, metrics)
                  .filter(
                      (key, observation) -> observation != null,
                      Named.as("skip-reattribution-tombstones"))
                  .mapValues(TargetEvent.Observed::new, Named.as("reattributed-event")),
              Named.as("merge-reattributed"));
    }

    Map<String, KStream<String, TargetOutput>> outputs =
        events
            .process(
                () ->
                    new TargetProcessor(
                        config.evidenceFlushInterval(),
                        new AllowListLearner(config.backend(), config.learning()),
                        config.learning(),
                        metrics,
                        config.proposalEmission(),
                        config.proposalInterval(),
                        config.policyInputs()),
                Named.as("targets"),
                StoreNames.LEARNED,
                StoreNames.EVIDENCE,
                StoreNames.POLICIES,
                StoreNames.RESET_FENCES)
            .split(Named.as("output-"))
            .branch((key, out) -> out instanceof TargetOutput.Proposal, Branched.as("proposals"))
            .branch((key, out) -> out instanceof TargetOutput.Violation, Branched.as("violations"))
            .defaultBranch(Branched.as("reattributions"));

    outputs
        .get("output-proposals")
        .mapValues(out -> ((TargetOutput.Proposal) out).snapshot(), Named.as("proposal-value"))
        .to(
            topics.proposals().name(),
            Produced.with(topics.proposals().keySerde(), topics.proposals().valueSerde())
                .withName("write-proposals"));
    outputs
        .get("output-violations")
        .mapValues(out -> ((TargetOutput.Violation) out).observation(), Named.as("violation-value"))
        .to(
            topics.violations().name(),
            Produced.with(topics.violations().keySerde(), topics.violations().valueSerde())
                .withName("write-violations"));
    outputs
        .get("output-reattributions")
        .mapValues(
            out -> ((TargetOutput.Reattribution) out).observation(),
            Named.as("reattribution-value"))
        .to(
            reattribution.name(),
            Produced.with(reattribution.keySerde(), reattribution.valueSerde())
                .withName("write-reattributions"));
    return builder.build();
  }

  /**
   * Behind Kafka Streams' record cache, unless the state ends with the run (offline learning): the
   * in-process driver commits after every record, so the cache would be flushed per record, all
   * cost and no saving.
   */
  private static <T extends StateStore> StoreBuilder<T> cached(
      ProcessorConfig config, StoreBuilder<T> store) {
    return config.storeChangelogs() ? store.withCachingEnabled() : store;
  }

  /** Changelogged unless the configuration says the state ends with the run (offline learning). */
  private static <T extends StateStore> StoreBuilder<T> changelogged(
      ProcessorConfig config, StoreBuilder<T> store) {
    return config.storeChangelogs() ? store : store.withLoggingDisabled();
  }

  private static KeyValueBytesStoreSupplier store(ProcessorConfig config, String name) {
    return config.inMemoryStores()
        ? Stores.inMemoryKeyValueStore(name)
        : Stores.persistentKeyValueStore(name);
  }

  /**
   * Reads a topic as bytes and decodes it; unreadable records go to the dead-letter topic with the
   * reason, readable ones (tombstones as null values) continue.
   */
  private static <V> KStream<String, V> decoded(
      StreamsBuilder builder,
      Topic<String, V> topic,
      Consumer<String> keyCheck,
      String name,
      String deadLetterTopic,
      ProcessorMetrics metrics) {
    Map<String, KStream<String, Decoded<V>>> branches =
        builder.stream(
                topic.name(),
                Consumed.with(Serdes.ByteArray(), Serdes.ByteArray()).withName("read-" + name))
            .process(
                () ->
                    new RecordDecoder<>(
                        topic.name(), topic.valueSerde().deserializer(), keyCheck, metrics),
                Named.as("decode-" + name))
            .split(Named.as(name + "-"))
            .branch((key, decoded) -> decoded.isFailed(), Branched.as("unreadable"))
            .defaultBranch(Branched.as("readable"));
    deadLettered(branches.get(name + "-unreadable"), name, deadLetterTopic);
    return branches.get(name + "-readable").mapValues(Decoded::value, Named.as("value-of-" + name));
  }

  private static <V> void deadLettered(
      KStream<String, Decoded<V>> unreadable, String name, String deadLetterTopic) {
    unreadable
        .process(DeadLetterForwarder<V>::new, Named.as("dead-letter-" + name))
        .to(
            deadLetterTopic,
            Produced.with(Serdes.ByteArray(), Serdes.ByteArray())
                .withName("write-dead-letter-" + name));
  }
}
