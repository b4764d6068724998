package io.kubewarden.networkenforcer.cli.replay;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicySpecBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.kubewarden.networkenforcer.cli.CliRun;
import io.kubewarden.networkenforcer.cli.learn.ProposalTopicReader;
import io.kubewarden.networkenforcer.cli.simulate.SimulateCommand;
import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.crd.PolicySnapshot;
import io.kubewarden.networkenforcer.common.crd.TargetRef;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicySpec;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.common.flow.Verdict;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.common.loss.DataPlaneLoss;
import io.kubewarden.networkenforcer.common.policy.Backend;
import io.kubewarden.networkenforcer.common.policy.Direction;
import io.kubewarden.networkenforcer.common.policy.Labels;
import io.kubewarden.networkenforcer.common.policy.Mode;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.common.topics.Topic;
import io.kubewarden.networkenforcer.common.workload.WorkloadKind;
import io.kubewarden.networkenforcer.embedded.EmbeddedKafkaBroker;
import io.kubewarden.networkenforcer.processor.app.TopicPreparation;
import io.kubewarden.networkenforcer.processor.config.ProcessorConfig;
import io.kubewarden.networkenforcer.processor.progress.CatchUp;
import io.kubewarden.networkenforcer.processor.topology.NetworkEnforcerTopology;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * replay and simulate over a real flows topic (one embedded KRaft broker for the class), with flows
 * carrying recorded timestamps in two windows two days ago, and a live processor that learned them
 * as they came. Window A: the client talks to the server (TCP 18080) and to DNS (UDP 53, where a
 * monitor-mode policy makes the live processor report a violation). Window B: the client on UDP
 * 18081 and a scraper from another namespace on TCP 9090.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HistoryOnBrokerTest {
  static final String PREFIX = "live.";
  static final String LIVE_APP = "live-processor";
  static final Instant T0 = Instant.now().truncatedTo(ChronoUnit.HOURS).minus(Duration.ofDays(2));
  static final Instant A_FROM = T0;
  static final Instant A_TO = T0.plus(Duration.ofHours(1));
  static final Instant B_FROM = T0.plus(Duration.ofHours(2));
  static final Instant B_TO = T0.plus(Duration.ofHours(3));

  static final FlowEndpoint CLIENT =
      endpoint("demo", "http-client", Map.of("app", "http-client"), "10.244.2.244");
  static final FlowEndpoint SERVER =
      endpoint("demo", "http-server", Map.of("app", "http-server"), "10.244.1.103");
  static final FlowEndpoint DNS =
      endpoint("kube-system", "coredns", Map.of("k8s-app", "kube-dns"), "10.96.0.10");
  static final FlowEndpoint SCRAPER =
      endpoint("other", "scraper", Map.of("app", "scraper"), "10.244.3.7");

  static EmbeddedKafkaBroker broker;
  static KafkaSettings live;
  static KafkaStreams liveProcessor;
  static SimpleMeterRegistry liveRegistry = new SimpleMeterRegistry();
  static ProcessorConfig liveConfig;
  static Path liveState;

  /** What the live processor had published when window A was over (before window B's flows). */
  static Map<String, ProposalSnapshot> liveAfterA;

  @TempDir Path dir;

  @BeforeAll
  static void startLiveInstallation() throws Exception {
    broker = EmbeddedKafkaBroker.startDefault();
    live = new KafkaSettings(broker.bootstrapServers(), PREFIX, 3, (short) 1, Map.of()).validate();
    liveState = Files.createTempDirectory("live-processor");
    liveConfig =
        ProcessorConfig.builder(live)
            .applicationId(LIVE_APP)
            .provider(Provider.cilium)
            .processingGuarantee(StreamsConfig.AT_LEAST_ONCE)
            .evidenceFlushInterval(Duration.ofMillis(200))
            .commitInterval(Duration.ofMillis(100))
            .inMemoryStores(true)
            .stateDir(liveState)
            .build()
            .validate();
    try (Admin admin = Admin.create(live.clientConfig())) {
      new TopicPreparation(liveConfig).prepare(admin);
    }
    liveProcessor =
        new KafkaStreams(
            NetworkEnforcerTopology.build(liveConfig, liveRegistry),
            liveConfig.streamsProperties());
    liveProcessor.start();

    // A monitor-mode policy with no rule for DNS ingress: every flow to coredns is a violation.
    WorkloadNetworkPolicySpec spec = new WorkloadNetworkPolicySpec();
    spec.setBackend(Backend.kubernetes);
    spec.setMode(Mode.monitor);
    spec.setDirection(Direction.Ingress);
    spec.setTargetRef(new TargetRef(WorkloadKind.Deployment, "coredns"));
    spec.setKubernetes(
        new NetworkPolicySpecBuilder()
            .withPodSelector(
                new LabelSelectorBuilder().withMatchLabels(Map.of("k8s-app", "kube-dns")).build())
            .withPolicyTypes("Ingress")
            .build());
    send(
        live.topics().policies(),
        "kube-system/Deployment/coredns/Ingress",
        new PolicySnapshot("deployment-coredns-ingress", "kube-system", spec, 1, null),
        T0.minusSeconds(60));
    awaitLiveDrained();

    sendFlows(
        List.of(
            flow(A_FROM.plusSeconds(10), CLIENT, SERVER, Protocol.TCP, 18080, 3),
            flow(A_FROM.plusSeconds(20), CLIENT, DNS, Protocol.UDP, 53, 1),
            flow(A_FROM.plusSeconds(1800), CLIENT, SERVER, Protocol.TCP, 18080, 2)));
    awaitLiveDrained();
    liveAfterA = new ProposalTopicReader(live).readAll(live.topics().proposals());
    sendFlows(
        List.of(
            flow(B_FROM.plusSeconds(5), SCRAPER, SERVER, Protocol.TCP, 9090, 1),
            flow(B_FROM.plusSeconds(60), CLIENT, SERVER, Protocol.UDP, 18081, 4)));
    awaitLiveDrained();
    // The ingest's loss records: two nodes lost events during window B, one between the windows.
    DataPlaneLoss duringB =
        new DataPlaneLoss(
            Provider.cilium, "kind/worker", B_FROM.plusSeconds(30), B_FROM.plusSeconds(45), 120, 3);
    DataPlaneLoss endOfB =
        new DataPlaneLoss(
            Provider.cilium, "kind/worker2", B_TO.minusSeconds(5), B_TO.plusSeconds(10), 7, 1);
    DataPlaneLoss betweenAAndB =
        new DataPlaneLoss(
            Provider.cilium, "kind/worker", A_TO.plusSeconds(60), A_TO.plusSeconds(90), 1000, 1);
    send(live.topics().dataPlaneLoss(), betweenAAndB.key(), betweenAAndB, betweenAAndB.to());
    send(live.topics().dataPlaneLoss(), duringB.key(), duringB, duringB.to());
    send(live.topics().dataPlaneLoss(), endOfB.key(), endOfB, endOfB.to());
    // Hubble Relay could not read a third node for a while during window B: a loss nobody counted.
    DataPlaneLoss unreadableInB =
        DataPlaneLoss.unavailable(
            Provider.cilium, "kind/worker3", B_FROM.plusSeconds(100), B_FROM.plusSeconds(200));
    send(live.topics().dataPlaneLoss(), unreadableInB.key(), unreadableInB, unreadableInB.to());
  }

  @AfterAll
  static void stop() throws Exception {
    if (liveProcessor != null) {
      liveProcessor.close(Duration.ofSeconds(30));
    }
    if (broker != null) {
      broker.close();
    }
    try (Stream<Path> paths = Files.walk(liveState)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  @Test
  @Order(1)
  void theLiveProcessorLearnedWindowAAndReportedOneViolation() {
    assertThat(liveAfterA.keySet())
        .containsExactlyInAnyOrder(
            "demo/Deployment/http-client/Egress", "demo/Deployment/http-server/Ingress");
    assertThat(violations()).hasSize(1);
  }

  @Test
  @Order(2)
  void replayOfWindowAGivesTheLiveProposalsOfThatWindowAndNoViolation() throws Exception {
    long violationsBefore = violations().size();
    Map<String, ProposalSnapshot> liveProposalsBefore =
        new ProposalTopicReader(live).readAll(live.topics().proposals());
    CliRun run = replay(A_FROM, A_TO, "--output-dir", dir.toString());
    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).contains("3 flows in the window, 3 replayed").contains(", 3 proposals.");
    // Minutes of flows cannot prove a 7-day quiet period: replay says so, as learn does of a
    // capture.
    assertThat(run.out())
        .contains("Converged: 0 of 3 (the window spans ")
        .contains(
            "quiet period 168h); a window "
                + "shorter than the quiet period cannot show that traffic of a longer cycle (a daily or weekly job) is covered.");
    assertThat(run.err())
        .containsPattern("reading flows: 3 of 3 records \\(100%\\), \\d+/s, done in");
    assertThat(run.out()).doesNotContain("Lost events");

    Map<String, WorkloadNetworkPolicyProposal> replayed = manifests(dir);
    // The live processor learned no DNS ingress (a policy exists); replay rebuilds it too, for
    // diff.
    assertThat(replayed.keySet())
        .containsExactlyInAnyOrder(
            "demo/deployment-http-client-egress",
            "demo/deployment-http-server-ingress",
            "kube-system/deployment-coredns-ingress");
    for (ProposalSnapshot expected : liveAfterA.values()) {
      WorkloadNetworkPolicyProposal got =
          replayed.get(expected.namespace() + "/" + expected.name());
      assertThat(got.getSpec()).as(expected.name()).isEqualTo(expected.spec());
      assertThat(got.getStatus().getEvidence()).as(expected.name()).isEqualTo(expected.evidence());
      assertThat(got.getMetadata().getAnnotations())
          .containsExactly(Map.entry(Labels.REPLAYED_FROM, A_FROM + "/" + A_TO));
    }
    // Exact evidence of the window: 3 + 2 connections to the server on TCP 18080, first and last
    // seen.
    var evidence = replayed.get("demo/deployment-http-server-ingress").getStatus().getEvidence();
    assertThat(evidence).hasSize(1);
    assertThat(evidence.get(0).getPorts()).hasSize(1);
    assertThat(evidence.get(0).getPorts().get(0).getCount()).isEqualTo(5);
    assertThat(evidence.get(0).getPorts().get(0).getFirstSeen())
        .isEqualTo(A_FROM.plusSeconds(10).toString());
    assertThat(evidence.get(0).getPorts().get(0).getLastSeen())
        .isEqualTo(A_FROM.plusSeconds(1800).toString());

    // Nothing of the live installation moved: no violation, no proposal, no group of any type.
    assertThat(violations()).hasSize((int) violationsBefore);
    assertThat(new ProposalTopicReader(live).readAll(live.topics().proposals()))
        .isEqualTo(liveProposalsBefore);
    try (Admin admin = Admin.create(live.clientConfig())) {
      assertThat(admin.listGroups().all().get().stream().map(GroupListing::groupId))
          .containsExactly(LIVE_APP);
    }
  }

  @Test
  @Order(3)
  void replayOfWindowBGivesTheProposalsOfThatWindowOnly() throws Exception {
    Path report = dir.resolve("reports").resolve("window-b.html");
    CliRun run =
        replay(B_FROM, B_TO, "--output-dir", dir.toString(), "--report", report.toString());
    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).contains("report: " + report);
    // The data plane lost 120 + 7 events during the window (not the 1000 between the windows).
    assertThat(run.out())
        .contains(
            "Lost events: 127 reported by the data plane during the window (on kind/worker, "
                + "kind/worker2)")
        .contains("Unreadable nodes: kind/worker3 could not be read");
    Map<String, WorkloadNetworkPolicyProposal> replayed = manifests(dir);
    assertThat(replayed.values())
        .allSatisfy(
            p ->
                assertThat(p.getStatus().getConditions())
                    .singleElement()
                    .satisfies(
                        c -> {
                          assertThat(c.getType()).isEqualTo("Converged");
                          assertThat(c.getStatus()).isEqualTo("False");
                          assertThat(c.getReason()).isEqualTo("EventsLost");
                          assertThat(c.getMessage())
                              .startsWith(
                                  "the data plane lost 127 events and could not read node kind/worker3 "
                                      + "for a time while the replayed window's flows were recorded");
                        }));
    assertThat(replayed.keySet())
        .containsExactlyInAnyOrder(
            "demo/deployment-http-client-egress",
            "demo/deployment-http-server-ingress",
            "other/deployment-scraper-egress");
    assertThat(rules(replayed.get("demo/deployment-http-server-ingress")))
        .containsExactlyInAnyOrder(
            "demo/Deployment/http-client UDP/18081", "other/Deployment/scraper TCP/9090");
    assertThat(rules(replayed.get("demo/deployment-http-client-egress")))
        .containsExactly("demo/Deployment/http-server UDP/18081");

    // The report holds the window's proposals, and only them, with their evidence counts as edges.
    JsonNode model = reportModel(report);
    List<String> proposals = new ArrayList<>();
    model
        .get("proposals")
        .forEach(p -> proposals.add(p.get("namespace").asText() + "/" + p.get("name").asText()));
    assertThat(proposals).containsExactlyInAnyOrderElementsOf(replayed.keySet());
    List<String> edges = new ArrayList<>();
    model
        .get("connections")
        .forEach(
            c ->
                c.get("ports")
                    .forEach(
                        port ->
                            edges.add(
                                c.get("id").asText()
                                    + " "
                                    + port.get("protocol").asText()
                                    + "/"
                                    + port.get("port").asText()
                                    + " x"
                                    + port.get("count").asLong())));
    assertThat(edges)
        .containsExactlyInAnyOrder(
            "demo/Deployment/http-client -> demo/Deployment/http-server UDP/18081 x4",
            "other/Deployment/scraper -> demo/Deployment/http-server TCP/9090 x1");
    assertThat(model.get("source").asText()).isEqualTo(PREFIX + "flows " + B_FROM + " to " + B_TO);
    assertThat(model.get("totals").get("flowsPublished").asLong()).isEqualTo(2);
    assertThat(model.get("live").isNull()).isTrue();
  }

  /** The model the page was rendered from: the JSON inlined in its report-data element. */
  private static JsonNode reportModel(Path html) throws Exception {
    String page = Files.readString(html);
    String open = "<script type=\"application/json\" id=\"report-data\">";
    int start = page.indexOf(open);
    assertThat(start).as("report-data element in " + html).isPositive();
    int end = page.indexOf("</script>", start);
    return new ObjectMapper().readTree(page.substring(start + open.length(), end));
  }

  @Test
  @Order(4)
  void namespacesNarrowTheReplay() throws Exception {
    CliRun run = replay(B_FROM, B_TO, "--namespace", "other", "--output-dir", dir.toString());
    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).contains("for namespaces other: 2 flows in the window, 1 replayed");
    assertThat(manifests(dir).keySet()).containsExactly("other/deployment-scraper-egress");
  }

  /** An installation learning CiliumNetworkPolicies replays in its backend. */
  @Test
  @Order(4)
  void theBackendOfTheInstallationIsTheBackendOfTheReplay() throws Exception {
    CliRun run =
        replay(
            B_FROM,
            B_TO,
            "--namespace",
            "other",
            "--backend",
            "cilium",
            "--output-dir",
            dir.toString());
    assertThat(run.exitCode()).as(run.err()).isZero();
    WorkloadNetworkPolicyProposal scraper = manifests(dir).get("other/deployment-scraper-egress");
    assertThat(scraper.getSpec().getKubernetes()).isNull();
    assertThat(scraper.getSpec().getCilium().getEgress())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.getToEndpoints().get(0).getMatchLabels())
                  .containsEntry("k8s:io.kubernetes.pod.namespace", "demo");
              assertThat(r.getToPorts().get(0).getPorts())
                  .extracting(p -> p.getProtocol() + "/" + p.getPort())
                  .containsExactly("TCP/9090");
            });
  }

  /**
   * The installation's learning settings (chart processor.learning.*) apply to the replay too, and
   * are checked before the broker is contacted.
   */
  @Test
  @Order(4)
  void theLearningSettingsOfTheInstallationAreThoseOfTheReplay() throws Exception {
    Path out = dir.resolve("learning");
    CliRun run =
        replay(
            B_FROM,
            B_TO,
            "--namespace",
            "other",
            "--convergence-quiet-period",
            "90m",
            "--output-dir",
            out.toString());
    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).contains(", quiet period 1h30m)");

    CliRun entities =
        CliRun.run(
            "replay",
            "--from",
            B_FROM.toString(),
            "--to",
            B_TO.toString(),
            "--provider",
            "cilium",
            "--cilium-entities",
            // nothing listens here: the options are refused first
            "--kafka-bootstrap-servers",
            "127.0.0.1:1",
            "--output-dir",
            out.resolve("entities").toString());
    assertThat(entities.exitCode()).isEqualTo(2);
    assertThat(entities.err())
        .contains(
            "Cilium entities are rules of the cilium backend; backend 'kubernetes' has none: drop"
                + " --cilium-entities or choose --backend cilium");
    assertThat(out.resolve("entities")).doesNotExist();

    // The installation's ranges read as its processor reads them: an unreachable cluster is named
    // before the broker is contacted.
    Path kubeconfig = dir.resolve("unreachable.kubeconfig");
    Files.writeString(
        kubeconfig,
        String.join(
            "\n",
            "apiVersion: v1",
            "kind: Config",
            "clusters: [{name: c, cluster: {server: 'https://127.0.0.1:1'}}]",
            "users: [{name: u, user: {token: t}}]",
            "contexts: [{name: x, context: {cluster: c, user: u}}]",
            "current-context: x"));
    CliRun ranges =
        CliRun.run(
            "replay",
            "--from",
            B_FROM.toString(),
            "--to",
            B_TO.toString(),
            "--provider",
            "cilium",
            "--discover-cluster-cidrs",
            "--kubeconfig",
            kubeconfig.toString(),
            "--kafka-bootstrap-servers",
            "127.0.0.1:1",
            "--output-dir",
            out.resolve("ranges").toString());
    assertThat(ranges.exitCode()).isEqualTo(2);
    assertThat(ranges.err())
        .contains("cannot discover the cluster ranges from kubeconfig " + kubeconfig)
        .doesNotContain("127.0.0.1:1 (");
    assertThat(out.resolve("ranges")).doesNotExist();
  }

  @Test
  @Order(5)
  void simulateOverAWindowOfTheTopicReportsExactlyTheDenials() throws Exception {
    Path policy =
        Files.writeString(
            dir.resolve("deny-all.yaml"),
            """
        kind: NetworkPolicy
        metadata: {name: deny-all, namespace: demo}
        spec:
          podSelector: {matchLabels: {app: http-server}}
          policyTypes: [Ingress]
        """);
    CliRun run =
        CliRun.run(
            "simulate",
            "--policy",
            policy.toString(),
            "--from",
            A_FROM.toString(),
            "--to",
            B_TO.toString(),
            "--kafka-bootstrap-servers",
            broker.bootstrapServers(),
            "--kafka-topic-prefix",
            PREFIX,
            "-o",
            "json");
    assertThat(run.exitCode()).as(run.err()).isEqualTo(SimulateCommand.EXIT_WOULD_DENY);
    JsonNode denied = Json.mapper().readTree(run.out()).path("denied");
    List<String> rows = new ArrayList<>();
    denied.forEach(
        d ->
            rows.add(
                d.path("peer").asText()
                    + " "
                    + d.path("protocol").asText()
                    + "/"
                    + d.path("port").asInt()
                    + " x"
                    + d.path("count").asLong()
                    + " "
                    + d.path("firstSeen").asText()
                    + " "
                    + d.path("lastSeen").asText()));
    assertThat(rows)
        .containsExactly(
            "demo/Deployment/http-client TCP/18080 x5 "
                + A_FROM.plusSeconds(10)
                + " "
                + A_FROM.plusSeconds(1800),
            "demo/Deployment/http-client UDP/18081 x4 "
                + B_FROM.plusSeconds(60)
                + " "
                + B_FROM.plusSeconds(60),
            "other/Deployment/scraper TCP/9090 x1 "
                + B_FROM.plusSeconds(5)
                + " "
                + B_FROM.plusSeconds(5));
  }

  @Test
  @Order(6)
  void publishWritesTheProposalsAnnotatedWithTheWindow() throws Exception {
    long before = endOffset(live.topics().proposals().name());
    CliRun run = replay(A_FROM, A_TO, "--publish", "--namespace", "demo");
    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).contains("Published 2 proposals to live.proposals.");
    List<ConsumerRecord<String, byte[]>> published =
        readFrom(live.topics().proposals().name(), before);
    assertThat(published).hasSize(2);
    for (ConsumerRecord<String, byte[]> r : published) {
      ProposalSnapshot p =
          live.topics().proposals().valueSerde().deserializer().deserialize(r.topic(), r.value());
      assertThat(p.annotations())
          .containsExactly(Map.entry(Labels.REPLAYED_FROM, A_FROM + "/" + A_TO));
      assertThat(p.spec()).isEqualTo(liveAfterA.get(r.key()).spec());
      assertThat(
              new String(
                  r.headers().lastHeader(Labels.REPLAYED_FROM).value(), StandardCharsets.UTF_8))
          .isEqualTo(A_FROM + "/" + A_TO);
    }
    assertThat(violations()).hasSize(1);
  }

  @Test
  @Order(7)
  void aWindowOlderThanTheTopicHoldsExitsTwoNamingTheOldestTime() throws Exception {
    // Retention at work: the oldest records of every partition are deleted, as retention.ms would.
    try (Admin admin = Admin.create(live.clientConfig())) {
      Map<TopicPartition, RecordsToDelete> deletions =
          new TreeMap<>(Comparator.comparing(TopicPartition::partition));
      String flows = live.topics().flows().name();
      try (KafkaConsumer<String, byte[]> c = consumer()) {
        List<TopicPartition> tps =
            c.partitionsFor(flows).stream()
                .map(i -> new TopicPartition(flows, i.partition()))
                .toList();
        Map<TopicPartition, Long> bFirst =
            c
                .offsetsForTimes(
                    Map.of(
                        tps.get(0),
                        B_FROM.toEpochMilli(),
                        tps.get(1),
                        B_FROM.toEpochMilli(),
                        tps.get(2),
                        B_FROM.toEpochMilli()))
                .entrySet()
                .stream()
                .collect(
                    Collectors.toMap(
                        Map.Entry::getKey,
                        e ->
                            e.getValue() == null
                                ? c.endOffsets(List.of(e.getKey())).get(e.getKey())
                                : e.getValue().offset()));
        bFirst.forEach((tp, offset) -> deletions.put(tp, RecordsToDelete.beforeOffset(offset)));
      }
      admin.deleteRecords(deletions).all().get();
    }
    CliRun run = replay(A_FROM, A_TO, "--output-dir", dir.toString());
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .contains(
            "no longer holds " + A_FROM + ": its oldest flow is from " + B_FROM.plusSeconds(5))
        .contains("Use --from " + B_FROM.plusSeconds(5) + " or later")
        .contains("retention.ms");
    CliRun simulate =
        CliRun.run(
            "simulate",
            "--policy",
            dir.resolve("x.yaml").toString(),
            "--from",
            A_FROM.toString(),
            "--to",
            A_TO.toString(),
            "--kafka-bootstrap-servers",
            broker.bootstrapServers(),
            "--kafka-topic-prefix",
            PREFIX);
    assertThat(simulate.exitCode()).isEqualTo(2);
  }

  @Test
  @Order(8)
  void replayReadsCommittedFlowsOnlyAnAbortedTransactionIsNotReplayed() throws Exception {
    Instant cFrom = T0.plus(Duration.ofHours(4));
    Topic<String, FlowRecord> flows = live.topics().flows();
    Properties p = live.clientConfig();
    p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "history-test-aborted");
    try (KafkaProducer<String, FlowRecord> producer =
        new KafkaProducer<>(p, flows.keySerde().serializer(), flows.valueSerde().serializer())) {
      producer.initTransactions();
      // Written, then aborted: a consumer that reads uncommitted records would see it.
      producer.beginTransaction();
      FlowRecord aborted = flow(cFrom.plusSeconds(10), CLIENT, SCRAPER, Protocol.TCP, 7000, 1);
      producer
          .send(
              new ProducerRecord<>(
                  flows.name(),
                  null,
                  aborted.time().toEpochMilli(),
                  aborted.partitionKey(),
                  aborted))
          .get();
      producer.abortTransaction();
      producer.beginTransaction();
      FlowRecord committed = flow(cFrom.plusSeconds(20), CLIENT, SERVER, Protocol.TCP, 7001, 2);
      producer.send(
          new ProducerRecord<>(
              flows.name(),
              null,
              committed.time().toEpochMilli(),
              committed.partitionKey(),
              committed));
      producer.commitTransaction();
    }
    // Up to now: the transaction markers carry the time they were written, after the flows' own
    // times.
    CliRun run =
        CliRun.run(
            "replay",
            "--from",
            cFrom.toString(),
            "--provider",
            "cilium",
            "--kafka-bootstrap-servers",
            broker.bootstrapServers(),
            "--kafka-topic-prefix",
            PREFIX,
            "--output-dir",
            dir.toString());
    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).contains("1 flows in the window, 1 replayed").contains(", 2 proposals.");
    Map<String, WorkloadNetworkPolicyProposal> replayed = manifests(dir);
    assertThat(replayed.keySet())
        .containsExactlyInAnyOrder(
            "demo/deployment-http-client-egress", "demo/deployment-http-server-ingress");
    assertThat(rules(replayed.get("demo/deployment-http-client-egress")))
        .containsExactly("demo/Deployment/http-server TCP/7001");
  }

  private static CliRun replay(Instant from, Instant to, String... more) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "replay",
                "--from",
                from.toString(),
                "--to",
                to.toString(),
                "--provider",
                "cilium",
                "--kafka-bootstrap-servers",
                broker.bootstrapServers(),
                "--kafka-topic-prefix",
                PREFIX));
    args.addAll(List.of(more));
    return CliRun.run(args.toArray(String[]::new));
  }

  /** Peer workload and port of each learned rule, as {@code ns/Kind/name PROTO/port}. */
  private static List<String> rules(WorkloadNetworkPolicyProposal p) {
    List<String> out = new ArrayList<>();
    p.getStatus()
        .getEvidence()
        .forEach(
            e ->
                e.getPorts()
                    .forEach(
                        port ->
                            out.add(
                                e.getPeer() + " " + port.getProtocol() + "/" + port.getPort())));
    return out;
  }

  private static Map<String, WorkloadNetworkPolicyProposal> manifests(Path dir) throws Exception {
    Map<String, WorkloadNetworkPolicyProposal> out = new TreeMap<>();
    KubernetesSerialization serialization = new KubernetesSerialization();
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path f :
          files
              .filter(
                  f ->
                      f.toString().endsWith(".yaml")
                          && !f.getFileName().toString().startsWith("deny"))
              .toList()) {
        WorkloadNetworkPolicyProposal p =
            serialization.unmarshal(Files.readString(f), WorkloadNetworkPolicyProposal.class);
        out.put(p.getMetadata().getNamespace() + "/" + p.getMetadata().getName(), p);
        Files.delete(f); // each test reads what its own replay wrote
      }
    }
    return out;
  }

  private static List<ConsumerRecord<String, byte[]>> violations() {
    return readFrom(live.topics().violations().name(), 0);
  }

  private static long endOffset(String topic) {
    try (KafkaConsumer<String, byte[]> c = consumer()) {
      return c
          .endOffsets(
              c.partitionsFor(topic).stream()
                  .map(i -> new TopicPartition(topic, i.partition()))
                  .toList())
          .values()
          .stream()
          .mapToLong(Long::longValue)
          .sum();
    }
  }

  /**
   * Every record of the topic after {@code skip} records in total (single-partition-safe: sums
   * partitions).
   */
  private static List<ConsumerRecord<String, byte[]>> readFrom(String topic, long skip) {
    List<ConsumerRecord<String, byte[]>> all = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> c = consumer()) {
      List<TopicPartition> tps =
          c.partitionsFor(topic).stream()
              .map(i -> new TopicPartition(topic, i.partition()))
              .toList();
      c.assign(tps);
      c.seekToBeginning(tps);
      Map<TopicPartition, Long> end = c.endOffsets(tps);
      while (tps.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
        c.poll(Duration.ofMillis(200)).forEach(all::add);
      }
    }
    all.sort(Comparator.comparingLong(ConsumerRecord::timestamp));
    return skip == 0 ? all : all.subList((int) Math.min(skip, all.size()), all.size());
  }

  private static KafkaConsumer<String, byte[]> consumer() {
    Properties p = live.clientConfig();
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    return new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer());
  }

  private static <V> void send(Topic<String, V> topic, String key, V value, Instant timestamp)
      throws Exception {
    try (KafkaProducer<String, V> producer =
        new KafkaProducer<>(
            live.clientConfig(), topic.keySerde().serializer(), topic.valueSerde().serializer())) {
      producer
          .send(new ProducerRecord<>(topic.name(), null, timestamp.toEpochMilli(), key, value))
          .get();
    }
  }

  /** As the ingest publishes them, with the flow's own time as the record timestamp. */
  private static void sendFlows(List<FlowRecord> flows) throws Exception {
    for (FlowRecord f : flows) {
      send(live.topics().flows(), f.partitionKey(), f, f.time());
    }
  }

  private static void awaitLiveDrained() throws Exception {
    try (Admin admin = Admin.create(live.clientConfig())) {
      CatchUp catchUp = CatchUp.of(admin, liveConfig, liveProcessor, liveRegistry);
      long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
      while (!catchUp.check().caughtUp()) {
        assertThat(System.nanoTime()).as("live processor caught up").isLessThan(deadline);
        Thread.sleep(50);
      }
    }
  }

  static FlowRecord flow(
      Instant time, FlowEndpoint src, FlowEndpoint dst, Protocol protocol, int port, long count) {
    return new FlowRecord(
        time,
        Provider.cilium,
        protocol,
        port,
        src,
        dst,
        Verdict.FORWARDED,
        null,
        count,
        Reporter.SOURCE);
  }

  static FlowEndpoint endpoint(String ns, String name, Map<String, String> labels, String ip) {
    return FlowEndpoint.builder()
        .namespace(ns)
        .workload(WorkloadKind.Deployment, name)
        .workloadSelector(new LabelSelectorBuilder().withMatchLabels(labels).build())
        .podLabels(labels)
        .namespaceLabels(Map.of("kubernetes.io/metadata.name", ns))
        .podName(name + "-7d4b9c-x2x8z")
        .ip(ip)
        .serviceAccount(name)
        .identity("spiffe://cluster.local/ns/" + ns + "/sa/" + name)
        .build();
  }
}
