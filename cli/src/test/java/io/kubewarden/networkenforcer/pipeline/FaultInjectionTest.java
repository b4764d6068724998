package io.kubewarden.networkenforcer.pipeline;

import static io.kubewarden.networkenforcer.pipeline.FaultStory.MONITORED;
import static io.kubewarden.networkenforcer.pipeline.FaultStory.NS;
import static io.kubewarden.networkenforcer.pipeline.FaultStory.PROBE;
import static io.kubewarden.networkenforcer.pipeline.FaultStory.PROBE_PORT;
import static io.kubewarden.networkenforcer.pipeline.FaultStory.PROTECTED;
import static io.kubewarden.networkenforcer.pipeline.FaultStory.flow;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.crd.PolicySnapshot;
import io.kubewarden.networkenforcer.common.crd.ViolationRecord;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.flow.Verdict;
import io.kubewarden.networkenforcer.common.policy.Backend;
import io.kubewarden.networkenforcer.common.policy.Mode;
import io.kubewarden.networkenforcer.common.topics.Topics;
import io.kubewarden.networkenforcer.embedded.EmbeddedKafkaBroker;
import io.kubewarden.networkenforcer.pipeline.FaultStory.Pair;
import io.kubewarden.networkenforcer.pipeline.FaultStory.Script;
import io.kubewarden.networkenforcer.pipeline.FaultStory.Tally;
import io.kubewarden.networkenforcer.processor.config.ProcessorConfig;
import io.kubewarden.networkenforcer.processor.topology.NetworkEnforcerTopology;
import io.kubewarden.networkenforcer.testing.ChartedApiServer;
import io.kubewarden.networkenforcer.testing.LoopbackPorts;
import io.kubewarden.networkenforcer.testing.LoopbackProxy;
import io.kubewarden.networkenforcer.writer.WriterService;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Faults injected into the whole pipeline, figures reported (issue 14). A scripted, seeded stream
 * of flows goes through the real broker (embedded KRaft, restartable on its port and log
 * directory), two stream-processor instances and two writers (one leads) on a real kube-apiserver
 * with the chart's CRDs, admission policies and RBAC. At seeded points of the stream it kills and
 * restarts the leading writer, a processor instance, the broker and the API server (same etcd
 * data), and partitions the leader from the API server. At the end every proposal holds exactly the
 * allow-list the script taught, every policy's {@code violationCount} equals the violations the
 * script sent, no native object exists twice and the dead-letter topic holds exactly the one record
 * the script made unreadable.
 *
 * <p>Reproduce a run with {@code -Dfaults.seed=S}; a longer session with {@code -Dfaults.count=F
 * -Dfaults.flows=N -Dfaults.violations=M} (see the cli README).
 */
class FaultInjectionTest {
  private static final String RELEASE = ChartedApiServer.KUBERNETES;
  private static final Duration WAIT = Duration.ofSeconds(120);
  private static final long SEED = Long.getLong("faults.seed", new Random().nextLong());
  private static final int FAULTS = Integer.getInteger("faults.count", 5);
  private static final int FLOWS = Integer.getInteger("faults.flows", 80);
  private static final int VIOLATIONS = Integer.getInteger("faults.violations", 30);

  private static EmbeddedKafkaBroker broker;
  private static ChartedApiServer cluster;
  private static FaultStory story;

  @BeforeAll
  static void start(@TempDir Path brokerDir) {
    System.out.printf(
        "faults.seed=%d faults.count=%d faults.flows=%d faults.violations=%d%n",
        SEED, FAULTS, FLOWS, VIOLATIONS);
    // A fixed port and data directory so the broker can be restarted where clients expect it.
    broker =
        EmbeddedKafkaBroker.builder().dataDir(brokerDir).port(LoopbackPorts.free()).build().start();
    cluster = ChartedApiServer.start(NS);
    story = new FaultStory(cluster.admin(), WAIT);
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
    if (broker != null) {
      broker.close();
    }
  }

