package io.kubewarden.networkenforcer.pipeline;

import static io.kubewarden.networkenforcer.pipeline.FaultStory.MONITORED;
import static io.kubewarden.networkenforcer.pipeline.FaultStory.NS;
import static io.kubewarden.networkenforcer.pipeline.FaultStory.PROBE;
import static io.kubewarden.networkenforcer.pipeline.FaultStory.PROBE_PORT;
import static io.kubewarden.networkenforcer.pipeline.FaultStory.PROTECTED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.Config;
import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.flow.Verdict;
import io.kubewarden.networkenforcer.common.policy.Backend;
import io.kubewarden.networkenforcer.common.policy.Mode;
import io.kubewarden.networkenforcer.common.topics.Topics;
import io.kubewarden.networkenforcer.pipeline.FaultStory.Pair;
import io.kubewarden.networkenforcer.pipeline.FaultStory.Script;
import io.kubewarden.networkenforcer.pipeline.FaultStory.Tally;
import io.kubewarden.networkenforcer.pipeline.crash.ApiFault;
import io.kubewarden.networkenforcer.pipeline.crash.ApiFaultProxy;
import io.kubewarden.networkenforcer.pipeline.crash.BrokerCluster;
import io.kubewarden.networkenforcer.pipeline.crash.ChildJvm;
import io.kubewarden.networkenforcer.pipeline.crash.CollectedEvents;
import io.kubewarden.networkenforcer.pipeline.crash.OtelCollector;
import io.kubewarden.networkenforcer.processor.config.ProcessorConfig;
import io.kubewarden.networkenforcer.testing.ChartedApiServer;
import io.kubewarden.networkenforcer.writer.telemetry.ViolationEvents;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real crashes (issue 34, goal 1). Three KRaft brokers (topics with 4 partitions, replication
 * factor 3, {@code min.insync.replicas} 2), three processors (one standby replica each,
 * exactly-once) and two writers (one leads) run as processes of their own and are killed with
 * SIGKILL at seeded points of the scripted flow stream of {@link FaultStory}: a processor inside an
 * open transaction, a processor while the group rebalances, the leading writer, a broker. A proxy
 * in front of each broker hangs every connection (no byte forwarded, none closed) for longer than
 * the processors' session and transaction timeouts; a proxy in front of the real kube-apiserver
 * answers writer requests with 409, 429 (Retry-After), 500, 504 or late. Counted at every sink:
 * flows sent against committed flows in the topic, the proposals' allow-lists, each policy's {@code
 * violationCount}, and the writers' OpenTelemetry events at a real OpenTelemetry collector (OTLP
 * gRPC with TLS) by their {@code log.record.uid}.
 *
 * <p>{@code -Dcrash.seed=S} reproduces a run; {@code -Dcrash.rounds=R -Dcrash.flows=N
 * -Dcrash.violations=M} make it longer (the cli README).
 */
class CrashFaultTest {
  private static final long SEED = Long.getLong("crash.seed", new Random().nextLong());

  /** Each round injects every kind of fault once, in seeded order. */
  private static final int ROUNDS = Integer.getInteger("crash.rounds", 1);

  private static final int FLOWS = Integer.getInteger("crash.flows", 80);
  private static final int VIOLATIONS = Integer.getInteger("crash.violations", 30);
  private static final Duration WAIT = Duration.ofSeconds(150);
  private static final String RELEASE = ChartedApiServer.KUBERNETES;
  private static final String APP_ID = "crash-processor";
  private static final String PREFIX = "crash.";
  private static final int PARTITIONS = 4;
  private static final int PROCESSORS = 3;
  private static final short REPLICATION = BrokerCluster.NODES;

  /** Longer than the processors' session (6 s) and transaction (10 s) timeouts. */
  private static final Duration HANG = Duration.ofSeconds(12);

  enum Kind {
    PROCESSOR_KILL_IN_TRANSACTION,
    PROCESSOR_KILL_IN_REBALANCE,
    WRITER_LEADER_KILL,
    BROKER_KILL,
    BROKER_HANG,
    API_409,
    API_429,
    API_500,
    API_504,
    API_SLOW
  }

  @TempDir static Path dir;

  /** The services' output, kept after the run (target/crash-faults/seed-S). */
  static Path logs;

