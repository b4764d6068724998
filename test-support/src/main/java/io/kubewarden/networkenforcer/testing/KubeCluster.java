package io.kubewarden.networkenforcer.testing;

import io.fabric8.kubernetes.api.model.ContainerState;
import io.fabric8.kubernetes.api.model.ContainerStateTerminated;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real single-node Kubernetes cluster for tests: the control plane of {@link KubeApiServer}
 * (advertised on the host's address, Node and RBAC authorization, every default controller),
 * kube-scheduler, a kubelet running pods through a containerd of its own (cgroup v1, cgroupfs), CNI
 * bridge networking, kube-proxy (iptables) for Services, NetworkPolicies enforced by {@link
 * NetworkPolicyEnforcer} (kube-network-policies), CoreDNS and local-path-provisioner as the default
 * StorageClass. Binaries and images come from {@code hack/tools/kube.sh} and {@code
 * hack/tools/cluster.sh}; images are imported from tarballs, nothing is pulled. Needs root.
 *
 * <p>One cluster per JVM: {@link #shared()} starts it on first use and stops it when the JVM exits.
 * Stopping puts the host back as it was: pods stopped before the kubelet, each process stopped by
 * its PID, {@code kube-proxy --cleanup}, then {@link HostState} (sysctls, iptables chains, the
 * bridge, mounts, cgroups, host directories).
 */
public final class KubeCluster implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(KubeCluster.class);
  public static final String NODE_NAME = "ne-test-node";
  public static final String STORAGE_CLASS = "local-path";
  static final String POD_SUBNET = "10.244.0.0/24";
  static final String DNS_SERVICE_IP = "10.96.0.10";
  static final String BRIDGE = "ne-cni0";

  /**
   * Where the kubelet writes container logs: the kubelet's default, so a log collector that mounts
   * the host's /var/log (the chart's fluent-bit) can follow the /var/log/containers links into it.
   * {@link HostState} removes it again when the cluster stops.
   */
  static final Path POD_LOGS = Path.of("/var/log/pods");

  static final String CSI_DRIVER = "cert-manager-csi-driver";
  private static final Duration CERT_MANAGER_READY = Duration.ofMinutes(3);
  private static final Duration POLL = Duration.ofMillis(500);
  private static final Duration NODE_READY = Duration.ofMinutes(3);
  private static final Duration ADDONS_READY = Duration.ofMinutes(3);
  private static final Duration DRAIN = Duration.ofSeconds(90);
  private static final Duration NETWORK_POLICIES = Duration.ofMinutes(1);
  private static final String KUBELET_CLIENT = "kube-apiserver-kubelet-client";

  private static KubeCluster shared;

  private final Path workDir;
  private final Path stateDir;
  private final String nodeAddress;
  private final ClusterPki pki = new ClusterPki();
  private final Map<String, Duration> timings = Collections.synchronizedMap(new LinkedHashMap<>());
  private final List<ManagedProcess> nodeProcesses = new ArrayList<>();
  private HostState host;
  private ClusterContainerd containerd;
  private KubeApiServer api;
  private ManagedProcess scheduler;
  private Path kubeletDir;
  private boolean certManager;
  private NetworkPolicyEnforcer networkPolicies;
  private boolean closed;

  private KubeCluster() {
    try {
      workDir = Files.createTempDirectory("ne-kube-cluster-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    // Short: containerd's sockets live there (a unix socket path holds 108 bytes).
    stateDir = Path.of("/run", "ne-kc-" + ProcessHandle.current().pid());
    nodeAddress = hostAddress();
  }

  /** The JVM's cluster, started on first use (minutes) and stopped when the JVM exits. */
  public static synchronized KubeCluster shared() {
    if (shared == null) {
      KubeCluster cluster = new KubeCluster();
      Runtime.getRuntime().addShutdownHook(new Thread(cluster::close, "stop-kube-cluster"));
      shared = cluster.start();
    }
    if (shared.closed) {
      throw new IllegalStateException("the shared cluster was stopped");
    }
    return shared;
  }

  /** The admin ({@code system:masters}) client; closed with the cluster. */
  public KubernetesClient client() {
    return api.client();
  }

  /** A kubeconfig of the admin user (for helm and kubectl). */
  public Path kubeconfig() {
    return api.kubeconfig();
  }

  /** The control plane, for the clients and kubeconfigs it hands out. */
  public KubeApiServer apiServer() {
    return api;
  }

  /** The pause image, already on the node: a container that only waits, for stand-in workloads. */
  public String pauseImage() {
    return ClusterImages.reference(ClusterImages.PAUSE);
  }

  /** The node's (and the API server's) address on the host. */
  public String nodeAddress() {
    return nodeAddress;
  }

  /** How long each start step took, in order (cluster start, image imports, ...). */
  public Map<String, Duration> timings() {
    synchronized (timings) {
      return Map.copyOf(new LinkedHashMap<>(timings));
    }
  }

  /**
   * Imports an image tarball (Docker archive or OCI) into the node's containerd; returns how long
   * it took.
   */
  public Duration importImage(Path tarball) {
    Instant start = Instant.now();
    containerd.importImage(tarball);
    Duration took = Duration.between(start, Instant.now());
    timings.put("import " + tarball.getFileName(), took);
    LOG.info("imported {} into the node's containerd in {} ms", tarball, took.toMillis());
    return took;
  }

  /**
   * Imports an image of the local Docker engine (e.g. the one the build loaded there) through a
   * tarball of {@code docker save}; returns how long save and import took together.
   */
  public Duration importDockerImage(String reference) {
    Instant start = Instant.now();
    Path tarball =
        workDir.resolve("docker-" + reference.replaceAll("[^A-Za-z0-9_.-]", "_") + ".tar");
    HostCommand.run("docker", "save", "--output", tarball.toString(), reference).requireOk();
    try {
      containerd.importImage(tarball);
    } finally {
      HostState.deleteRecursively(tarball);
    }
    Duration took = Duration.between(start, Instant.now());
    timings.put("import " + reference, took);
    LOG.info(
        "imported {} from Docker into the node's containerd in {} ms", reference, took.toMillis());
    return took;
  }

  /**
   * Imports an image {@code hack/tools/cluster.sh} wrote (its {@code <name>.tar}, tagged as its
   * {@code <name>.image} says, e.g. the chart's default collector reference); returns the
   * reference.
   */
  public String importClusterImage(String name) {
    importImage(ClusterImages.tarball(name));
    return ClusterImages.reference(name);
  }

  /**
   * Tags an image already on the node with another reference (an image under the chart's default
   * name).
   */
  public void tagImage(String source, String target) {
    containerd.ctr("images", "tag", "--force", source, target).requireOk();
  }

  /**
   * cert-manager as the chart's default TLS mode (issuer) needs it, once per cluster: its CRDs as
   * released, its controller (image built from the released module) and the CSI driver {@code
   * csi.cert-manager.io}: a stand-in on the host (cluster.sh) registered with the kubelet through
   * the plugin-registration socket, which requests each volume's certificate from cert-manager. It
   * runs as a node process so it outlives the pods whose volumes it unpublishes when the node
   * drains.
   */
  public synchronized void installCertManager() {
    if (certManager) {
      return;
    }
    timed(
        "cert-manager",
        () -> {
          Path crds = KubeTools.toolsDir().resolve("cluster").resolve("cert-manager-crds");
          try (var files = Files.list(crds)) {
            for (Path crd : files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
              try (InputStream in = Files.newInputStream(crd)) {
                client().load(in).forceConflicts().serverSideApply();
              }
            }
          } catch (IOException e) {
            throw new UncheckedIOException(
                "cannot read cert-manager's CRDs in "
                    + crds
                    + ": run `"
                    + KubeTools.CLUSTER_BUILD_SCRIPT
                    + "`",
                e);
          }
          runKubectl(
                  "wait",
                  "--for=condition=Established",
                  "--timeout=60s",
                  "crd",
                  "certificates.cert-manager.io",
                  "certificaterequests.cert-manager.io",
                  "issuers.cert-manager.io",
                  "clusterissuers.cert-manager.io")
              .requireOk();
          apply(
              "cert-manager.yaml",
              Map.of(
                  "CONTROLLER_IMAGE", importClusterImage(ClusterImages.CERT_MANAGER_CONTROLLER)));
          startProcess(
              CSI_DRIVER,
              List.of(
                  KubeTools.require(CSI_DRIVER).toString(),
                  "--kubelet-dir=" + kubeletDir,
                  "--kubeconfig=" + kubeconfig(),
                  "--node-id=" + NODE_NAME));
          await(
              "cert-manager available and " + CSI_DRIVER + " registered with the kubelet",
              CERT_MANAGER_READY,
              () ->
                  available("cert-manager", "cert-manager")
                      && csiDriverRegistered("csi.cert-manager.io"));
        });
    certManager = true;
  }

  /**
   * Starts the NetworkPolicy enforcer ({@link NetworkPolicyEnforcer}, kube-network-policies on the
   * host) unless it runs: from then on NetworkPolicies hold for new connections (established ones
   * stay). The cluster starts it with the node; the bridge CNI alone lets everything through. It
   * runs as the admin user (it reads pods, namespaces and policies of every namespace and writes
   * Events) until {@link #stopEnforcingNetworkPolicies()} or the cluster stops.
   */
  public synchronized void enforceNetworkPolicies() {
    if (networkPolicies != null) {
      return;
    }
    timed(
        "network policy enforcer",
        () ->
            networkPolicies =
                NetworkPolicyEnforcer.start(
                    kubeconfig(), NODE_NAME, POD_SUBNET, workDir, NETWORK_POLICIES));
    nodeProcesses.add(networkPolicies.process());
  }

  /** Stops the enforcer and removes its nftables table: every connection is allowed again. */
  public synchronized void stopEnforcingNetworkPolicies() {
    if (networkPolicies == null) {
      return;
    }
    nodeProcesses.remove(networkPolicies.process());
    networkPolicies.close();
    networkPolicies = null;
  }

  private boolean csiDriverRegistered(String driver) {
    var node = client().storage().v1().csiNodes().withName(NODE_NAME).get();
    return node != null
        && node.getSpec().getDrivers() != null
        && node.getSpec().getDrivers().stream().anyMatch(d -> driver.equals(d.getName()));
  }

  /**
   * Sends SIGKILL to a container's main process (its id as in the pod status, {@code containerd://}
   * or bare).
   */
  public void killContainer(String containerId) {
    String id = containerId.replaceFirst("^containerd://", "");
    containerd.ctr("tasks", "kill", "--signal", "SIGKILL", id).requireOk();
  }

  /**
   * Runs the cluster's kubectl as the admin user; its output (stdout and stderr), failing when it
   * fails.
   */
  public String kubectl(String... args) {
    return runKubectl(args).requireOk().output();
  }

  private HostCommand.Result runKubectl(String... args) {
    List<String> command =
        new ArrayList<>(
            List.of(
                KubeTools.require(KubeTools.KUBECTL).toString(), "--kubeconfig=" + kubeconfig()));
    command.addAll(List.of(args));
    return HostCommand.run(command);
  }

  /**
   * What the stop left different on the host, empty when it put everything back (after {@link
   * #close()}).
   */
  public List<String> hostDifferences() {
    return host == null ? List.of() : host.differences();
  }

  private KubeCluster start() {
    requireRoot();
    List.of(
            KubeTools.ETCD,
            KubeTools.KUBE_APISERVER,
            KubeTools.KUBE_CONTROLLER_MANAGER,
            KubeTools.KUBELET,
            KubeTools.KUBE_SCHEDULER,
            KubeTools.KUBE_PROXY,
            KubeTools.KUBECTL)
        .forEach(KubeTools::require);
    List.of(
            ClusterImages.PAUSE,
            ClusterImages.COREDNS,
            ClusterImages.LOCAL_PATH_PROVISIONER,
            ClusterImages.LOCAL_PATH_HELPER)
        .forEach(ClusterImages::tarball);
    Instant started = Instant.now();
    try {
      host = HostState.record(BRIDGE, List.of(workDir, stateDir));
      startContainerd();
      timed("control plane", this::startControlPlane);
      timed("node Ready", this::startNode);
      // NetworkPolicies hold from the first pod on (the bridge CNI enforces none by itself).
      enforceNetworkPolicies();
      timed("addons ready", this::startAddons);
      timings.put("cluster start", Duration.between(started, Instant.now()));
      LOG.info(
          "cluster {} ready at {} in {} ms ({})",
          NODE_NAME,
          api.url(),
          Duration.between(started, Instant.now()).toMillis(),
          timings);
      return this;
    } catch (RuntimeException e) {
      LOG.error("the cluster did not start: {}", e.getMessage());
      close();
      throw e;
    }
  }

  private void timed(String step, Runnable action) {
    Instant start = Instant.now();
    action.run();
    timings.put(step, Duration.between(start, Instant.now()));
  }

  private static void requireRoot() {
    HostCommand.Result id = HostCommand.run("id", "-u");
    if (!id.ok() || !id.output().strip().equals("0")) {
      throw new IllegalStateException(
          "KubeCluster runs a kubelet, containerd and kube-proxy: it needs root (id -u: "
              + id.output().strip()
              + ")");
    }
  }

  private void startContainerd() {
    Path cniConf = workDir.resolve("cni").resolve("net.d");
    writeFile(
        cniConf.resolve("10-ne-test.conflist"),
        PodNetwork.conflist(BRIDGE, POD_SUBNET, workDir.resolve("cni").resolve("ipam")));
    containerd = new ClusterContainerd(workDir, stateDir, cniConf);
    String pause = ClusterImages.reference(ClusterImages.PAUSE);
    timed("containerd", () -> containerd.start(pause));
    timed(
        "import cluster images",
        () ->
            List.of(
                    ClusterImages.PAUSE,
                    ClusterImages.COREDNS,
                    ClusterImages.LOCAL_PATH_PROVISIONER,
                    ClusterImages.LOCAL_PATH_HELPER)
                .forEach(name -> containerd.importImage(ClusterImages.tarball(name))));
  }

  private void startControlPlane() {
    Path pkiDir = workDir.resolve("pki");
    ClusterPki.Credential kubeletClient = pki.client(KUBELET_CLIENT, KubeApiServer.MASTERS_GROUP);
    writeFile(pkiDir.resolve("ca.crt"), pki.caPem());
    writeFile(pkiDir.resolve("sa.key"), pki.serviceAccountPrivateKeyPem());
    writeFile(pkiDir.resolve("kubelet-client.crt"), kubeletClient.certificatePem());
    writeFile(pkiDir.resolve("kubelet-client.key"), kubeletClient.privateKeyPem());
    api =
        KubeApiServer.builder()
            .pki(pki)
            .bindAddress(nodeAddress)
            .stopOnExitByCaller()
            .startupTimeout(Duration.ofMinutes(2))
            .authorizationMode("Node,RBAC")
            .admissionPlugins("NamespaceLifecycle,ValidatingAdmissionPolicy,NodeRestriction")
            .apiServerArg("--kubelet-client-certificate=" + pkiDir.resolve("kubelet-client.crt"))
            .apiServerArg("--kubelet-client-key=" + pkiDir.resolve("kubelet-client.key"))
            .apiServerArg("--kubelet-preferred-address-types=InternalIP")
            .withControllerManager()
            .controllers("*")
            .controllerManagerArg("--root-ca-file=" + pkiDir.resolve("ca.crt"))
            .controllerManagerArg("--service-account-private-key-file=" + pkiDir.resolve("sa.key"))
            .controllerManagerArg("--node-monitor-grace-period=60s")
            .start();
    Path schedulerConfig = componentKubeconfig("kube-scheduler", "system:kube-scheduler");
    scheduler =
        startProcess(
            KubeTools.KUBE_SCHEDULER,
            List.of(
                KubeTools.require(KubeTools.KUBE_SCHEDULER).toString(),
                "--kubeconfig=" + schedulerConfig,
                "--authentication-kubeconfig=" + schedulerConfig,
                "--authorization-kubeconfig=" + schedulerConfig,
                "--leader-elect=false",
                "--bind-address=127.0.0.1",
                "--secure-port=" + LoopbackPorts.free()));
  }

  private void startNode() {
    kubeletDir = workDir.resolve("kubelet");
    Path kubeletConfig = workDir.resolve("kubelet.yaml");
    writeFile(
        kubeletConfig,
        NodeConfig.kubelet(
            containerd.endpoint(),
            nodeAddress,
            LoopbackPorts.free(),
            LoopbackPorts.free(),
            workDir.resolve("pki").resolve("ca.crt"),
            DNS_SERVICE_IP,
            POD_SUBNET,
            POD_LOGS));
    startProcess(
        KubeTools.KUBELET,
        List.of(
            KubeTools.require(KubeTools.KUBELET).toString(),
            "--config=" + kubeletConfig,
            "--kubeconfig="
                + componentKubeconfig("kubelet", "system:node:" + NODE_NAME, "system:nodes"),
            "--root-dir=" + kubeletDir,
            "--hostname-override=" + NODE_NAME,
            "--node-ip=" + nodeAddress,
            "--v=1"));
    Path proxyConfig = workDir.resolve("kube-proxy.yaml");
    writeFile(
        proxyConfig,
        NodeConfig.kubeProxy(
            componentKubeconfig("kube-proxy", "system:kube-proxy"),
            NODE_NAME,
            POD_SUBNET,
            LoopbackPorts.free(),
            LoopbackPorts.free()));
    startProcess(
        KubeTools.KUBE_PROXY,
        List.of(
            KubeTools.require(KubeTools.KUBE_PROXY).toString(),
            "--config=" + proxyConfig,
            "--v=1"));
    await("node " + NODE_NAME + " Ready", NODE_READY, this::nodeReady);
  }

  private boolean nodeReady() {
    var node = client().nodes().withName(NODE_NAME).get();
    if (node == null || node.getStatus() == null || node.getStatus().getConditions() == null) {
      return false;
    }
    return node.getStatus().getConditions().stream()
        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  private void startAddons() {
    apply(
        "coredns.yaml",
        Map.of(
            "COREDNS_IMAGE",
            ClusterImages.reference(ClusterImages.COREDNS),
            "DNS_SERVICE_IP",
            DNS_SERVICE_IP));
    apply(
        "local-path.yaml",
        Map.of(
            "PROVISIONER_IMAGE",
            ClusterImages.reference(ClusterImages.LOCAL_PATH_PROVISIONER),
            "HELPER_IMAGE",
            ClusterImages.reference(ClusterImages.LOCAL_PATH_HELPER),
            "VOLUME_DIR",
            workDir.resolve("volumes").toString()));
    await(
        "CoreDNS and local-path-provisioner available",
        ADDONS_READY,
        () ->
            available("kube-system", "coredns")
                && available("local-path-storage", "local-path-provisioner"));
  }

  private boolean available(String namespace, String name) {
    Deployment deployment =
        client().apps().deployments().inNamespace(namespace).withName(name).get();
    return deployment != null
        && deployment.getStatus() != null
        && Objects.equals(
            deployment.getStatus().getAvailableReplicas(), deployment.getSpec().getReplicas());
  }

  private void apply(String resource, Map<String, String> values) {
    String yaml;
    try (InputStream in = KubeCluster.class.getResourceAsStream("cluster/" + resource)) {
      yaml =
          new String(Objects.requireNonNull(in, resource).readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    for (Map.Entry<String, String> value : values.entrySet()) {
      yaml = yaml.replace("{{" + value.getKey() + "}}", value.getValue());
    }
    client()
        .load(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8)))
        .forceConflicts()
        .serverSideApply();
  }

  /** Polls until the condition holds, failing with the node's logs when the deadline passes. */
  public void await(String what, Duration timeout, BooleanSupplier condition) {
    Instant deadline = Instant.now().plus(timeout);
    RuntimeException last = null;
    while (Instant.now().isBefore(deadline)) {
      nodeProcesses.forEach(ManagedProcess::requireAlive);
      try {
        if (condition.getAsBoolean()) {
          return;
        }
      } catch (KubernetesClientException e) {
        last = e;
      }
      LockSupport.parkNanos(POLL.toNanos());
    }
    throw new IllegalStateException(
        what
            + ": not within "
            + timeout
            + (last == null ? "" : " (last error: " + last + ")")
            + "\n"
            + diagnostics());
  }

  /**
   * Pods, events and the end of the node's logs: what a failed wait needs to be understood. The
   * containers that are not ready come first, with their last log lines (the previous, crashed
   * container's too): CI shows only the head of a failure message.
   */
  public String diagnostics() {
    StringBuilder text = new StringBuilder();
    if (api != null) {
      text.append(unreadyContainers());
      text.append("--- pods ---\n").append(runKubectl("get", "pods", "-A", "-o", "wide").output());
      text.append("--- events ---\n")
          .append(runKubectl("get", "events", "-A", "--sort-by=.lastTimestamp").output());
    }
    for (ManagedProcess process : nodeProcesses) {
      text.append("\n--- ").append(process.name()).append(" ---\n").append(process.logTail());
    }
    if (containerd != null) {
      text.append("\n--- containerd ---\n").append(containerd.logTail());
    }
    return text.toString();
  }

  /** Each container not ready: its state, its last exit and the end of its logs. */
  private String unreadyContainers() {
    StringBuilder text = new StringBuilder();
    List<Pod> pods;
    try {
      pods = client().pods().inAnyNamespace().list().getItems();
    } catch (KubernetesClientException e) {
      return "--- containers not ready: cannot list pods: " + e.getMessage() + " ---\n";
    }
    for (Pod pod : pods) {
      if (pod.getStatus() == null || "Succeeded".equals(pod.getStatus().getPhase())) {
        continue;
      }
      String namespace = pod.getMetadata().getNamespace();
      String name = pod.getMetadata().getName();
      for (ContainerStatus container : pod.getStatus().getContainerStatuses()) {
        if (Boolean.TRUE.equals(container.getReady())) {
          continue;
        }
        text.append("--- not ready: ")
            .append(namespace)
            .append('/')
            .append(name)
            .append(' ')
            .append(container.getName())
            .append(", restarts ")
            .append(container.getRestartCount())
            .append(", state ")
            .append(describe(container.getState()))
            .append(", last ")
            .append(describe(container.getLastState()))
            .append(" ---\n");
        if (container.getRestartCount() != null && container.getRestartCount() > 0) {
          text.append("(previous container)\n")
              .append(containerLogs(namespace, name, container.getName(), true, 25));
        }
        text.append("(current container)\n")
            .append(containerLogs(namespace, name, container.getName(), false, 25));
      }
    }
    return text.toString();
  }

  /**
   * The last {@code lines} log lines of a pod's container ({@code null}: every container), of the
   * previous (crashed or killed) one when {@code previous}; kubectl's error text when there are
   * none.
   */
  public String containerLogs(
      String namespace, String pod, String container, boolean previous, int lines) {
    List<String> args =
        new ArrayList<>(
            List.of("logs", "-n", namespace, pod, "--tail=" + lines, "--previous=" + previous));
    args.addAll(container == null ? List.of("--all-containers") : List.of("-c", container));
    String output = runKubectl(args.toArray(String[]::new)).output();
    return output.endsWith("\n") ? output : output + "\n";
  }

  private static String describe(ContainerState state) {
    if (state == null) {
      return "none";
    }
    if (state.getTerminated() != null) {
      ContainerStateTerminated end = state.getTerminated();
      return "terminated (exit "
          + end.getExitCode()
          + ", "
          + end.getReason()
          + (end.getMessage() == null ? "" : ": " + end.getMessage().strip())
          + ")";
    }
    if (state.getWaiting() != null) {
      return "waiting (" + state.getWaiting().getReason() + ")";
    }
    return state.getRunning() != null ? "running" : "none";
  }

  private Path componentKubeconfig(String name, String user, String... groups) {
    return KubeconfigFile.withCertificate(
        workDir.resolve(name + ".kubeconfig"),
        api.url(),
        pki.caPem(),
        pki.client(user, groups),
        user);
  }

  private ManagedProcess startProcess(String name, List<String> command) {
    ManagedProcess process = ManagedProcess.start(name, command, workDir, false);
    nodeProcesses.add(process);
    return process;
  }

  /**
   * Stops everything and puts the host back: the controllers stop (nothing recreates pods), every
   * pod is deleted and the kubelet stops its containers and tears down their networks, then
   * kube-proxy, the kubelet, containerd (and any shim left), the scheduler, the control plane;
   * {@code kube-proxy --cleanup} and {@link HostState#restore()} last.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    Instant start = Instant.now();
    if (api != null) {
      quietly(
          "stop the controllers",
          () -> {
            api.stopControllerManager();
            if (scheduler != null) {
              scheduler.close();
            }
          });
      quietly("drain the node", this::drain);
    }
    // First the enforcer, whose table (rules queueing pod packets to it) must not outlive it.
    quietly("stop the network policy enforcer", this::stopEnforcingNetworkPolicies);
    for (int i = nodeProcesses.size() - 1; i >= 0; i--) {
      ManagedProcess process = nodeProcesses.get(i);
      quietly("stop " + process.name(), process::close);
    }
    if (containerd != null) {
      quietly("remove containers", containerd::removeAllContainers);
      quietly("stop containerd", containerd::close);
    }
    if (api != null) {
      quietly("stop the control plane", api::close);
    }
    quietly(
        "kube-proxy --cleanup",
        () -> {
          if (Files.isExecutable(KubeTools.binDir().resolve(KubeTools.KUBE_PROXY))) {
            HostCommand.run(
                KubeTools.binDir().resolve(KubeTools.KUBE_PROXY).toString(), "--cleanup");
          }
        });
    if (host != null) {
      host.restore();
      List<String> left = host.differences();
      if (!left.isEmpty()) {
        LOG.warn("the host differs from before the cluster: {}", left);
      }
    }
    HostState.deleteRecursively(workDir);
    HostState.deleteRecursively(stateDir);
    LOG.info(
        "cluster stopped and host restored in {} ms",
        Duration.between(start, Instant.now()).toMillis());
  }

  /** Deletes every pod and waits until the kubelet has stopped them all (their sandboxes too). */
  private void drain() {
    if (nodeProcesses.stream().noneMatch(p -> p.name().equals(KubeTools.KUBELET) && p.isAlive())) {
      return;
    }
    for (Pod pod : client().pods().inAnyNamespace().list().getItems()) {
      client()
          .pods()
          .inNamespace(pod.getMetadata().getNamespace())
          .withName(pod.getMetadata().getName())
          .withGracePeriod(5)
          .delete();
    }
    Instant deadline = Instant.now().plus(DRAIN);
    while (Instant.now().isBefore(deadline)
        && (!client().pods().inAnyNamespace().list().getItems().isEmpty()
            || !containerd.tasks().isEmpty())) {
      LockSupport.parkNanos(POLL.toNanos());
    }
    List<String> left = containerd.tasks();
    if (!left.isEmpty()) {
      LOG.warn("tasks still running {} after draining the node: {}", DRAIN, left);
    }
  }

  private static void quietly(String what, Runnable action) {
    try {
      action.run();
    } catch (RuntimeException e) {
      LOG.warn("could not {}: {}", what, e.toString());
    }
  }

  private static void writeFile(Path file, String content) {
    try {
      Files.createDirectories(file.getParent());
      Files.writeString(file, content, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }

  /**
   * The host's first IPv4 address that is not loopback nor a container bridge: a non-loopback
   * advertise address.
   */
  static String hostAddress() {
    try {
      for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
        String name = nic.getName();
        if (!nic.isUp()
            || nic.isLoopback()
            || nic.isVirtual()
            || name.startsWith("docker")
            || name.startsWith("br-")
            || name.startsWith("veth")
            || name.startsWith("cni")
            || name.equals(BRIDGE)) {
          continue;
        }
        for (InetAddress address : Collections.list(nic.getInetAddresses())) {
          if (address instanceof Inet4Address && !address.isLinkLocalAddress()) {
            return address.getHostAddress();
          }
        }
      }
    } catch (SocketException e) {
      throw new IllegalStateException("cannot list the host's network interfaces", e);
    }
    throw new IllegalStateException(
        "the host has no non-loopback IPv4 address for the API server to advertise");
  }
}