  @Test
  void nothingLostNothingDoubledUnderFaults(@TempDir Path stateDir) throws Exception {
    String prefix = "faults.";
    // A killed instance leaves no group: its partitions move after the session timeout, so keep it
    // short.
    KafkaSettings kafka =
        new KafkaSettings(
            broker.bootstrapServers(),
            prefix,
            1,
            (short) 1,
            Map.of(
                ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG,
                "6000",
                ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG,
                "1000"));
    Topics topics = kafka.topics();
    Random random = new Random(SEED);
    Script script = Script.generate(random, FLOWS, VIOLATIONS);
    List<Fault> faults =
        Fault.schedule(random, FAULTS, script.learning.size(), script.enforcement.size());
    System.out.println("faults scheduled: " + faults);
    story.deployWorkloads();
    createTopics(kafka);

    ProcessorConfig.Builder processorConfig =
        ProcessorConfig.builder(kafka)
            .applicationId("faults-processor")
            .provider(Provider.calico)
            .backend(Backend.kubernetes)
            .evidenceFlushInterval(Duration.ofMillis(500))
            .commitInterval(Duration.ofMillis(200));
    Services services = new Services(kafka, processorConfig, stateDir);
    FaultInjector injector = new FaultInjector(services);
    try (services;
        Flows flows = new Flows(topics)) {
      services.startAll();

      // One unreadable record: the only one that belongs in the dead-letter topic.
      flows.sendRaw("not a flow record".getBytes(StandardCharsets.UTF_8));

      // Phase 1: learning, with faults.
      send(flows, script.learning, faults, 0, injector);
      story.awaitLearned(script);

      // Promote web to monitor and api to protect; once the processor knows them (the probe
      // policy, published after them on the one partition, counts a violation) enforcement starts.
      story.promote(MONITORED, Mode.monitor);
      story.promote(PROTECTED, Mode.protect);
      awaitPublished(
          kafka,
          Set.of("deployment-" + MONITORED + "-ingress", "deployment-" + PROTECTED + "-ingress"));
      story.promote(PROBE, Mode.monitor);
      awaitPublished(kafka, Set.of("deployment-" + PROBE + "-ingress"));
      await("processor knows the policies")
          .atMost(WAIT)
          .pollInterval(Duration.ofSeconds(1))
          .until(
              () -> {
                flows.send(flow("x1", PROBE, PROBE_PORT, Verdict.DRY_RUN_DENIED));
                return story.violationCount(PROBE) > 0;
              });

      // Phase 2: enforcement (allowed and violating flows), with faults.
      send(flows, script.enforcement, faults, script.learning.size(), injector);

      // Converged: every proposal and count as scripted, then the writer has committed every
      // violation record (so nothing it read is still to be merged).
      Map<String, Long> expectedCounts = script.expectedViolations();
      // On a timeout, say where the proposals topic stands (processor or writer?).
      story.awaitConverged(
          script,
          () ->
              System.out.println(
                  "proposals topic, last record per key: " + lastProposalRecords(kafka)));
      awaitWriterCommittedEverything(kafka);

      Map<String, List<Pair>> proposals = story.allowLists();
      Map<String, Long> counts = story.actualCounts();
      List<String> duplicateNatives = duplicateNativeObjects();
      List<byte[]> deadLetters = deadLetters(kafka);
      Tally tally = Tally.of(script, counts, proposals);
      int lost = tally.lost();
      int doubled = tally.doubled() + duplicateNatives.size() + Math.max(0, deadLetters.size() - 1);
      System.out.printf(
          "faults injected: %d, recovered: %d, flows: %d, lost: %d, doubled: %d%n",
          injector.injected.get(), injector.recovered.get(), script.size(), lost, doubled);

      if (!proposals.equals(script.expectedFinalProposals())) {
        // Converged once, changed since: say whether the proposals topic (the processor) or the
        // cluster (the writer) holds the older allow-list.
        System.out.println(
            "proposals changed after converging; proposals topic, last record per key: "
                + lastProposalRecords(kafka));
      }
      assertThat(counts)
          .as("violationCount per policy, exactly as scripted")
          .isEqualTo(expectedCounts);
      assertThat(proposals)
          .as("every proposal complete, nothing extra")
          .isEqualTo(script.expectedFinalProposals());
      assertThat(duplicateNatives).as("native objects rendered twice").isEmpty();
      assertThat(networkPolicies())
          .as("one NetworkPolicy, for the protected policy only")
          .containsExactly("deployment-" + PROTECTED + "-ingress");
      for (String target : List.of(MONITORED, PROTECTED)) {
        List<Long> ids =
            story.policy("deployment-" + target + "-ingress").getStatus().getViolations().stream()
                .map(ViolationRecord::getId)
                .toList();
        assertThat(ids).as("violation record ids of " + target).doesNotHaveDuplicates();
      }
      assertThat(deadLetters)
          .as("dead-letter holds the one unreadable record")
          .singleElement()
          .satisfies(
              v ->
                  assertThat(new String(v, StandardCharsets.UTF_8)).isEqualTo("not a flow record"));
      assertThat(lost).isZero();
      assertThat(doubled).isZero();
      assertThat(injector.recovered.get()).isEqualTo(injector.injected.get()).isEqualTo(FAULTS);
    }
  }