  static ChartedApiServer cluster;
  static FaultStory story;
  static BrokerCluster brokers;
  static ApiFaultProxy apiProxy;
  static OtelCollector collector;
  static String writerToken;

  @BeforeAll
  static void start() throws Exception {
    System.out.printf(
        "crash.seed=%d crash.rounds=%d crash.flows=%d crash.violations=%d%n",
        SEED, ROUNDS, FLOWS, VIOLATIONS);
    logs = Files.createDirectories(Path.of("target", "crash-faults", "seed-" + SEED));
    cluster = ChartedApiServer.start(NS);
    story = new FaultStory(cluster.admin(), WAIT);
    brokers = BrokerCluster.start(dir.resolve("brokers"), logs, WAIT);
    Path saKubeconfig =
        cluster
            .api()
            .serviceAccountKubeconfig(
                ChartedApiServer.RELEASE_NAMESPACE, RELEASE + "-network-enforcer-writer");
    Config sa = Config.fromKubeconfig(saKubeconfig.toFile());
    writerToken = sa.getAutoOAuthToken() != null ? sa.getAutoOAuthToken() : sa.getOauthToken();
    apiProxy =
        ApiFaultProxy.to(cluster.api().url(), ApiFaultProxy.decodeBase64(sa.getCaCertData()));
    collector = OtelCollector.start(dir, logs, WAIT);
  }

  @AfterAll
  static void stop() {
    Stream.of(collector, apiProxy, brokers, cluster)
        .filter(c -> c != null)
        .forEach(
            c -> {
              try {
                c.close();
              } catch (Exception e) {
                System.out.println("closing " + c + ": " + e);
              }
            });
  }

  static String bootstrap() {
    return brokers.bootstrap();
  }

  static Admin admin() {
    return brokers.admin();
  }

