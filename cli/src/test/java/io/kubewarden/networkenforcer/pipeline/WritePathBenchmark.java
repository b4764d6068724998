package io.kubewarden.networkenforcer.pipeline;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubewarden.networkenforcer.cli.services.TopicSetup;
import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.NamedPort;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.common.flow.Verdict;
import io.kubewarden.networkenforcer.common.policy.Backend;
import io.kubewarden.networkenforcer.common.policy.Labels;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.common.topics.Topics;
import io.kubewarden.networkenforcer.common.workload.WorkloadKind;
import io.kubewarden.networkenforcer.embedded.EmbeddedKafkaBroker;
import io.kubewarden.networkenforcer.processor.app.StreamProcessorApp;
import io.kubewarden.networkenforcer.processor.config.ProcessorConfig;
import io.kubewarden.networkenforcer.testing.ChartedApiServer;
import io.kubewarden.networkenforcer.writer.WriterConfig;
import io.kubewarden.networkenforcer.writer.WriterService;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.BufferedReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The write path's figures of issue #11 goal 5, printed as {@code name: value} lines (run by {@code
 * hack/bench/writer.sh}; not a test, nothing here asserts a time): how many proposal records the
 * processor writes and how many write requests the writer sends to the API server per million flows
 * over a stable peer set, and how often one proposal's status (its evidence) is written.
 *
 * <p>The whole pipeline as the distributed services run it: the embedded broker, a real
 * kube-apiserver prepared like a cluster with the chart installed ({@link ChartedApiServer}: CRDs,
 * admission policies, RBAC), the stream processor service ({@link StreamProcessorApp}, default
 * settings: exactly-once, 1 s commits, 1 s combiner; only the evidence flush interval is short) and
 * the writer service ({@link WriterService#create}, server-side apply, as the chart's writer
 * service account with a token the API server issued). The 50 Deployments the flows name exist in
 * the cluster. Flows (40 clients x 10 servers, as {@code ProcessorBenchmark}) are sent at an even
 * rate over a number of seconds, each stamped with the time it is sent, as ingest would.
 *
 * <p>The requests are counted by the API server, not by the writer: {@code apiserver_request_total}
 * from {@code /metrics} (read by the admin before and after) for the totals by verb and
 * subresource, and an audit log (writes only, metadata level) for who wrote which object when. The
 * run ends when the processor has committed every flow, no proposal record came for two flush
 * intervals, and every proposal in the cluster holds the spec and evidence of its latest record.
 *
 * <p>Arguments: {@code [flows] [seconds to send them over] [evidence flush interval seconds] [audit
 * log copy]}, default 200000, 30, 5 and none (the audit log is kept there for a closer look).
 */
public final class WritePathBenchmark {
  private static final String NS = "bench";
  private static final String RELEASE = ChartedApiServer.KUBERNETES;
  private static final String WRITER_USER =
      "system:serviceaccount:"
          + ChartedApiServer.RELEASE_NAMESPACE
          + ":"
          + RELEASE
          + "-network-enforcer-writer";
  private static final String PROPOSALS = "workloadnetworkpolicyproposals";
  private static final int PARTITIONS = 6;
  private static final int CLIENTS = 40;
  private static final int SERVERS = 10;
  private static final Duration TIMEOUT = Duration.ofMinutes(15);

  /** Write verbs as apiserver_request_total names them (server-side apply is APPLY). */
  private static final List<String> WRITE_VERBS =
      List.of("POST", "PUT", "PATCH", "APPLY", "DELETE", "DELETECOLLECTION");

  private static final ObjectMapper JSON = new ObjectMapper();

  private WritePathBenchmark() {}

  public static void main(String[] args) throws Exception {
    int flows = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
    double seconds = args.length > 1 ? Double.parseDouble(args[1]) : 30;
    Duration flush =
        Duration.ofMillis((long) ((args.length > 2 ? Double.parseDouble(args[2]) : 5) * 1000));
    Path work = Files.createTempDirectory("write-path-bench");
    Path auditPolicy = work.resolve("audit-policy.yaml");
    Path auditLog = work.resolve("audit.log");
    // Every write request, with who sent it and which object it names; nothing else.
    Files.writeString(
        auditPolicy,
        """
        apiVersion: audit.k8s.io/v1
        kind: Policy
        omitStages: ["RequestReceived"]
        rules:
        - level: Metadata
          verbs: ["create", "update", "patch", "delete", "deletecollection"]
        - level: None
        """);
    try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.startDefault();
        ChartedApiServer cluster =
            ChartedApiServer.start(
                NS, "--audit-policy-file=" + auditPolicy, "--audit-log-path=" + auditLog)) {
      run(broker, cluster, auditLog, work, flows, seconds, flush);
    }
    if (args.length > 3) {
      Files.copy(auditLog, Path.of(args[3]), StandardCopyOption.REPLACE_EXISTING);
    }
    try (var paths = Files.walk(work)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
    // The broker's and the clients' non-daemon threads must not keep the JVM.
    System.exit(0);
  }

  private static void run(
      EmbeddedKafkaBroker broker,
      ChartedApiServer cluster,
      Path auditLog,
      Path work,
      int flows,
      double seconds,
      Duration flush)
      throws Exception {
    KubernetesClient admin = cluster.admin();
    List<FlowEndpoint> clients = new ArrayList<>();
    List<FlowEndpoint> servers = new ArrayList<>();
    for (int c = 0; c < CLIENTS; c++) {
      clients.add(endpoint("client-" + c, c, false));
    }
    for (int s = 0; s < SERVERS; s++) {
      servers.add(endpoint("server-" + s, 1000 + s, true));
    }
    for (FlowEndpoint e : concat(clients, servers)) {
      createDeployment(admin, e);
    }

    KafkaSettings kafka =
        new KafkaSettings(broker.bootstrapServers(), "bench.", PARTITIONS, (short) 1, Map.of());
    Topics topics = kafka.topics();
    TopicSetup.createMissing(kafka, Topics.FLOWS_RETENTION.toMillis());
    SimpleMeterRegistry processorMetrics = new SimpleMeterRegistry();
    ProcessorConfig processorConfig =
        ProcessorConfig.builder(kafka)
            .applicationId("bench-processor")
            .provider(Provider.calico)
            .backend(Backend.kubernetes)
            .evidenceFlushInterval(flush)
            .stateDir(Files.createDirectories(work.resolve("streams")))
            .build();
    WriterConfig writerConfig =
        WriterConfig.builder()
            .namespace(ChartedApiServer.RELEASE_NAMESPACE)
            .leaseName(ChartedApiServer.leaseName(RELEASE))
            .identity(RELEASE + "-writer-0")
            .consumerGroup("bench-writer")
            .kafka(kafka)
            .build()
            .validate();

    try (KubernetesClient writerClient = cluster.writerClient(RELEASE);
        StreamProcessorApp processor = new StreamProcessorApp(processorConfig, processorMetrics);
        WriterService writer =
            WriterService.create(writerClient, writerConfig, new SimpleMeterRegistry());
        ProposalsTopic proposals = new ProposalsTopic(broker.bootstrapServers(), topics)) {
      processor.start();
      writer.start();
      waitUntil(
          "processor running and writer leading", () -> processor.isReady() && writer.isLeader());

      Map<String, Double> requestsBefore = requestCounts(admin);
      Instant measureFrom = Instant.now();
      Instant firstFlow =
          sendPaced(broker.bootstrapServers(), topics, clients, servers, flows, seconds);
      waitUntil(
          "processor committed every flow",
          () -> flowsCommitted(processor, flows) && learned(processorMetrics) >= 2.0 * flows);
      // Drained: no proposal record for two flush intervals, and the cluster holds the latest of
      // each.
      Duration quiet = flush.multipliedBy(2).plusSeconds(1);
      waitUntil(
          "proposals applied",
          () -> {
            proposals.poll();
            return proposals.quietFor(quiet) && applied(admin, proposals.latest());
          });
      Map<String, Double> requestsAfter = requestCounts(admin);
      Instant measureTo = Instant.now();
      Audit audit = Audit.read(auditLog, measureFrom, measureTo);

      Map<String, Double> requests = difference(requestsAfter, requestsBefore);
      double specApplies = sum(requests, PROPOSALS, "", List.of("APPLY", "PATCH"));
      double statusWrites = sum(requests, PROPOSALS, "status", WRITE_VERBS);
      double allProposalWrites = sum(requests, PROPOSALS, null, WRITE_VERBS);
      double otherProposalWrites = allProposalWrites - specApplies - statusWrites;
      double allowListChanges = counter(processorMetrics, "proposals.emitted");
      double evidenceFlushes = counter(processorMetrics, "evidence.flushed");
      int objects =
          admin
              .resources(WorkloadNetworkPolicyProposal.class)
              .inNamespace(NS)
              .list()
              .getItems()
              .size();
      double runSeconds =
          Duration.between(firstFlow, audit.lastProposalWrite()).toMillis() / 1000.0;
      double intervals = runSeconds / (flush.toMillis() / 1000.0);
      double perMillion = 1_000_000.0 / flows;

      line("writer flows", flows);
      line("writer flows sent per second (paced)", flows / seconds);
      line("writer evidence flush interval seconds", flush.toMillis() / 1000.0);
      line("writer run seconds (first flow sent to last proposal write)", runSeconds);
      line("writer flush intervals elapsed", intervals);
      line("writer processor proposal records", proposals.records());
      line("writer processor proposal records, allow-list changes", allowListChanges);
      line("writer processor proposal records, evidence flushes", evidenceFlushes);
      line("writer processor proposal records per million flows", proposals.records() * perMillion);
      line("writer distinct proposal objects", objects);
      line("writer distinct proposal keys on the topic", proposals.latest().size());
      line("writer API writes to proposals (API server metrics)", allProposalWrites);
      line("writer API proposal spec applies", specApplies);
      line("writer API proposal status writes", statusWrites);
      line("writer API other proposal writes (create, update, delete)", otherProposalWrites);
      line("writer API writes to proposals per million flows", allProposalWrites * perMillion);
      line("writer API proposal spec applies per million flows", specApplies * perMillion);
      line("writer API proposal status writes per million flows", statusWrites * perMillion);
      line(
          "writer API writes by the writer account (audit log, all resources)",
          audit.writerWrites());
      line(
          "writer API writes by the writer account to proposals (audit log)",
          audit.writerProposalWrites());
      line("writer API lease writes by the writer account (audit log)", audit.writerLeaseWrites());
      line("writer API evidence-only status writes (audit log)", audit.evidenceOnlyTotal());
      line(
          "writer largest evidence-only status writes to one proposal",
          audit.largestEvidenceOnly());
      line(
          "writer largest evidence-only status writes to one proposal per flush interval elapsed",
          audit.largestEvidenceOnly() / intervals);
      line(
          "writer smallest seconds between evidence-only status writes of one proposal",
          audit.smallestEvidenceGapSeconds());
      line(
          "writer median seconds between evidence-only status writes of one proposal",
          audit.medianEvidenceGapSeconds());
      line(
          "writer smallest seconds between evidence-only status writes of one proposal, "
              + "from one flush interval after the last spec apply",
          audit.smallestSteadyEvidenceGapSeconds(flush));
      line("writer largest status writes to one proposal", audit.largestStatusWrites());
      line(
          "writer largest status writes to one proposal per flush interval elapsed",
          audit.largestStatusWrites() / intervals);
      System.err.println(
          "API server write requests during the run (verb|resource|subresource): " + requests);
      System.err.println("writer writes by resource (audit log): " + audit.writerByResource);
    }
  }

  /**
   * Sends the flows at an even rate over the seconds (100 ms steps), each stamped when sent; the
   * first send.
   */
  private static Instant sendPaced(
      String bootstrap,
      Topics topics,
      List<FlowEndpoint> clients,
      List<FlowEndpoint> servers,
      int flows,
      double seconds)
      throws Exception {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ProducerConfig.LINGER_MS_CONFIG, "20");
    props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    try (KafkaProducer<String, FlowRecord> producer =
        new KafkaProducer<>(
            props,
            topics.flows().keySerde().serializer(),
            topics.flows().valueSerde().serializer())) {
      Instant first = Instant.now();
      long start = System.nanoTime();
      int sent = 0;
      while (sent < flows) {
        double elapsed = (System.nanoTime() - start) / 1e9;
        int owed = (int) Math.min(flows, Math.ceil(flows * Math.min(1.0, elapsed / seconds)));
        Instant now = Instant.now();
        for (; sent < owed; sent++) {
          FlowEndpoint src = clients.get(sent % CLIENTS);
          FlowEndpoint dst = servers.get((sent / CLIENTS) % SERVERS);
          FlowRecord flow =
              new FlowRecord(
                  now,
                  Provider.calico,
                  Protocol.TCP,
                  8080 + (sent % 2),
                  src,
                  dst,
                  Verdict.FORWARDED,
                  null,
                  1,
                  sent % 3 == 0 ? Reporter.DESTINATION : Reporter.SOURCE);
          producer.send(new ProducerRecord<>(topics.flows().name(), flow.partitionKey(), flow));
        }
        if (sent < flows) {
          Thread.sleep(100);
        }
      }
      producer.flush();
      return first;
    }
  }

  /** Every proposal in the cluster holds the spec and the evidence of its latest record. */
  private static boolean applied(KubernetesClient admin, Map<String, ProposalSnapshot> latest) {
    Map<String, WorkloadNetworkPolicyProposal> live = new HashMap<>();
    admin
        .resources(WorkloadNetworkPolicyProposal.class)
        .inNamespace(NS)
        .list()
        .getItems()
        .forEach(p -> live.put(p.getMetadata().getName(), p));
    if (latest.isEmpty() || live.size() != latest.size()) {
      return false;
    }
    for (ProposalSnapshot wanted : latest.values()) {
      WorkloadNetworkPolicyProposal p = live.get(wanted.name());
      if (p == null
          || p.getStatus() == null
          || !Objects.equals(p.getSpec(), wanted.spec())
          || !Objects.equals(p.getStatus().getEvidence(), wanted.evidence())) {
        return false;
      }
    }
    return true;
  }

  /** The proposals topic as the writer reads it (committed records only), from its beginning. */
  private static final class ProposalsTopic implements AutoCloseable {
    private final KafkaConsumer<String, ProposalSnapshot> consumer;
    private final Map<String, ProposalSnapshot> latest = new TreeMap<>();
    private long records;
    private long lastRecordNanos = System.nanoTime();

    ProposalsTopic(String bootstrap, Topics topics) {
      Properties props = new Properties();
      props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
      props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
      props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
      consumer =
          new KafkaConsumer<>(
              props, new StringDeserializer(), topics.proposals().valueSerde().deserializer());
      List<TopicPartition> partitions = new ArrayList<>();
      for (int p = 0; p < PARTITIONS; p++) {
        partitions.add(new TopicPartition(topics.proposals().name(), p));
      }
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
    }

    void poll() {
      for (ConsumerRecord<String, ProposalSnapshot> r : consumer.poll(Duration.ofMillis(200))) {
        records++;
        lastRecordNanos = System.nanoTime();
        if (r.value() != null) {
          latest.put(r.value().namespace() + "/" + r.value().name(), r.value());
        }
      }
    }

    boolean quietFor(Duration d) {
      return System.nanoTime() - lastRecordNanos >= d.toNanos();
    }

    long records() {
      return records;
    }

    Map<String, ProposalSnapshot> latest() {
      return latest;
    }

    @Override
    public void close() {
      consumer.close();
    }
  }

  /** What the audit log says about the writes between two moments. */
  private static final class Audit {
    final Map<String, Long> writerByResource = new TreeMap<>();
    private long writerWrites;
    private long writerLeaseWrites;
    private long writerProposalWrites;
    private Instant lastProposalWrite;

    /** The last spec apply to any proposal: after it the allow-lists no longer changed. */
    private Instant lastSpecApply = Instant.EPOCH;

    /**
     * Per proposal: status write times that came without a spec apply just before (evidence only).
     */
    private final Map<String, List<Instant>> evidenceOnly = new HashMap<>();

    private final Map<String, Long> statusWrites = new HashMap<>();

    static Audit read(Path log, Instant from, Instant to) throws Exception {
      Audit audit = new Audit();
      // The last write to each proposal so far: was it a spec apply?
      Map<String, Boolean> lastWasSpec = new HashMap<>();
      try (BufferedReader in = Files.newBufferedReader(log, StandardCharsets.UTF_8)) {
        for (String line = in.readLine(); line != null; line = in.readLine()) {
          JsonNode event = JSON.readTree(line);
          Instant at = Instant.parse(event.path("stageTimestamp").asText());
          if (at.isBefore(from)
              || at.isAfter(to)
              || !WRITER_USER.equals(event.path("user").path("username").asText())) {
            continue;
          }
          JsonNode ref = event.path("objectRef");
          String resource = ref.path("resource").asText();
          String subresource = ref.path("subresource").asText("");
          audit.writerWrites++;
          audit.writerByResource.merge(
              event.path("verb").asText()
                  + " "
                  + resource
                  + (subresource.isEmpty() ? "" : "/" + subresource),
              1L,
              Long::sum);
          if (resource.equals("leases")) {
            audit.writerLeaseWrites++;
          }
          if (!resource.equals(PROPOSALS)) {
            continue;
          }
          audit.writerProposalWrites++;
          audit.lastProposalWrite = at;
          String name = ref.path("namespace").asText() + "/" + ref.path("name").asText();
          if (subresource.equals("status")) {
            audit.statusWrites.merge(name, 1L, Long::sum);
            if (!lastWasSpec.getOrDefault(name, false)) {
              audit.evidenceOnly.computeIfAbsent(name, k -> new ArrayList<>()).add(at);
            }
            lastWasSpec.put(name, false);
          } else {
            lastWasSpec.put(name, true);
            audit.lastSpecApply = at;
          }
        }
      }
      if (audit.lastProposalWrite == null) {
        throw new IllegalStateException(
            "the audit log " + log + " holds no proposal write of " + WRITER_USER);
      }
      return audit;
    }

    long writerWrites() {
      return writerWrites;
    }

    long writerLeaseWrites() {
      return writerLeaseWrites;
    }

    long writerProposalWrites() {
      return writerProposalWrites;
    }

    Instant lastProposalWrite() {
      return lastProposalWrite;
    }

    long evidenceOnlyTotal() {
      return evidenceOnly.values().stream().mapToLong(List::size).sum();
    }

    long largestEvidenceOnly() {
      return evidenceOnly.values().stream().mapToLong(List::size).max().orElse(0);
    }

    long largestStatusWrites() {
      return statusWrites.values().stream().mapToLong(Long::longValue).max().orElse(0);
    }

    /**
     * The shortest time between two evidence-only status writes of one proposal; -1 when none wrote
     * twice.
     */
    double smallestEvidenceGapSeconds() {
      List<Long> gaps = evidenceGapsMillis(Instant.MIN);
      return gaps.isEmpty() ? -1 : gaps.get(0) / 1000.0;
    }

    /** The median of those times; -1 when no proposal had two. */
    double medianEvidenceGapSeconds() {
      List<Long> gaps = evidenceGapsMillis(Instant.MIN);
      return gaps.isEmpty() ? -1 : gaps.get(gaps.size() / 2) / 1000.0;
    }

    /**
     * The same from one flush interval after the allow-lists stopped changing: until then a flush's
     * write can wait behind the writer's burst of first applies and so come closer than a flush
     * interval to the next one.
     */
    double smallestSteadyEvidenceGapSeconds(Duration flush) {
      List<Long> gaps = evidenceGapsMillis(lastSpecApply.plus(flush));
      return gaps.isEmpty() ? -1 : gaps.get(0) / 1000.0;
    }

    /**
     * Times between consecutive evidence-only status writes of each proposal, both after {@code
     * since}, sorted.
     */
    private List<Long> evidenceGapsMillis(Instant since) {
      List<Long> gaps = new ArrayList<>();
      for (List<Instant> times : evidenceOnly.values()) {
        for (int i = 1; i < times.size(); i++) {
          if (times.get(i - 1).isBefore(since)) {
            continue;
          }
          gaps.add(Duration.between(times.get(i - 1), times.get(i)).toMillis());
        }
      }
      gaps.sort(null);
      return gaps;
    }
  }

  private static final Pattern LABEL = Pattern.compile("(\\w+)=\"([^\"]*)\"");

  /** apiserver_request_total of the write verbs, summed by "verb|resource|subresource". */
  private static Map<String, Double> requestCounts(KubernetesClient admin) {
    String base = admin.getMasterUrl().toString();
    String metrics = admin.raw(base.endsWith("/") ? base + "metrics" : base + "/metrics");
    Map<String, Double> counts = new TreeMap<>();
    for (String line : metrics.split("\n")) {
      if (!line.startsWith("apiserver_request_total{")) {
        continue;
      }
      int close = line.lastIndexOf('}');
      Map<String, String> labels = new HashMap<>();
      Matcher m = LABEL.matcher(line.substring(0, close));
      while (m.find()) {
        labels.put(m.group(1), m.group(2));
      }
      if (!WRITE_VERBS.contains(labels.get("verb"))) {
        continue;
      }
      double value = Double.parseDouble(line.substring(close + 1).trim());
      counts.merge(
          labels.get("verb")
              + "|"
              + labels.get("resource")
              + "|"
              + labels.getOrDefault("subresource", ""),
          value,
          Double::sum);
    }
    return counts;
  }

  private static Map<String, Double> difference(
      Map<String, Double> after, Map<String, Double> before) {
    Map<String, Double> out = new TreeMap<>();
    after.forEach(
        (k, v) -> {
          double d = v - before.getOrDefault(k, 0.0);
          if (d != 0) {
            out.put(k, d);
          }
        });
    return out;
  }

  /** Requests to that resource with those verbs; subresource null means any. */
  private static double sum(
      Map<String, Double> counts, String resource, String subresource, List<String> verbs) {
    double total = 0;
    for (var e : counts.entrySet()) {
      String[] key = e.getKey().split("\\|", -1);
      if (verbs.contains(key[0])
          && key[1].equals(resource)
          && (subresource == null || key[2].equals(subresource))) {
        total += e.getValue();
      }
    }
    return total;
  }

  /**
   * The processor's group has committed the end of the flows topic, and it holds every flow sent.
   */
  private static boolean flowsCommitted(StreamProcessorApp processor, long flows) {
    return processor
        .progress()
        .map(p -> p.flowsPublished() >= flows && p.flowsConsumed() == p.flowsPublished())
        .orElse(false);
  }

  private static double learned(SimpleMeterRegistry registry) {
    return counter(registry, "observations.learned");
  }

  private static double counter(SimpleMeterRegistry registry, String name) {
    return registry.find("network_enforcer.processor." + name).counters().stream()
        .mapToDouble(Counter::count)
        .sum();
  }

  /**
   * A Deployment pod with labels and (servers) a named port, as ingest resolves it; namespace
   * labels as the cluster's.
   */
  private static FlowEndpoint endpoint(String name, int n, boolean server) {
    Map<String, String> podLabels =
        Map.of(
            "app",
            name,
            "app.kubernetes.io/name",
            name,
            "app.kubernetes.io/part-of",
            "shop",
            "version",
            "v1",
            "pod-template-hash",
            "5d8f9c7b6");
    return FlowEndpoint.builder()
        .namespace(NS)
        .workload(WorkloadKind.Deployment, name)
        .workloadSelector(new LabelSelectorBuilder().withMatchLabels(Map.of("app", name)).build())
        .podLabels(podLabels)
        .namespaceLabels(Map.of(Labels.NAMESPACE_NAME, NS))
        .podName(name + "-5d8f9c7b6-abcde")
        .ip("10." + (server ? 2 : 1) + "." + (n / 250) + "." + (n % 250))
        .serviceAccount(name)
        .identity("spiffe://cluster.local/ns/" + NS + "/sa/" + name)
        .namedPorts(server ? List.of(new NamedPort("http", 8080, Protocol.TCP)) : List.of())
        .build();
  }

  private static void createDeployment(KubernetesClient admin, FlowEndpoint e) {
    TestWorkloads.create(admin, NS, e.workloadName(), e.workloadSelector(), e.podLabels());
  }

  private static <T> List<T> concat(List<T> a, List<T> b) {
    List<T> out = new ArrayList<>(a);
    out.addAll(b);
    return out;
  }

  private static void line(String name, double value) {
    System.out.println(
        name
            + ": "
            + (value == Math.rint(value) && Math.abs(value) < 1e15
                ? Long.toString((long) value)
                : String.format("%.2f", value)));
  }

  private static void waitUntil(String what, Callable<Boolean> check) {
    await(what)
        .atMost(TIMEOUT)
        .pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(100))
        .until(check);
  }
}