  /**
   * Sends the flows, injecting the faults scheduled at their positions (offset = index of the
   * first).
   */
  private static void send(
      Flows flows, List<FlowRecord> records, List<Fault> faults, int offset, FaultInjector injector)
      throws Exception {
    for (int i = 0; i < records.size(); i++) {
      for (Fault fault : faults) {
        if (fault.position() == offset + i) {
          injector.inject(fault.kind());
        }
      }
      flows.send(records.get(i));
    }
  }

  // ---- the script ----

  // ---- faults ----

  enum FaultKind {
    WRITER_LEADER_KILL,
    PROCESSOR_KILL,
    BROKER_RESTART,
    API_SERVER_RESTART,
    LEADER_PARTITION
  }

  /** A fault injected before the flow at that position of the script. */
  record Fault(FaultKind kind, int position) {
    /** Every kind once before any repeats, in seeded order, at seeded positions of either phase. */
    static List<Fault> schedule(Random random, int count, int learning, int enforcement) {
      List<FaultKind> kinds = new ArrayList<>();
      while (kinds.size() < count) {
        List<FaultKind> round = new ArrayList<>(List.of(FaultKind.values()));
        Collections.shuffle(round, random);
        kinds.addAll(round);
      }
      List<Fault> faults = new ArrayList<>();
      int total = learning + enforcement;
      for (int i = 0; i < count; i++) {
        faults.add(new Fault(kinds.get(i), random.nextInt(Math.max(1, total))));
      }
      faults.sort((a, b) -> Integer.compare(a.position(), b.position()));
      return faults;
    }
  }

  /** Injects one fault and waits until the pipeline has recovered from it. */
  static final class FaultInjector {
    final AtomicInteger injected = new AtomicInteger();
    final AtomicInteger recovered = new AtomicInteger();
    private final Services services;

    FaultInjector(Services services) {
      this.services = services;
    }

    void inject(FaultKind kind) throws Exception {
      Instant started = Instant.now();
      injected.incrementAndGet();
      switch (kind) {
        case WRITER_LEADER_KILL -> {
          Writer leader = services.awaitLeader();
          services.writers.remove(leader);
          leader.kill();
          services.writers.add(services.newWriter());
          services.awaitLeader();
        }
        case PROCESSOR_KILL -> {
          int index = services.random.nextInt(services.processors.size());
          services.processors.remove(index).kill();
          services.processors.add(services.newProcessor());
          await("processors running")
              .atMost(WAIT)
              .until(
                  () ->
                      services.processors.stream()
                          .allMatch(p -> p.streams.state() == KafkaStreams.State.RUNNING));
        }
        case BROKER_RESTART -> {
          broker.close();
          restartBroker();
          await("processors running after the broker restart")
              .atMost(WAIT)
              .until(
                  () ->
                      services.processors.stream()
                          .allMatch(p -> p.streams.state() == KafkaStreams.State.RUNNING));
        }
        case API_SERVER_RESTART -> {
          cluster.api().restartApiServer();
          services.awaitLeader();
        }
        case LEADER_PARTITION -> {
          Writer leader = services.awaitLeader();
          leader.proxy.partition();
          await("the partitioned leader steps down")
              .atMost(WAIT)
              .until(() -> !leader.service.isLeader());
          Writer next = services.awaitLeader();
          assertThat(next).isNotSameAs(leader);
          leader.proxy.heal();
        }
      }
      recovered.incrementAndGet();
      System.out.printf(
          "fault %s injected and recovered in %d ms%n",
          kind, Duration.between(started, Instant.now()).toMillis());
    }

    private static void restartBroker() {
      // The port was just released; a socket in TIME_WAIT can delay the bind briefly.
      RuntimeException last = null;
      for (int attempt = 0; attempt < 20; attempt++) {
        try {
          broker.start();
          return;
        } catch (RuntimeException e) {
          last = e;
          sleep(Duration.ofMillis(500));
        }
      }
      throw last;
    }
  }

  // ---- the services ----