  @Test
  void nothingLostNothingDoubledUnderCrashes() throws Exception {
    KafkaSettings kafka = new KafkaSettings(bootstrap(), PREFIX, PARTITIONS, REPLICATION, Map.of());
    Topics topics = kafka.topics();
    Random random = new Random(SEED);
    Script script = Script.generate(random, FLOWS, VIOLATIONS);
    List<Kind> kinds = new ArrayList<>();
    for (int r = 0; r < ROUNDS; r++) {
      List<Kind> round = new ArrayList<>(List.of(Kind.values()));
      Collections.shuffle(round, random);
      kinds.addAll(round);
    }
    // Seeded positions in the stream, sorted; the kinds keep their seeded order.
    List<Integer> positions = new ArrayList<>();
    for (int i = 0; i < kinds.size(); i++) {
      positions.add(random.nextInt(script.size()));
    }
    Collections.sort(positions);
    System.out.println("faults scheduled: " + kinds + " at flows " + positions);
    story.deployWorkloads();
    createTopics(kafka);

    Services services = new Services();
    Injector injector = new Injector(services, random);
    ExecutorService faults = Executors.newSingleThreadExecutor();
    List<Future<?>> pending = new ArrayList<>();
    try (services;
        Flows flows = new Flows(topics)) {
      services.start();
      List<FlowRecord> all = new ArrayList<>(script.learning);
      int learning = all.size();
      int next = 0;
      for (int i = 0; i < script.size(); i++) {
        if (i == learning) {
          // Between the phases: the processor learned, the targets are promoted and known.
          awaitAll(pending);
          awaitLearnedAndPromote(kafka, script, flows);
          all.addAll(script.enforcement);
        }
        while (next < kinds.size() && positions.get(next) == i) {
          Kind kind = kinds.get(next++);
          // Faults run beside the stream (one at a time), so a transaction is open when a processor
          // dies.
          pending.add(faults.submit(() -> injector.inject(kind)));
        }
        flows.send(all.get(i));
      }
      awaitAll(pending);

      Map<String, Long> expectedCounts = script.expectedViolations();
      story.awaitConverged(script, services::printTails);
      // Events leave in batches after the status; give the last batch its time.
      await("every violation's event at the collector")
          .atMost(WAIT)
          .pollInterval(Duration.ofSeconds(1))
          .until(
              () ->
                  eventsSeen(expectedCounts)
                      >= expectedCounts.values().stream().mapToLong(Long::longValue).sum());

      await("the writers got past every API server fault")
          .atMost(WAIT)
          .pollInterval(Duration.ofMillis(500))
          .until(() -> apiProxy.pendingEmpty() && apiProxy.recovered() == apiProxy.injectedCount());
      long flowsInTopic = committedCount(topics.flows().name());
      Map<String, Long> counts = story.actualCounts();
      Map<String, List<Pair>> proposals = story.allowLists();
      Tally tally = Tally.of(script, counts, proposals);
      int lost = (int) Math.max(0, flows.sent - flowsInTopic) + tally.lost();
      int doubled = (int) Math.max(0, flowsInTopic - flows.sent) + tally.doubled();
      // At the collector, by log.record.uid: an id received twice is an event doubled.
      CollectedEvents events = collector.events();
      Map<String, Long> eventIds = new TreeMap<>();
      Map<String, Long> eventRecords = new TreeMap<>();
      long eventsLost = 0;
      for (var expected : expectedCounts.entrySet()) {
        long distinct = events.distinct(ViolationEvents.OBSERVED, expected.getKey());
        eventIds.put(expected.getKey(), distinct);
        eventRecords.put(
            expected.getKey(), events.records(ViolationEvents.OBSERVED, expected.getKey()));
        eventsLost += Math.max(0, expected.getValue() - distinct);
      }
      // Crash window (1) of k8s-writer/README.md: a leader SIGKILLed after exporting an event and
      // before the status write holding its record; the next leader sends it again, same id. A
      // repeat is that window only when every copy but the last came from a writer killed since.
      Set<String> killedWriters = services.killedWriters();
      Map<String, List<String>> repeats = events.repeatedUidSenders(ViolationEvents.OBSERVED);
      Map<String, List<String>> unexplained = new TreeMap<>(repeats);
      unexplained
          .values()
          .removeIf(
              senders ->
                  senders.stream().distinct().count() == senders.size()
                      && killedWriters.containsAll(senders.subList(0, senders.size() - 1)));
      long eventsResent = repeats.size() - unexplained.size();
      long extraCopies =
          repeats.entrySet().stream()
              .filter(e -> !unexplained.containsKey(e.getKey()))
              .mapToLong(e -> e.getValue().size() - 1)
              .sum();
      long eventsDoubled = unexplained.size();
      String topicShape = topicShape(topics.flows().name());
      int injected = injector.injected.get() + apiProxy.injectedCount();
      int recovered = injector.recovered.get() + apiProxy.recovered();
      System.out.println("faults by kind: " + injector.byKind + " api " + apiProxy.injected);
      System.out.printf(
          "faults injected: %d, recovered: %d, flows: %d, lost: %d, doubled: %d, events doubled: %d%n",
          injected, recovered, flows.sent, lost, doubled, eventsDoubled);
      System.out.printf(
          "flows in topic: %d (%s), events at the collector: %d of %d expected, events lost: %d%n",
          flowsInTopic,
          topicShape,
          eventRecords.values().stream().mapToLong(Long::longValue).sum(),
          expectedCounts.values().stream().mapToLong(Long::longValue).sum(),
          eventsLost);
      System.out.printf(
          "event ids sent again by the next leader after a writer's SIGKILL (crash window 1): %d%s%n",
          eventsResent,
          unexplained.isEmpty() ? "" : "; repeats not explained by it: " + unexplained);

      assertThat(flowsInTopic).as("committed flows in the topic").isEqualTo(flows.sent);
      assertThat(counts).as("violationCount per policy").isEqualTo(expectedCounts);
      assertThat(proposals)
          .as("every proposal complete")
          .isEqualTo(script.expectedFinalProposals());
      assertThat(topicShape)
          .isEqualTo(PARTITIONS + " partitions, replication factor 3, min.insync.replicas 2");
      assertThat(events.withoutUid(ViolationEvents.OBSERVED)).as("events without an id").isZero();
      assertThat(eventIds).as("distinct event ids per policy").isEqualTo(expectedCounts);
      assertThat(eventRecords.values().stream().mapToLong(Long::longValue).sum())
          .as("events at the collector: one per violation, and the copies of crash window 1")
          .isEqualTo(
              expectedCounts.values().stream().mapToLong(Long::longValue).sum() + extraCopies);
      assertThat(unexplained)
          .as("event ids received more than once, not by crash window 1")
          .isEmpty();
      assertThat(eventsLost).isZero();
      assertThat(lost).isZero();
      assertThat(doubled).isZero();
      assertThat(injector.byKind.keySet())
          .as("every process and network fault")
          .containsExactlyInAnyOrder(
              Kind.PROCESSOR_KILL_IN_TRANSACTION,
              Kind.PROCESSOR_KILL_IN_REBALANCE,
              Kind.WRITER_LEADER_KILL,
              Kind.BROKER_KILL,
              Kind.BROKER_HANG);
      assertThat(apiProxy.injected.keySet())
          .as("every API server answer")
          .containsExactlyInAnyOrder(ApiFault.values());
      assertThat(recovered).isEqualTo(injected);
    } finally {
      faults.shutdownNow();
    }
  }

