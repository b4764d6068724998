package io.kubewarden.networkenforcer.cli.incluster;

import static io.kubewarden.networkenforcer.cli.incluster.ClusterSteps.releasePods;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.kubewarden.networkenforcer.cli.CliRun;
import io.kubewarden.networkenforcer.cli.compose.HubbleRelayStandIn;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposal;
import io.kubewarden.networkenforcer.common.tls.PemKeyDirectoryConfigProvider;
import io.kubewarden.networkenforcer.testing.KubeCluster;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * The chart in mode distributed against a Kafka of its own in the cluster, as a user runs it: one
 * KRaft broker of the Kafka test image (TLS on every listener, client certificates required, the
 * StandardAuthorizer, nothing allowed without an ACL), its certificates, the test's admin
 * certificate and the components' client certificates (the chart's own Certificates, through {@code
 * kafka.tls.certManager.issuerRef}) all issued by the cluster's real cert-manager from a CA
 * ClusterIssuer, RSA keys in PKCS#1. The topics and ACLs are created by the administrator exactly
 * as the chart README's Kafka section lists them; the chart gets only what distributed mode needs.
 * A relay stand-in of its own serves the sample capture, moved to namespace {@value #APPS}; the
 * proposals must be those {@code learn} makes of it, also after the ingest, a processor, the writer
 * leader and the broker were each killed with SIGKILL and restarted by the kubelet. Used by {@link
 * InClusterIT}, which owns the cluster.
 */
final class DistributedRelease {

  /** Namespace, Service and pod of the broker. */
  static final String KAFKA = "kafka";

  /** The sample's namespace here: the earlier installs' proposals stay in theirs. */
  static final String APPS = "orders";

  static final String ISSUER = "kafka-ca";
  static final String ADMIN = "User:CN=kafka-admin";
  private static final int PORT = 9093;

  /** The chart's defaults the README's topic and ACL lists are written in. */
  private static final String PREFIX = "network-enforcer.";

  private static final String APPLICATION_ID = "network-enforcer-processor";
  private static final String WRITER_GROUPS = "network-enforcer-writer";
  private static final int PARTITIONS = 2;
  private static final short REPLICATION = 1;
  private static final Duration READY = Duration.ofMinutes(5);
  private static final Duration PIPELINE = Duration.ofMinutes(3);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final KubeCluster cluster;
  private final Path dir;
  private final String builtImage;
  private final String kafkaImage;
  private final Map<String, Duration> timings = new LinkedHashMap<>();
  private String clusterIp;
  private Path capture;
  private HubbleRelayStandIn relay;
  private int relayPortBefore = -1;
  private Map<String, WorkloadNetworkPolicyProposal> learned;
  private List<String> leftoversBefore = List.of();
  int installs;
  int readyInstalls;
  int restarts;
  long lost = -1;
  long doubled = -1;

  DistributedRelease(KubeCluster cluster, Path dir, String builtImage, String kafkaImage) {
    this.cluster = cluster;
    this.dir = dir;
    this.builtImage = builtImage;
    this.kafkaImage = kafkaImage;
  }

  // --- the broker ----------------------------------------------------------------------------

  /**
   * cert-manager's CA, the broker's and the admin's certificates, the image imported, the broker
   * pod Ready and answering the admin over mutual TLS.
   */
  void startKafka() throws Exception {
    Instant start = Instant.now();
    KubernetesClient admin = cluster.client();
    cluster.installCertManager();
    timings.put("kafka image import", cluster.importDockerImage(kafkaImage));
    admin
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(KAFKA).endMetadata().build())
        .createOr(NonDeletingOperation::update);
    admin
        .services()
        .inNamespace(KAFKA)
        .resource(
            new ServiceBuilder()
                .withNewMetadata()
                .withName(KAFKA)
                .endMetadata()
                .withNewSpec()
                // As Strimzi's broker Services: the address stays routed to the pod while the
                // broker
                // restarts, so clients get "connection refused" and retry. Without it a ClusterIP
                // with
                // no endpoint escapes this host's CNI (its firewall plugin accepts pod traffic
                // before
                // kube-proxy's reject) to the sandbox's egress proxy, which answers TLS with its
                // own
                // certificate: an SSL handshake failure the clients take for an authentication
                // error.
                .withPublishNotReadyAddresses(true)
                .addToSelector("app", KAFKA)
                .addNewPort()
                .withName(KAFKA)
                .withPort(PORT)
                .withProtocol("TCP")
                .endPort()
                .endSpec()
                .build())
        .createOr(NonDeletingOperation::update);
    clusterIp = admin.services().inNamespace(KAFKA).withName(KAFKA).get().getSpec().getClusterIP();
    apply("kafka-pki.yaml");
    for (String secret : List.of("kafka-broker-tls", "kafka-admin-tls")) {
      cluster.await(
          "cert-manager's Secret " + KAFKA + "/" + secret,
          READY,
          () -> issued(admin.secrets().inNamespace(KAFKA).withName(secret).get()));
    }
    Secret broker = admin.secrets().inNamespace(KAFKA).withName("kafka-broker-tls").get();
    assertThat(decoded(broker, "tls.key"))
        .as("the broker's key as cert-manager writes it by default")
        .startsWith("-----BEGIN RSA PRIVATE KEY-----");
    apply("kafka-broker.yaml");
    cluster.await("the Kafka broker Ready", READY, () -> ready(kafkaPod(admin)));
    try (Admin kafka = Admin.create(adminProperties())) {
      String id = kafka.describeCluster().clusterId().get(60, TimeUnit.SECONDS);
      System.out.printf("in-cluster (distributed): Kafka %s at %s:%d%n", id, clusterIp, PORT);
    }
    timings.put("kafka certificates and broker Ready", Duration.between(start, Instant.now()));
  }

  /**
   * What the chart README (Modes, Kafka) tells an administrator to create before the install when
   * the services authenticate: the topics it lists, with their cleanup and retention, the loop
   * topic, {@code min.insync.replicas} as the README says, and each principal's ACLs of its table.
   */
  void createTopicsAndAclsAsTheReadmeSays() throws Exception {
    Instant start = Instant.now();
    String minIsr = Integer.toString(Math.max(1, Math.min(2, REPLICATION - 1)));
    List<NewTopic> topics = new ArrayList<>();
    topics.add(topic("flows", "delete", Duration.ofDays(7), minIsr));
    topics.add(topic("policies", "compact", null, minIsr));
    topics.add(topic("proposals", "compact", null, minIsr));
    topics.add(topic("native-policies", "compact", null, minIsr));
    topics.add(topic("control", "delete", null, minIsr));
    topics.add(topic("violations", "delete", null, minIsr));
    topics.add(topic("dead-letter", "delete", null, minIsr));
    topics.add(topic("data-plane-loss", "delete", Duration.ofDays(30), minIsr));
    NewTopic loop =
        new NewTopic(APPLICATION_ID + "-deny-reattribution", PARTITIONS, REPLICATION)
            .configs(
                Map.of(
                    "cleanup.policy",
                    "delete",
                    "retention.ms",
                    Long.toString(Duration.ofDays(1).toMillis()),
                    "min.insync.replicas",
                    minIsr));
    topics.add(loop);
    List<AclBinding> acls = new ArrayList<>();
    String ingest = principal("ingest");
    String processor = principal("processor");
    String writer = principal("writer");
    // ingest: Write, Describe: flows, data-plane-loss, dead-letter; Read: flows.
    acls.addAll(topicAcls(ingest, List.of("flows", "data-plane-loss", "dead-letter"), "W", "D"));
    acls.addAll(topicAcls(ingest, List.of("flows"), "R"));
    // processor: Read, Describe: flows, policies, control, native-policies; Write, Describe:
    // proposals, violations, dead-letter; prefix <app>-: Create, Read, Write, Describe,
    // DescribeConfigs, Delete; group <app>: Read; transactional id prefix <app>-: Write, Describe.
    acls.addAll(
        topicAcls(processor, List.of("flows", "policies", "control", "native-policies"), "R", "D"));
    acls.addAll(topicAcls(processor, List.of("proposals", "violations", "dead-letter"), "W", "D"));
    for (AclOperation op :
        List.of(
            AclOperation.CREATE,
            AclOperation.READ,
            AclOperation.WRITE,
            AclOperation.DESCRIBE,
            AclOperation.DESCRIBE_CONFIGS,
            AclOperation.DELETE)) {
      acls.add(
          allow(processor, ResourceType.TOPIC, APPLICATION_ID + "-", PatternType.PREFIXED, op));
    }
    acls.add(
        allow(
            processor, ResourceType.GROUP, APPLICATION_ID, PatternType.LITERAL, AclOperation.READ));
    for (AclOperation op : List.of(AclOperation.WRITE, AclOperation.DESCRIBE)) {
      acls.add(
          allow(
              processor,
              ResourceType.TRANSACTIONAL_ID,
              APPLICATION_ID + "-",
              PatternType.PREFIXED,
              op));
    }
    // writer: Write, Describe: policies, control, native-policies, dead-letter; Read: policies,
    // native-policies, proposals, violations, data-plane-loss; groups -proposals, -violations,
    // -loss: Read.
    acls.addAll(
        topicAcls(
            writer, List.of("policies", "control", "native-policies", "dead-letter"), "W", "D"));
    acls.addAll(
        topicAcls(
            writer,
            List.of("policies", "native-policies", "proposals", "violations", "data-plane-loss"),
            "R"));
    for (String group : List.of("-proposals", "-violations", "-loss")) {
      acls.add(
          allow(
              writer,
              ResourceType.GROUP,
              WRITER_GROUPS + group,
              PatternType.LITERAL,
              AclOperation.READ));
    }
    try (Admin kafka = Admin.create(adminProperties())) {
      kafka.createTopics(topics).all().get(60, TimeUnit.SECONDS);
      kafka.createAcls(acls).all().get(60, TimeUnit.SECONDS);
      // The authorizer learns them from the metadata log a moment after they are committed.
      List<AclBinding> onTheBroker = new ArrayList<>();
      cluster.await(
          "the ACLs on the broker",
          PIPELINE,
          () -> {
            onTheBroker.clear();
            try {
              onTheBroker.addAll(
                  kafka.describeAcls(AclBindingFilter.ANY).values().get(60, TimeUnit.SECONDS));
            } catch (Exception e) {
              return false;
            }
            return onTheBroker.size() >= acls.size();
          });
      assertThat(onTheBroker)
          .as("the ACLs on the broker")
          .containsExactlyInAnyOrderElementsOf(acls);
      assertThat(kafka.listTopics().names().get(60, TimeUnit.SECONDS))
          .containsAll(topics.stream().map(NewTopic::name).toList());
    }
    System.out.printf(
        "in-cluster (distributed): %d topics and %d ACLs created as the chart README says%n",
        topics.size(), acls.size());
    timings.put("topics and ACLs", Duration.between(start, Instant.now()));
  }

  // --- the release ---------------------------------------------------------------------------

  /**
   * helm install with mode distributed and provider cilium; every pod Ready under the chart's
   * probes; the capture becomes exactly the proposals learn makes of it.
   */
  void installAndAwaitTheProposalsLearnMakes() throws Exception {
    KubernetesClient admin = cluster.client();
    uninstallTheEarlierRelease(admin);
    leftoversBefore = InClusterIT.releaseLeftovers();
    ClusterSteps.createWorkloads(
        admin, APPS, cluster.pauseImage(), List.of("http-client", "http-server"));
    capture = movedCapture();
    learned = learn(capture);
    ClusterSteps.forgetEarlierProposals(
        cluster,
        learned.values().stream().map(p -> p.getMetadata().getNamespace()).distinct().toList(),
        PIPELINE);
    serveRelay(admin);
    installs++;
    Instant start = Instant.now();
    int colon = builtImage.lastIndexOf(':');
    ClusterSteps.helm(
        cluster,
        List.of(
            "install",
            InClusterIT.RELEASE,
            InClusterIT.chart().toString(),
            "--namespace",
            InClusterIT.NAMESPACE,
            "--create-namespace"),
        List.of(
            "--set",
            "image.repository=" + builtImage.substring(0, colon),
            "--set",
            "image.tag=" + builtImage.substring(colon + 1),
            "--set",
            "image.pullPolicy=Never",
            "--set",
            "mode=distributed",
            "--set",
            "controller.provider.name=cilium",
            // As the standalone install: the collector is the default values' story.
            "--set",
            "telemetry.collectorStrategy=none",
            "--set",
            "kafka.bootstrapServers=" + KAFKA + "." + KAFKA + ".svc:" + PORT,
            "--set",
            "kafka.tls.certManager.issuerRef.name=" + ISSUER,
            "--set",
            "kafka.replicationFactor=" + REPLICATION,
            "--set",
            "kafka.partitions=" + PARTITIONS));
    cluster.await(
        "every pod of the distributed release Ready",
        READY,
        () -> {
          List<Pod> pods = releasePods(admin);
          return pods.size() == 5 && pods.stream().allMatch(InClusterIT::ready);
        });
    timings.put("helm install to Ready", Duration.between(start, Instant.now()));
    readyInstalls++;
    System.out.println(
        "in-cluster (distributed): Ready "
            + releasePods(admin).stream().map(p -> p.getMetadata().getName()).sorted().toList());
    for (String component : List.of("ingest", "processor", "writer")) {
      Secret secret =
          admin
              .secrets()
              .inNamespace(InClusterIT.NAMESPACE)
              .withName("ne-network-enforcer-kafka-" + component)
              .get();
      assertThat(decoded(secret, "tls.key"))
          .as("%s's key from the chart's Certificate: PKCS#1", component)
          .startsWith("-----BEGIN RSA PRIVATE KEY-----");
    }
    Instant pipeline = Instant.now();
    awaitExact(admin, learned);
    timings.put("Ready to exact proposals", Duration.between(pipeline, Instant.now()));
  }

  /** Each pipeline pod killed once: ingest, a processor, the writer leader. */
  void eachPodKilledWithSigkillLosesAndDoublesNothing() throws Exception {
    KubernetesClient admin = cluster.client();
    Pod ingest = component(admin, "ingest").get(0);
    int streamsBefore = relay.calls();
    killAndAwaitReady(admin, InClusterIT.NAMESPACE, ingest.getMetadata().getName());
    int streamsAtReady = relay.calls();
    assertThat(streamsAtReady)
        .as("GetFlows streams when the restarted ingest said Ready")
        .isGreaterThan(streamsBefore);
    awaitExact(admin, learned);
    assertThat(relay.since(streamsAtReady - 1))
        .as("the restarted ingest's GetFlows since (resumed from the flows topic, not from now)")
        .isNotNull();
    Map<String, Double> m = InClusterIT.ingestMetrics(admin, ingest.getMetadata().getName());
    System.out.printf(
        "in-cluster (distributed): ingest resumed: relay resent %d flows, accepted %.0f, dropped"
            + " %.0f as already in the topic, published %.0f%n",
        relay.capturedFlowsSent(streamsAtReady - 1),
        m.getOrDefault("accepted", 0.0),
        m.getOrDefault("already-published", 0.0),
        m.getOrDefault("published", 0.0));
    assertThat(m.getOrDefault("published", 0.0))
        .as("flows published again after the restart")
        .isZero();

    killAndAwaitReady(admin, InClusterIT.NAMESPACE, "ne-network-enforcer-processor-0");
    awaitExact(admin, learned);

    killAndAwaitReady(admin, InClusterIT.NAMESPACE, writerLeader(admin));
    awaitExact(admin, learned);
    writerGroupsHeldByTheLeader(admin);
    countRestarts(admin);
  }

  /**
   * Each of the writer's consumer groups has one member, the leader's, named by its pod (the
   * chart's static membership): nothing is left of the killed leader's members.
   */
  private void writerGroupsHeldByTheLeader(KubernetesClient admin) throws Exception {
    Map<String, List<String>> members = new TreeMap<>();
    Map<String, List<String>> expected = new TreeMap<>();
    try (Admin kafka = Admin.create(adminProperties())) {
      cluster.await(
          "the writer's groups held by the leader's static members",
          READY,
          () -> {
            String leader;
            try {
              leader = writerLeader(admin);
            } catch (AssertionError noLeaderYet) {
              return false;
            }
            expected.clear();
            // The loss consumer reads by assignment, in no group.
            for (String group : List.of("proposals", "violations")) {
              expected.put(WRITER_GROUPS + "-" + group, List.of(leader + "-" + group));
            }
            members.clear();
            try {
              kafka
                  .describeConsumerGroups(expected.keySet())
                  .all()
                  .get(30, TimeUnit.SECONDS)
                  .forEach(
                      (name, group) ->
                          members.put(
                              name,
                              group.members().stream()
                                  .map(m -> m.groupInstanceId().orElse("dynamic " + m.consumerId()))
                                  .sorted()
                                  .toList()));
            } catch (Exception e) {
              return false;
            }
            return members.equals(expected);
          });
    } catch (IllegalStateException e) {
      // What differs leads: CI shows only the head of a long message.
      throw new AssertionError(
          "the writer's group members "
              + members
              + ", expected "
              + expected
              + "\n"
              + e.getMessage(),
          e);
    }
    System.out.printf("in-cluster (distributed): the writer's group members %s%n", members);
  }

  /**
   * The broker killed once: the kubelet restarts it, the release's pods are Ready again, and flows
   * published after its return are each counted once.
   */
  void theBrokerKilledWithSigkillLosesAndDoublesNothing() throws Exception {
    KubernetesClient admin = cluster.client();
    try {
      brokerKilled(admin);
    } finally {
      countRestarts(admin);
      printTlsFailures(admin);
    }
  }

  private void brokerKilled(KubernetesClient admin) throws Exception {
    killAndAwaitReady(admin, KAFKA, KAFKA);
    cluster.await(
        "every pod of the distributed release Ready after the broker's return",
        READY,
        () -> releasePods(admin).stream().allMatch(InClusterIT::ready));
    // Flows after the broker's return: the pipeline goes on, each counted once.
    List<String> more = laterFlows(3);
    for (String line : more) {
      assertThat(relay.publish(line)).as("open GetFlows streams").isEqualTo(1);
    }
    Path extended = dir.resolve("hubble-flows-" + APPS + "-more.jsonl");
    Files.write(extended, Files.readAllLines(capture));
    Files.write(extended, more, java.nio.file.StandardOpenOption.APPEND);
    learned = learn(extended);
    awaitExact(admin, learned);
  }

  /** Restarts of the release's pods and the broker, the kills and any other. */
  private void countRestarts(KubernetesClient admin) {
    restarts =
        releasePods(admin).stream()
                .flatMap(p -> p.getStatus().getContainerStatuses().stream())
                .mapToInt(s -> s.getRestartCount())
                .sum()
            + kafkaPod(admin).getStatus().getContainerStatuses().get(0).getRestartCount();
  }

  /**
   * How often each pod's Kafka clients failed the TLS handshake (current and previous container):
   * what a broker restart does to the clients.
   */
  private static void printTlsFailures(KubernetesClient admin) {
    for (Pod pod : releasePods(admin)) {
      String name = pod.getMetadata().getName();
      var resource = admin.pods().inNamespace(InClusterIT.NAMESPACE).withName(name);
      String current = resource.getLog();
      String previous;
      try {
        previous = resource.terminated().getLog();
      } catch (RuntimeException none) {
        previous = "";
      }
      long failures =
          (current + previous).lines().filter(l -> l.contains("SSL handshake failed")).count();
      long pkix =
          (current + previous).lines().filter(l -> l.contains("PKIX path building failed")).count();
      System.out.printf(
          "in-cluster (distributed): %s restarts %d, log lines 'SSL handshake failed' %d, PKIX %d%n",
          name, pod.getStatus().getContainerStatuses().get(0).getRestartCount(), failures, pkix);
    }
  }

  /** helm uninstall leaves nothing of the release; then the broker and its PKI go too. */
  void helmUninstallLeavesNothing() throws Exception {
    KubernetesClient admin = cluster.client();
    try {
      List<String> left =
          ClusterSteps.uninstallAsTheReadmeSays(
              cluster,
              READY,
              () -> {
                List<String> all = new ArrayList<>(InClusterIT.releaseLeftovers());
                all.removeAll(leftoversBefore);
                return all;
              });
      // The components' client certificates (kafka.tls.certManager.issuerRef), nothing else.
      assertThat(left)
          .as("what helm uninstall left")
          .containsExactlyInAnyOrder(
              "secret/ne-network-enforcer-kafka-ingest",
              "secret/ne-network-enforcer-kafka-processor",
              "secret/ne-network-enforcer-kafka-writer");
    } finally {
      stopRelay(admin);
      Path pki = dir.resolve("kafka-pki.yaml");
      if (Files.exists(pki)) {
        cluster.kubectl("delete", "--ignore-not-found", "-f", pki.toString());
      }
      admin.secrets().inNamespace("cert-manager").withName(ISSUER).delete();
      admin.namespaces().withName(KAFKA).delete();
    }
  }

  String summary() {
    return String.format(
        "in-cluster (distributed): installs %d/%d ready, flows %d, proposals %d, restarts %d, "
            + "lost %d, doubled %d",
        readyInstalls,
        installs,
        relay == null ? 0 : relay.flowsSent(),
        learned == null ? 0 : learned.size(),
        restarts,
        lost,
        doubled);
  }

  String timings() {
    return "in-cluster timings (distributed): "
        + timings.entrySet().stream()
            .map(e -> e.getKey() + " " + e.getValue().toMillis() + " ms")
            .collect(Collectors.joining("; "));
  }

  void close() throws InterruptedException {
    if (relay != null) {
      relay.close();
    }
  }

  // --- steps ---------------------------------------------------------------------------------

  /**
   * The release of the story before (same name and namespace: the CRDs it keeps belong to it) goes
   * first.
   */
  private void uninstallTheEarlierRelease(KubernetesClient admin) {
    boolean installed =
        !admin
            .secrets()
            .inNamespace(InClusterIT.NAMESPACE)
            .withLabel("owner", "helm")
            .withLabel("name", InClusterIT.RELEASE)
            .list()
            .getItems()
            .isEmpty();
    if (installed) {
      List<String> left =
          ClusterSteps.uninstallAsTheReadmeSays(cluster, READY, InClusterIT::releaseLeftovers);
      System.out.println("in-cluster (distributed): the earlier release left " + left);
    }
  }

  /** SIGKILL to the pod's container; the kubelet must restart it and the pod be Ready again. */
  private void killAndAwaitReady(KubernetesClient admin, String namespace, String name) {
    Pod pod = admin.pods().inNamespace(namespace).withName(name).get();
    assertThat(pod).as("pod %s/%s", namespace, name).isNotNull();
    var main = pod.getStatus().getContainerStatuses().get(0);
    int before = main.getRestartCount();
    Instant killed = Instant.now();
    cluster.killContainer(main.getContainerID());
    cluster.await(
        name + " restarted by the kubelet and Ready",
        READY,
        () -> {
          Pod now = admin.pods().inNamespace(namespace).withName(name).get();
          return now != null
              && now.getStatus().getContainerStatuses().get(0).getRestartCount() > before
              && InClusterIT.ready(now);
        });
    Duration took = Duration.between(killed, Instant.now());
    timings.put("SIGKILL " + name + " to Ready", took);
    System.out.printf(
        "in-cluster (distributed): %s SIGKILLed, restarted and Ready in %d ms%n",
        name, took.toMillis());
  }

  /** The writer pod holding the leader Lease (the one consuming and writing). */
  private String writerLeader(KubernetesClient admin) {
    Lease lease =
        admin
            .leases()
            .inNamespace(InClusterIT.NAMESPACE)
            .withName("ne-network-enforcer-writer")
            .get();
    String holder = lease == null ? null : lease.getSpec().getHolderIdentity();
    return component(admin, "writer").stream()
        .map(p -> p.getMetadata().getName())
        .filter(n -> holder != null && holder.startsWith(n))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no writer pod holds the Lease: " + holder));
  }

  private static List<Pod> component(KubernetesClient admin, String component) {
    return releasePods(admin).stream()
        .filter(
            p -> component.equals(p.getMetadata().getLabels().get("app.kubernetes.io/component")))
        .toList();
  }

  /** The sample capture with its namespace {@code demo} renamed {@value #APPS}. */
  private Path movedCapture() throws IOException {
    List<String> lines = new ArrayList<>();
    for (String line : Files.readAllLines(CliRun.sample("hubble-flows.jsonl"))) {
      lines.add(line.replace("\"demo\"", "\"" + APPS + "\"").replace("=demo\"", "=" + APPS + "\""));
    }
    return Files.write(dir.resolve("hubble-flows-" + APPS + ".jsonl"), lines);
  }

  /** The capture's first {@code count} flows again, now, with new ids: what the relay sees next. */
  private List<String> laterFlows(int count) throws IOException {
    List<String> out = new ArrayList<>();
    for (String line : Files.readAllLines(capture)) {
      JsonNode record = JSON.readTree(line);
      if (!record.has("flow") || out.size() == count) {
        continue;
      }
      ObjectNode flow = (ObjectNode) record.get("flow").deepCopy();
      String now = Instant.now().plusMillis(out.size()).toString();
      flow.put("time", now);
      flow.put("uuid", java.util.UUID.randomUUID().toString());
      ObjectNode copy = JSON.createObjectNode();
      copy.set("flow", flow);
      copy.put("node_name", record.path("node_name").asText());
      copy.put("time", now);
      out.add(JSON.writeValueAsString(copy));
    }
    return out;
  }

  private Map<String, WorkloadNetworkPolicyProposal> learn(Path input) throws IOException {
    Path out = dir.resolve("learned-" + input.getFileName());
    CliRun run = CliRun.run("learn", "--input", input.toString(), "--output-dir", out.toString());
    assertThat(run.exitCode()).as(run.err()).isZero();
    Map<String, WorkloadNetworkPolicyProposal> proposals = ClusterSteps.learnedIn(out);
    assertThat(proposals.keySet()).anyMatch(k -> k.startsWith(APPS + "/"));
    return proposals;
  }

  /**
   * A relay stand-in of its own serving the moved capture, with the TLS material of the first
   * install's relay (the client Secret the chart reads by default); the {@code hubble-relay}
   * Service's endpoint points at it until the release is gone.
   */
  private void serveRelay(KubernetesClient admin) {
    relay =
        HubbleRelayStandIn.serveTls(
            capture,
            cluster.nodeAddress(),
            0,
            Objects.requireNonNull(InClusterIT.relayCertificate, "the first install's relay TLS"),
            InClusterIT.relayKey,
            InClusterIT.relayClientCa);
    relayPortBefore = endpointPort(admin, relay.port());
  }

  private void stopRelay(KubernetesClient admin) throws InterruptedException {
    if (relayPortBefore > 0) {
      endpointPort(admin, relayPortBefore);
      relayPortBefore = -1;
    }
    close();
  }

  /** Points the relay stand-in's EndpointSlice at that port; returns the port it had. */
  private static int endpointPort(KubernetesClient admin, int port) {
    int[] before = {-1};
    admin
        .discovery()
        .v1()
        .endpointSlices()
        .inNamespace("kube-system")
        .withName("hubble-relay-stand-in")
        .edit(
            (EndpointSlice slice) -> {
              before[0] = slice.getPorts().get(0).getPort();
              slice.getPorts().get(0).setPort(port);
              return slice;
            });
    return before[0];
  }

  private void awaitExact(
      KubernetesClient admin, Map<String, WorkloadNetworkPolicyProposal> expected) {
    ClusterSteps.awaitExactProposals(
        cluster,
        "the moved capture's proposals in " + APPS,
        PIPELINE,
        expected,
        () -> {
          // Every proposal of the moved namespace, and learn's others (coredns's in kube-system).
          Map<String, WorkloadNetworkPolicyProposal> stored = new TreeMap<>();
          admin
              .resources(WorkloadNetworkPolicyProposal.class)
              .inAnyNamespace()
              .list()
              .getItems()
              .forEach(
                  p -> {
                    String key = p.getMetadata().getNamespace() + "/" + p.getMetadata().getName();
                    if (key.startsWith(APPS + "/") || expected.containsKey(key)) {
                      stored.put(key, p);
                    }
                  });
          return stored;
        },
        (l, d) -> {
          lost = l;
          doubled = d;
        },
        () -> ClusterSteps.releaseLogs(cluster, 60));
  }

  // --- Kafka ---------------------------------------------------------------------------------

  /**
   * The admin's client: its certificate and PKCS#1 key as cert-manager wrote them, read through the
   * product's config provider as the chart's properties files do.
   */
  private Properties adminProperties() throws IOException {
    Secret secret = cluster.client().secrets().inNamespace(KAFKA).withName("kafka-admin-tls").get();
    Path files = Files.createDirectories(dir.resolve("kafka-admin"));
    for (String key : List.of("tls.crt", "tls.key", "ca.crt")) {
      Files.writeString(files.resolve(key), decoded(secret, key));
    }
    Properties p = new Properties();
    p.put("bootstrap.servers", clusterIp + ":" + PORT);
    p.put("security.protocol", "SSL");
    p.put("config.providers", "dir");
    p.put("config.providers.dir.class", PemKeyDirectoryConfigProvider.class.getName());
    p.put("ssl.truststore.type", "PEM");
    p.put("ssl.truststore.location", files.resolve("ca.crt").toString());
    p.put("ssl.keystore.type", "PEM");
    p.put("ssl.keystore.certificate.chain", "${dir:" + files + ":tls.crt}");
    p.put("ssl.keystore.key", "${dir:" + files + ":tls.key}");
    return p;
  }

  private static NewTopic topic(String name, String cleanup, Duration retention, String minIsr) {
    Map<String, String> configs = new TreeMap<>();
    configs.put("cleanup.policy", cleanup);
    configs.put("min.insync.replicas", minIsr);
    if (retention != null) {
      configs.put("retention.ms", Long.toString(retention.toMillis()));
    }
    return new NewTopic(PREFIX + name, PARTITIONS, REPLICATION).configs(configs);
  }

  /** The Kafka principal of a component: its certificate's subject as the broker maps it. */
  private static String principal(String component) {
    return "User:CN=ne-network-enforcer-kafka-" + component;
  }

  /** R(ead), W(rite), D(escribe) on those topics of the prefix. */
  private static List<AclBinding> topicAcls(
      String principal, List<String> topics, String... operations) {
    List<AclBinding> out = new ArrayList<>();
    for (String topic : topics) {
      for (String op : operations) {
        AclOperation operation =
            switch (op) {
              case "R" -> AclOperation.READ;
              case "W" -> AclOperation.WRITE;
              case "D" -> AclOperation.DESCRIBE;
              default -> throw new IllegalArgumentException(op);
            };
        out.add(
            allow(principal, ResourceType.TOPIC, PREFIX + topic, PatternType.LITERAL, operation));
      }
    }
    return out;
  }

  private static AclBinding allow(
      String principal,
      ResourceType type,
      String name,
      PatternType pattern,
      AclOperation operation) {
    return new AclBinding(
        new ResourcePattern(type, name, pattern),
        new AccessControlEntry(principal, "*", operation, AclPermissionType.ALLOW));
  }

  // --- Kubernetes ----------------------------------------------------------------------------

  /** Applies one of the manifests beside this class, its {@code {{...}}} filled in. */
  private void apply(String manifest) throws IOException {
    String yaml;
    try (InputStream in = DistributedRelease.class.getResourceAsStream(manifest)) {
      yaml =
          new String(Objects.requireNonNull(in, manifest).readAllBytes(), StandardCharsets.UTF_8);
    }
    yaml = yaml.replace("{{CLUSTER_IP}}", clusterIp).replace("{{IMAGE}}", kafkaImage);
    Path file = Files.writeString(dir.resolve(manifest), yaml);
    System.out.println(cluster.kubectl("apply", "-f", file.toString()));
  }

  private static boolean issued(Secret secret) {
    return secret != null
        && secret.getData() != null
        && secret.getData().containsKey("tls.crt")
        && !secret.getData().get("tls.crt").isEmpty();
  }

  private static String decoded(Secret secret, String key) {
    return new String(
        Base64.getDecoder().decode(secret.getData().get(key)), StandardCharsets.UTF_8);
  }

  private static Pod kafkaPod(KubernetesClient admin) {
    return admin.pods().inNamespace(KAFKA).withName(KAFKA).get();
  }

  private static boolean ready(Pod pod) {
    return pod != null && InClusterIT.ready(pod);
  }
}