  /** Two processor instances (one partition: one works, one stands by) and two writers. */
  static final class Services implements AutoCloseable {
    final List<Processor> processors = new ArrayList<>();
    final List<Writer> writers = new ArrayList<>();
    final Random random = new Random(SEED ^ 0x5eed);
    private final KafkaSettings kafka;
    private final ProcessorConfig.Builder processorConfig;
    private final Path stateDir;
    private int instances;

    Services(KafkaSettings kafka, ProcessorConfig.Builder processorConfig, Path stateDir) {
      this.kafka = kafka;
      this.processorConfig = processorConfig;
      this.stateDir = stateDir;
    }

    void startAll() throws Exception {
      processors.add(newProcessor());
      processors.add(newProcessor());
      writers.add(newWriter());
      writers.add(newWriter());
      await("processors running")
          .atMost(WAIT)
          .until(
              () ->
                  processors.stream()
                      .allMatch(p -> p.streams.state() == KafkaStreams.State.RUNNING));
      awaitLeader();
    }

    Processor newProcessor() throws IOException {
      Path dir = Files.createDirectories(stateDir.resolve("streams-" + instances++));
      return new Processor(processorConfig.stateDir(dir).build().validate());
    }

    Writer newWriter() {
      return new Writer(kafka, RELEASE + "-writer-" + instances++);
    }

    Writer awaitLeader() {
      return await("a writer leads")
          .atMost(WAIT)
          .pollInterval(Duration.ofMillis(100))
          .until(
              () -> writers.stream().filter(w -> w.service.isLeader()).findFirst().orElse(null),
              w -> w != null);
    }

    @Override
    public void close() {
      writers.forEach(Writer::close);
      processors.forEach(Processor::close);
    }
  }

  /** The processor's topology as the processor service runs it. */
  static final class Processor implements AutoCloseable {
    final KafkaStreams streams;

    Processor(ProcessorConfig config) {
      streams =
          new KafkaStreams(
              NetworkEnforcerTopology.build(config, new SimpleMeterRegistry()),
              config.streamsProperties());
      streams.start();
    }

    /** Gone without a goodbye: no wait for the shutdown, a fresh instance takes its place. */
    void kill() {
      streams.close(Duration.ZERO);
    }

    @Override
    public void close() {
      streams.close(Duration.ofSeconds(30));
    }
  }

  /** A writer as the chart's service account, reaching the API server through its own proxy. */
  static final class Writer implements AutoCloseable {
    final LoopbackProxy proxy;
    final KubernetesClient client;
    final WriterService service;

    Writer(KafkaSettings kafka, String identity) {
      proxy = LoopbackProxy.to(cluster.api().url());
      client = cluster.writerClientVia(proxy, RELEASE, config -> config);
      service = TestWriters.start(client, kafka, RELEASE, identity);
    }

    /** A crash: the API server is gone for it first, so it cannot hand the lease over. */
    void kill() {
      proxy.cut();
      client.close();
      service.close();
    }

    @Override
    public void close() {
      service.close();
      client.close();
      proxy.close();
    }
  }

  /** Sends flow records to the flows topic, as the ingest service does (idempotent, acks=all). */
  static final class Flows implements AutoCloseable {
    private final Topics topics;
    private final KafkaProducer<String, FlowRecord> producer;
    private final KafkaProducer<byte[], byte[]> raw;

    Flows(Topics topics) {
      this.topics = topics;
      Properties props = new Properties();
      props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
      props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
      props.put(ProducerConfig.ACKS_CONFIG, "all");
      producer =
          new KafkaProducer<>(
              props,
              topics.flows().keySerde().serializer(),
              topics.flows().valueSerde().serializer());
      raw = new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
    }

    void send(FlowRecord flow) throws Exception {
      producer.send(new ProducerRecord<>(topics.flows().name(), flow.partitionKey(), flow)).get();
    }

    void sendRaw(byte[] value) throws Exception {
      raw.send(new ProducerRecord<>(topics.flows().name(), value)).get();
    }

    @Override
    public void close() {
      producer.close();
      raw.close();
    }
  }

  // ---- observations of the end state ----

  /** NetworkPolicies that share an owning policy with another one. */
  private static List<String> duplicateNativeObjects() {
    Map<String, List<String>> byOwner = new HashMap<>();
    for (NetworkPolicy np :
        admin().network().v1().networkPolicies().inNamespace(NS).list().getItems()) {
      for (OwnerReference ref : np.getMetadata().getOwnerReferences()) {
        byOwner
            .computeIfAbsent(ref.getUid(), k -> new ArrayList<>())
            .add(np.getMetadata().getName());
      }
    }
    return byOwner.values().stream()
        .filter(names -> names.size() > 1)
        .flatMap(List::stream)
        .toList();
  }