  private static void awaitAll(List<Future<?>> futures) throws Exception {
    for (Future<?> f : futures) {
      f.get(5, TimeUnit.MINUTES);
    }
    futures.clear();
  }

  /**
   * The learned proposals in the cluster; web promoted to monitor, api to protect; every instance
   * knows.
   */
  private void awaitLearnedAndPromote(KafkaSettings kafka, Script script, Flows flows)
      throws Exception {
    story.awaitLearned(script);
    story.promote(MONITORED, Mode.monitor);
    story.promote(PROTECTED, Mode.protect);
    story.promote(PROBE, Mode.monitor);
    // Probes from every intruder (each a partition key) until each is counted as a violation of the
    // probe policy, which the writer published after the other two.
    for (String intruder : FaultStory.INTRUDERS) {
      long before = story.violationCount(PROBE);
      await("processors know the policies for " + intruder)
          .atMost(WAIT)
          .pollInterval(Duration.ofSeconds(1))
          .until(
              () -> {
                flows.send(FaultStory.flow(intruder, PROBE, PROBE_PORT, Verdict.DRY_RUN_DENIED));
                return story.violationCount(PROBE) > before;
              });
    }
  }

  // ---- faults ----

  /** Injects a process or network fault and waits until the pipeline is whole again. */
  static final class Injector {
    final AtomicInteger injected = new AtomicInteger();
    final AtomicInteger recovered = new AtomicInteger();
    final Map<Kind, Integer> byKind = Collections.synchronizedMap(new EnumMap<>(Kind.class));
    private final Services services;
    private final Random random;

    Injector(Services services, Random random) {
      this.services = services;
      this.random = new Random(random.nextLong());
    }

    Void inject(Kind kind) throws Exception {
      Instant started = Instant.now();
      String detail = "";
      switch (kind) {
        case API_409 -> apiProxy.inject(ApiFault.CONFLICT);
        case API_429 -> apiProxy.inject(ApiFault.TOO_MANY_REQUESTS);
        case API_500 -> apiProxy.inject(ApiFault.INTERNAL_ERROR);
        case API_504 -> apiProxy.inject(ApiFault.GATEWAY_TIMEOUT);
        case API_SLOW -> apiProxy.inject(ApiFault.SLOW);
        case PROCESSOR_KILL_IN_TRANSACTION -> {
          detail = services.killProcessorInTransaction(random);
          countAndRecover(kind);
        }
        case PROCESSOR_KILL_IN_REBALANCE -> {
          detail = services.killProcessorInRebalance(random);
          countAndRecover(kind);
        }
        case WRITER_LEADER_KILL -> {
          detail = services.killLeader();
          countAndRecover(kind);
        }
        case BROKER_KILL -> {
          injected.incrementAndGet();
          byKind.merge(kind, 1, Integer::sum);
          int node = random.nextInt(BrokerCluster.NODES);
          detail = "(node " + (node + 1) + " of " + BrokerCluster.NODES + ")";
          brokers.killAndRestart(node);
          services.awaitProcessorsStable();
          // Whole again: the next broker to die leaves every partition its min.insync.replicas.
          brokers.awaitFullyReplicated();
          recovered.incrementAndGet();
        }
        case BROKER_HANG -> {
          injected.incrementAndGet();
          byKind.merge(kind, 1, Integer::sum);
          brokers.hang();
          Thread.sleep(HANG.toMillis());
          brokers.resume();
          services.awaitProcessorsStable();
          brokers.awaitFullyReplicated();
          recovered.incrementAndGet();
        }
      }
      if (kind.name().startsWith("API_")) {
        return null;
      }
      System.out.printf(
          "fault %s %s, recovered in %d ms%n",
          kind, detail, Duration.between(started, Instant.now()).toMillis());
      return null;
    }