  private static List<String> networkPolicies() {
    return admin().network().v1().networkPolicies().inNamespace(NS).list().getItems().stream()
        .map(np -> np.getMetadata().getName())
        .sorted()
        .toList();
  }

  /** The last committed record of each proposal on the proposals topic, cut to 600 characters. */
  private static Map<String, String> lastProposalRecords(KafkaSettings kafka) {
    Map<String, String> last = new TreeMap<>();
    for (ConsumerRecord<byte[], byte[]> r : committedRecords(kafka.topics().proposals().name())) {
      String v = r.value() == null ? "null" : new String(r.value(), StandardCharsets.UTF_8);
      last.put(
          new String(r.key(), StandardCharsets.UTF_8), v.length() > 600 ? v.substring(0, 600) : v);
    }
    return last;
  }

  /**
   * The committed records of the dead-letter topic (aborted transactions of killed instances
   * excluded).
   */
  private static List<byte[]> deadLetters(KafkaSettings kafka) {
    return committedRecords(kafka.topics().deadLetter().name()).stream()
        .map(ConsumerRecord::value)
        .toList();
  }

  /**
   * The committed records of a one-partition topic, aborted transactions of killed instances
   * excluded.
   */
  private static List<ConsumerRecord<byte[], byte[]>> committedRecords(String topic) {
    List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(
            readCommitted(), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      TopicPartition partition = new TopicPartition(topic, 0);
      consumer.assign(List.of(partition));
      consumer.seekToBeginning(List.of(partition));
      long end = consumer.endOffsets(List.of(partition)).get(partition);
      while (consumer.position(partition) < end) {
        consumer.poll(Duration.ofMillis(200)).forEach(records::add);
      }
    }
    return records;
  }

  /** Waits until those policies are on the policies topic, as the writer publishes them. */
  private static void awaitPublished(KafkaSettings kafka, Set<String> names) {
    Set<String> seen = new HashSet<>();
    Topics topics = kafka.topics();
    try (KafkaConsumer<String, PolicySnapshot> consumer =
        new KafkaConsumer<>(
            readCommitted(),
            topics.policies().keySerde().deserializer(),
            topics.policies().valueSerde().deserializer())) {
      TopicPartition partition = new TopicPartition(topics.policies().name(), 0);
      consumer.assign(List.of(partition));
      consumer.seekToBeginning(List.of(partition));
      await("published " + names)
          .atMost(WAIT)
          .until(
              () -> {
                for (ConsumerRecord<String, PolicySnapshot> r :
                    consumer.poll(Duration.ofMillis(200))) {
                  if (r.value() != null) {
                    seen.add(r.value().name());
                  }
                }
                return seen.containsAll(names);
              });
    }
  }

  /** Waits until the writers' group has committed past every record of the violations topic. */
  private static void awaitWriterCommittedEverything(KafkaSettings kafka) {
    TopicPartition violations = new TopicPartition(kafka.topics().violations().name(), 0);
    try (Admin admin = Admin.create(kafka.clientConfig())) {
      await("writer committed every violation")
          .atMost(WAIT)
          .pollInterval(Duration.ofMillis(500))
          .until(
              () -> {
                long end =
                    admin
                        .listOffsets(Map.of(violations, OffsetSpec.latest()))
                        .partitionResult(violations)
                        .get()
                        .offset();
                OffsetAndMetadata committed =
                    admin
                        .listConsumerGroupOffsets(kafka.topicPrefix() + "writer-violations")
                        .partitionsToOffsetAndMetadata()
                        .get()
                        .get(violations);
                // The last entry is the processor's commit marker, which a consumer may or may not
                // count.
                return committed != null && committed.offset() >= end - 1;
              });
    }
  }

  private static Properties readCommitted() {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    return p;
  }

  // ---- setup helpers ----

  private static void createTopics(KafkaSettings kafka) throws Exception {
    ProcessorConfig config =
        ProcessorConfig.builder(kafka)
            .applicationId("faults-processor")
            .provider(Provider.calico)
            .backend(Backend.kubernetes)
            .build()
            .validate();
    try (Admin admin = Admin.create(kafka.clientConfig())) {
      ProcessorTopics.create(admin, config, 1);
    }
  }

  private static KubernetesClient admin() {
    return cluster.admin();
  }

  private static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