    private void countAndRecover(Kind kind) {
      injected.incrementAndGet();
      byKind.merge(kind, 1, Integer::sum);
      services.awaitProcessorsStable();
      services.awaitLeader();
      recovered.incrementAndGet();
    }
  }

  // ---- the services, each a process ----

  /** Three processors and two writers, each a JVM; replacements take the place of killed ones. */
  static final class Services implements AutoCloseable {
    final List<ChildJvm> processors = Collections.synchronizedList(new ArrayList<>());
    final Map<ChildJvm, Path> stateDirs = Collections.synchronizedMap(new HashMap<>());
    final List<ChildJvm> writers = Collections.synchronizedList(new ArrayList<>());
    final List<ChildJvm> dead = Collections.synchronizedList(new ArrayList<>());

    /** The names of the writers SIGKILLed so far (their events' {@code service.instance.id}). */
    Set<String> killedWriters() {
      synchronized (dead) {
        return dead.stream()
            .map(ChildJvm::name)
            .filter(n -> n.startsWith("writer-"))
            .collect(Collectors.toSet());
      }
    }

    private int instances;

    void start() {
      for (int i = 0; i < PROCESSORS; i++) {
        processors.add(newProcessor());
      }
      writers.add(newWriter());
      writers.add(newWriter());
      awaitProcessorsStable();
      awaitLeader();
    }

    ChildJvm newProcessor() {
      String name = "processor-" + instances++;
      Path state = dir.resolve("state-" + name);
      ChildJvm p =
          ChildJvm.start(
              name,
              logs,
              Map.of(),
              "io.kubewarden.networkenforcer.cli.NetworkEnforcerCommand",
              List.of(
                  "processor",
                  "--kafka-bootstrap-servers",
                  bootstrap(),
                  "--kafka-topic-prefix",
                  PREFIX,
                  "--kafka-partitions",
                  String.valueOf(PARTITIONS),
                  "--kafka-replication-factor",
                  String.valueOf(REPLICATION),
                  "--application-id",
                  APP_ID,
                  "--provider",
                  "calico",
                  "--state-dir",
                  state.toString(),
                  "--num-standby-replicas",
                  "1",
                  "--processing-guarantee",
                  "exactly_once_v2",
                  "--evidence-flush-interval",
                  "500ms",
                  "--commit-interval",
                  "1s",
                  "--management-port",
                  "0",
                  "--probe-port",
                  "0",
                  "--management-auth",
                  "none",
                  // A killed instance leaves no group: its tasks move after the session timeout.
                  "--kafka-property",
                  "session.timeout.ms=6000",
                  "--kafka-property",
                  "heartbeat.interval.ms=1000"));
      stateDirs.put(p, state);
      return p;
    }

    ChildJvm newWriter() {
      String name = "writer-" + instances++;
      Path kubeconfig = apiProxy.kubeconfig(dir.resolve(name + ".kubeconfig"), writerToken);
      return ChildJvm.start(
          name,
          logs,
          Map.of(),
          "io.kubewarden.networkenforcer.cli.NetworkEnforcerCommand",
          List.of(
              "writer",
              "--kafka-bootstrap-servers",
              bootstrap(),
              "--kafka-topic-prefix",
              PREFIX,
              "--kafka-partitions",
              String.valueOf(PARTITIONS),
              "--kafka-replication-factor",
              String.valueOf(REPLICATION),
              "--provider",
              "calico",
              "--kubeconfig",
              kubeconfig.toString(),
              "--pod-name",
              name,
              "--pod-namespace",
              ChartedApiServer.RELEASE_NAMESPACE,
              "--lease-name",
              ChartedApiServer.leaseName(RELEASE),
              "--status-sync-interval",
              "1s",
              "--telemetry-collector-strategy",
              "external",
              "--otel-endpoint",
              collector.endpoint(),
              "--otel-protocol",
              "grpc",
              "--otel-ca-file",
              collector.caFile().toString(),
              "--management-port",
              "0",
              "--probe-port",
              "0",
              "--management-auth",
              "none",
              "--kafka-property",
              "session.timeout.ms=6000",
              "--kafka-property",
              "heartbeat.interval.ms=1000"));
    }

    /** The processors' group is stable with every live instance in it. */
    void awaitProcessorsStable() {
      try (Admin admin = admin()) {
        await("processors' group stable with " + PROCESSORS + " members")
            .atMost(WAIT)
            .pollInterval(Duration.ofMillis(500))
            .ignoreExceptions()
            .until(
                () -> {
                  ConsumerGroupDescription group =
                      admin
                          .describeConsumerGroups(List.of(APP_ID))
                          .all()
                          .get(10, TimeUnit.SECONDS)
                          .get(APP_ID);
                  return group.groupState() == GroupState.STABLE
                      && group.members().size() == PROCESSORS;
                });
      } catch (ConditionTimeoutException e) {
        printTails();
        throw e;
      }
    }

    /** The writer holding the lease, once its holder is a live writer. */
    ChildJvm awaitLeader() {
      try {
        return await("a live writer leads")
            .atMost(WAIT)
            .pollInterval(Duration.ofMillis(300))
            .until(
                () ->
                    leaseHolder()
                        .flatMap(h -> writers.stream().filter(w -> w.name().equals(h)).findFirst())
                        .orElse(null),
                w -> w != null);
      } catch (ConditionTimeoutException e) {
        System.out.println("lease holder: " + leaseHolder());
        printTails();
        throw e;
      }
    }

    String killLeader() {
      ChildJvm leader = awaitLeader();
      leader.kill();
      writers.remove(leader);
      dead.add(leader);
      writers.add(newWriter());
      return leader.name();
    }

    /** Waits for a processor transaction that is open, kills the instance that holds it. */
    String killProcessorInTransaction(Random random) throws Exception {
      try (Admin admin = admin()) {
        ListTransactionsOptions ongoing =
            new ListTransactionsOptions().filterStates(List.of(TransactionState.ONGOING));
        Pattern uuid =
            Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
        Instant deadline = Instant.now().plusSeconds(60);
        while (Instant.now().isBefore(deadline)) {
          Collection<TransactionListing> open;
          try {
            open = admin.listTransactions(ongoing).all().get(10, TimeUnit.SECONDS);
          } catch (ExecutionException | TimeoutException e) {
            // A broker still coming back from an earlier fault cannot answer yet: ask again.
            Thread.sleep(200);
            continue;
          }
          for (TransactionListing t : open) {
            Matcher m = uuid.matcher(t.transactionalId());
            if (!t.transactionalId().startsWith(APP_ID) || !m.find()) {
              continue;
            }
            Optional<ChildJvm> holder = holderOf(m.group());
            if (holder.isPresent()) {
              replaceProcessor(holder.get());
              return "("
                  + holder.get().name()
                  + " in open transaction "
                  + t.transactionalId()
                  + ")";
            }
          }
          Thread.sleep(50);
        }
      }
      // No transaction seen open within a minute: the stream was idle; kill one anyway and say so.
      ChildJvm any = processors.get(random.nextInt(processors.size()));
      replaceProcessor(any);
      return "(" + any.name() + ", no open transaction seen)";
    }

    /** Kills one processor, starts its replacement and kills another while the group rebalances. */
    String killProcessorInRebalance(Random random) throws Exception {
      ChildJvm first = processors.get(random.nextInt(processors.size()));
      replaceProcessor(first);
      try (Admin admin = admin()) {
        Instant deadline = Instant.now().plusSeconds(60);
        while (Instant.now().isBefore(deadline)) {
          ConsumerGroupDescription group =
              admin
                  .describeConsumerGroups(List.of(APP_ID))
                  .all()
                  .get(10, TimeUnit.SECONDS)
                  .get(APP_ID);
          if (group.groupState() == GroupState.PREPARING_REBALANCE
              || group.groupState() == GroupState.COMPLETING_REBALANCE) {
            ChildJvm second = processors.get(random.nextInt(processors.size() - 1));
            replaceProcessor(second);
            return "("
                + first.name()
                + ", then "
                + second.name()
                + " during "
                + group.groupState()
                + ")";
          }
          Thread.sleep(20);
        }
      }
      throw new IllegalStateException("no rebalance seen after killing " + first.name());
    }

    private void replaceProcessor(ChildJvm victim) {
      victim.kill();
      processors.remove(victim);
      dead.add(victim);
      processors.add(newProcessor());
    }

    /** The live processor whose state directory holds that process id. */
    private Optional<ChildJvm> holderOf(String processId) throws Exception {
      synchronized (processors) {
        for (ChildJvm p : processors) {
          Path state = stateDirs.get(p);
          if (!Files.isDirectory(state)) {
            continue;
          }
          try (Stream<Path> files = Files.walk(state, 3)) {
            boolean holds =
                files
                    .filter(
                        f -> f.getFileName().toString().equals("kafka-streams-process-metadata"))
                    .anyMatch(
                        f -> {
                          try {
                            return Files.readString(f).contains(processId);
                          } catch (IOException e) {
                            return false;
                          }
                        });
            if (holds) {
              return Optional.of(p);
            }
          }
        }
      }
      return Optional.empty();
    }

    void printTails() {
      List<ChildJvm> all = new ArrayList<>(processors);
      all.addAll(writers);
      all.addAll(brokers.nodes());
      for (ChildJvm p : all) {
        System.out.println(
            "---- " + p.name() + (p.alive() ? "" : " (dead)") + " ----\n" + p.tail(40));
      }
    }

    @Override
    public void close() {
      writers.forEach(ChildJvm::close);
      processors.forEach(ChildJvm::close);
    }
  }

  private static Optional<String> leaseHolder() {
    Lease lease =
        cluster
            .admin()
            .leases()
            .inNamespace(ChartedApiServer.RELEASE_NAMESPACE)
            .withName(ChartedApiServer.leaseName(RELEASE))
            .get();
    return Optional.ofNullable(lease).map(l -> l.getSpec().getHolderIdentity());
  }

  /** Sends flows as ingest does (idempotent, acks=all), counting those the broker acknowledged. */
  static final class Flows implements AutoCloseable {
    private final Topics topics;
    private final KafkaProducer<String, FlowRecord> producer;
    volatile long sent;

    Flows(Topics topics) {
      this.topics = topics;
      Properties props = new Properties();
      props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
      props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
      props.put(ProducerConfig.ACKS_CONFIG, "all");
      props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "300000");
      producer =
          new KafkaProducer<>(
              props,
              topics.flows().keySerde().serializer(),
              topics.flows().valueSerde().serializer());
    }

    synchronized void send(FlowRecord flow) throws Exception {
      producer.send(new ProducerRecord<>(topics.flows().name(), flow.partitionKey(), flow)).get();
      sent++;
    }

    @Override
    public void close() {
      producer.close();
    }
  }

  // ---- observations ----

  private static long eventsSeen(Map<String, Long> expected) {
    CollectedEvents events = collector.events();
    return expected.keySet().stream()
        .mapToLong(p -> events.distinct(ViolationEvents.OBSERVED, p))
        .sum();
  }

  /** Partitions, replication factor and min.insync.replicas of a topic, as the broker has them. */
  private static String topicShape(String topic) throws Exception {
    try (Admin admin = admin()) {
      TopicDescription d =
          admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
      ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
      org.apache.kafka.clients.admin.Config config =
          admin.describeConfigs(List.of(resource)).all().get(30, TimeUnit.SECONDS).get(resource);
      return d.partitions().size()
          + " partitions, replication factor "
          + d.partitions().get(0).replicas().size()
          + ", min.insync.replicas "
          + config.get(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG).value();
    }
  }

  /** Committed records of every partition of a topic. */
  private static long committedCount(String topic) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    long count = 0;
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> partitions = new ArrayList<>();
      for (int i = 0; i < PARTITIONS; i++) {
        partitions.add(new TopicPartition(topic, i));
      }
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
      Instant deadline = Instant.now().plus(WAIT);
      while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))
          && Instant.now().isBefore(deadline)) {
        count += consumer.poll(Duration.ofMillis(200)).count();
      }
    }
    return count;
  }

  private static void createTopics(KafkaSettings kafka) throws Exception {
    ProcessorConfig config =
        ProcessorConfig.builder(kafka)
            .applicationId(APP_ID)
            .provider(Provider.calico)
            .backend(Backend.kubernetes)
            .build()
            .validate();
    try (Admin admin = admin()) {
      ProcessorTopics.create(admin, config, PARTITIONS, REPLICATION);
    }
  }
}
