package io.kubewarden.networkenforcer.testing;

import io.fabric8.kubernetes.api.model.authentication.TokenRequest;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntSupplier;
import java.util.stream.Stream;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Kubernetes control plane for tests: etcd and kube-apiserver (optionally
 * kube-controller-manager running the garbage collector and namespace controllers) on loopback,
 * with a freshly generated PKI, RBAC authorization and the ValidatingAdmissionPolicy admission
 * plugin. The binaries come from {@code hack/tools/kube.sh}.
 *
 * <p>Start one per test class ({@code @BeforeAll}) and close it in {@code @AfterAll}:
 *
 * <pre>{@code
 * static KubeApiServer api;
 * @BeforeAll static void start() { api = KubeApiServer.builder().withControllerManager().start(); }
 * @AfterAll static void stop() { api.close(); }
 * }</pre>
 *
 * {@link #client()} is an admin ({@code system:masters}) client; {@link #kubeconfig()} is the same
 * identity as a file for code under test that reads one. Other people authenticate with client
 * certificates ({@link #clientFor}), service accounts with tokens the API server issues ({@link
 * #serviceAccountClient}), as in a cluster.
 */
public final class KubeApiServer implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(KubeApiServer.class);
  private static final Duration POLL = Duration.ofMillis(250);
  private static final int PORT_ATTEMPTS = 3;

  /** What etcd and kube-apiserver (Go's net package) log when a port is bound already. */
  private static final String PORT_TAKEN = "address already in use";

  static final String ADMIN_USER = "network-enforcer-test-admin";
  static final String CONTROLLER_MANAGER_USER = "system:kube-controller-manager";
  static final String MASTERS_GROUP = "system:masters";
  static final String SERVICE_ACCOUNT_USER_PREFIX = "system:serviceaccount:";

  private final Builder settings;
  private final Path workDir;
  private final ClusterPki pki;
  private final List<ManagedProcess> processes = new ArrayList<>();
  private String etcdUrl;
  private String url;
  private Path kubeconfig;
  private KubernetesClient client;
  private ManagedProcess controllerManager;
  private ManagedProcess apiServer;
  private List<String> apiServerCommand;

  private KubeApiServer(Builder settings) {
    this.settings = settings;
    this.pki = settings.pki != null ? settings.pki : new ClusterPki();
    try {
      this.workDir = Files.createTempDirectory("ne-kube-apiserver-");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a work directory", e);
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The API server URL, {@code https://127.0.0.1:<port>} (or the {@link Builder#bindAddress}). */
  public String url() {
    return url;
  }

  /** A kubeconfig file for the admin user, valid until {@link #close()}. */
  public Path kubeconfig() {
    return kubeconfig;
  }

  /** The fabric8 config of the admin user. */
  public Config config() {
    return Config.fromKubeconfig(kubeconfig.toFile());
  }

  /** The shared admin client; closed by {@link #close()}. */
  public KubernetesClient client() {
    return client;
  }

  /** A new admin client the caller closes, e.g. for code under test that owns its client. */
  public KubernetesClient newClient() {
    return new KubernetesClientBuilder().withConfig(config()).build();
  }

  /**
   * A kubeconfig for a person or component outside the cluster, authenticated by a client
   * certificate with that user name (CN, at most 64 characters) and those groups (O); RBAC decides
   * what it may do. Service accounts authenticate with tokens instead, see {@link
   * #serviceAccountKubeconfig}.
   */
  public Path kubeconfigFor(String user, String... groups) {
    return certificateKubeconfig(url, "", user, groups);
  }

  /**
   * A new client (the caller closes it) for that user in those groups, see {@link #kubeconfigFor}.
   */
  public KubernetesClient clientFor(String user, String... groups) {
    return clientOf(kubeconfigFor(user, groups));
  }

  /**
   * A new client (the caller closes it) for that user that reaches the API server through the
   * proxy, so the test can cut it off with {@link LoopbackProxy#cut()}.
   */
  public KubernetesClient clientVia(LoopbackProxy proxy, String user, String... groups) {
    return clientOf(kubeconfigVia(proxy, user, groups));
  }

  /** A kubeconfig for that user pointing at the proxy instead of the API server. */
  public Path kubeconfigVia(LoopbackProxy proxy, String user, String... groups) {
    return certificateKubeconfig(proxy.url(), "via-", user, groups);
  }

  /**
   * A kubeconfig for a service account, authenticated as a pod is: with a bearer token the API
   * server issues for it (TokenRequest). The API server then sees exactly what it sees in a
   * cluster, user {@code system:serviceaccount:<namespace>:<name>} in the groups {@code
   * system:serviceaccounts}, {@code system:serviceaccounts:<namespace>} and {@code
   * system:authenticated}, so RBAC bindings to the account, its namespace or all service accounts
   * apply as they would there. The service account must exist (as a chart creates it).
   */
  public Path serviceAccountKubeconfig(String namespace, String name) {
    return tokenKubeconfig(url, "", namespace, name);
  }

  /**
   * A new client (the caller closes it) as that service account, see {@link
   * #serviceAccountKubeconfig}.
   */
  public KubernetesClient serviceAccountClient(String namespace, String name) {
    return clientOf(serviceAccountKubeconfig(namespace, name));
  }

  /** A kubeconfig for that service account pointing at the proxy instead of the API server. */
  public Path serviceAccountKubeconfigVia(LoopbackProxy proxy, String namespace, String name) {
    return tokenKubeconfig(proxy.url(), "via-", namespace, name);
  }

  private Path certificateKubeconfig(
      String server, String filePrefix, String user, String... groups) {
    if (user.startsWith(SERVICE_ACCOUNT_USER_PREFIX)) {
      // A certificate would give the name without the groups a token carries, and BouncyCastle
      // (RFC 5280) refuses common names over 64 characters, which most such names are.
      throw new IllegalArgumentException(
          user
              + " is a service account: use serviceAccountKubeconfig(namespace, name)"
              + " or serviceAccountClient(namespace, name), which authenticate with a token as in a cluster");
    }
    return KubeconfigFile.withCertificate(
        workDir.resolve(kubeconfigFileName(filePrefix, user)),
        server,
        pki.caPem(),
        pki.client(user, groups),
        user);
  }

  private Path tokenKubeconfig(String server, String filePrefix, String namespace, String name) {
    String user = SERVICE_ACCOUNT_USER_PREFIX + namespace + ":" + name;
    return KubeconfigFile.withToken(
        workDir.resolve(kubeconfigFileName(filePrefix, user)),
        server,
        pki.caPem(),
        serviceAccountToken(namespace, name),
        user);
  }

  /** Asks the API server for a token of that service account, valid as long as the PKI. */
  private String serviceAccountToken(String namespace, String name) {
    TokenRequest request =
        new TokenRequestBuilder()
            .withNewSpec()
            .withExpirationSeconds(ClusterPki.VALIDITY.toSeconds())
            .endSpec()
            .build();
    try {
      return client
          .serviceAccounts()
          .inNamespace(namespace)
          .withName(name)
          .tokenRequest(request)
          .getStatus()
          .getToken();
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404) {
        throw new IllegalStateException(
            "no service account "
                + namespace
                + "/"
                + name
                + ": create it (e.g. the chart's templates/serviceaccounts.yaml) before asking for its token",
            e);
      }
      throw e;
    }
  }

  private static String kubeconfigFileName(String prefix, String user) {
    return prefix
        + user.replaceAll("[^A-Za-z0-9_.-]", "_")
        + "-"
        + System.nanoTime()
        + ".kubeconfig";
  }

  private static KubernetesClient clientOf(Path kubeconfig) {
    return new KubernetesClientBuilder()
        .withConfig(Config.fromKubeconfig(kubeconfig.toFile()))
        .build();
  }

  /** The PKI its certificates come from (a cluster issues its components' identities from it). */
  ClusterPki pki() {
    return pki;
  }

  /**
   * Where its CA certificate ({@code ca.crt}) and service-account keys ({@code sa.key}, {@code
   * sa.pub}) are.
   */
  Path certificateDirectory() {
    return workDir.resolve("pki");
  }

  /** The work directory, removed by {@link #close()}. */
  Path workDirectory() {
    return workDir;
  }

  /** Whether kube-controller-manager runs. */
  public boolean controllerManagerRunning() {
    return controllerManager != null && controllerManager.isAlive();
  }

  /**
   * Starts kube-controller-manager if it does not run yet. The garbage collector discovers new
   * resource types (CRDs) on a 30 s cycle, so start it after installing CRDs when a test needs
   * garbage collection of custom resources quickly.
   */
  public synchronized void startControllerManager() {
    if (controllerManager != null) {
      controllerManager.requireAlive();
      return;
    }
    Path binary = KubeTools.require(KubeTools.KUBE_CONTROLLER_MANAGER);
    // As in a real cluster: its own identity with the bootstrap RBAC role, and each controller
    // under its own service account (the garbage collector is generic-garbage-collector).
    Path config =
        KubeconfigFile.withCertificate(
            workDir.resolve("controller-manager.kubeconfig"),
            url,
            pki.caPem(),
            pki.client(CONTROLLER_MANAGER_USER),
            CONTROLLER_MANAGER_USER);
    List<String> command =
        new ArrayList<>(
            List.of(
                binary.toString(),
                "--kubeconfig=" + config,
                "--controllers=" + String.join(",", settings.controllers),
                "--leader-elect=false",
                "--secure-port=0",
                "--use-service-account-credentials=true",
                "--concurrent-gc-syncs=5"));
    command.addAll(settings.extraControllerManagerArgs);
    controllerManager = startProcess(KubeTools.KUBE_CONTROLLER_MANAGER, command);
    LOG.info(
        "kube-controller-manager {} started with controllers {}",
        KubeTools.version(KubeTools.KUBE_CONTROLLER_MANAGER),
        settings.controllers);
  }

  /** Stops kube-controller-manager, e.g. so nothing recreates the pods a cluster drains. */
  synchronized void stopControllerManager() {
    if (controllerManager != null) {
      processes.remove(controllerManager);
      controllerManager.close();
      controllerManager = null;
    }
  }

  private KubeApiServer start() {
    Path etcdBinary = KubeTools.require(KubeTools.ETCD);
    Path apiServerBinary = KubeTools.require(KubeTools.KUBE_APISERVER);
    if (settings.controllerManager) {
      KubeTools.require(KubeTools.KUBE_CONTROLLER_MANAGER);
    }
    Instant started = Instant.now();
    try {
      startEtcdAndApiServer(etcdBinary, apiServerBinary, started);
      client = newClient();
      if (settings.controllerManager) {
        startControllerManager();
      }
      LOG.info(
          "kube-apiserver {} ready at {} in {} ms",
          KubeTools.version(KubeTools.KUBE_APISERVER),
          url,
          Duration.between(started, Instant.now()).toMillis());
      return this;
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  /**
   * Starts etcd and kube-apiserver on free ports, again on other ports (and a fresh etcd data
   * directory) when one of them exited because its port was taken after it was chosen: the ports
   * are chosen before the processes bind them, and another process on the machine may bind first.
   */
  private void startEtcdAndApiServer(Path etcdBinary, Path apiServerBinary, Instant started) {
    for (int attempt = 1; ; attempt++) {
      try {
        startEtcd(etcdBinary, settings.ports.getAsInt(), settings.ports.getAsInt(), attempt);
        startApiServer(apiServerBinary);
        awaitReady(started.plus(settings.startupTimeout));
        return;
      } catch (IllegalStateException e) {
        if (attempt >= PORT_ATTEMPTS || !String.valueOf(e.getMessage()).contains(PORT_TAKEN)) {
          throw e;
        }
        LOG.warn(
            "a port was taken before etcd or kube-apiserver bound it (attempt {} of {}); starting on other "
                + "ports",
            attempt,
            PORT_ATTEMPTS);
        stopProcesses();
      }
    }
  }

  private void startEtcd(Path binary, int clientPort, int peerPort, int attempt) {
    etcdUrl = "http://127.0.0.1:" + clientPort;
    String peerUrl = "http://127.0.0.1:" + peerPort;
    // Plain HTTP on loopback only, reachable by nothing but the API server of this test.
    startProcess(
        KubeTools.ETCD,
        List.of(
            binary.toString(),
            "--name=test",
            "--data-dir=" + workDir.resolve(attempt == 1 ? "etcd" : "etcd-" + attempt),
            "--listen-client-urls=" + etcdUrl,
            "--advertise-client-urls=" + etcdUrl,
            "--listen-peer-urls=" + peerUrl,
            "--initial-advertise-peer-urls=" + peerUrl,
            "--initial-cluster=test=" + peerUrl,
            "--unsafe-no-fsync=true",
            "--log-level=warn"));
  }

  private void startApiServer(Path binary) {
    int port = settings.ports.getAsInt();
    url = "https://" + settings.bindAddress + ":" + port;
    Path certs = workDir.resolve("pki");
    try {
      Files.createDirectories(certs);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    ClusterPki.Credential serving = pki.server(settings.bindAddress);
    ClusterPki.write(certs.resolve("ca.crt"), pki.caPem());
    ClusterPki.write(certs.resolve("apiserver.crt"), serving.certificatePem());
    ClusterPki.write(certs.resolve("apiserver.key"), serving.privateKeyPem());
    ClusterPki.write(certs.resolve("sa.key"), pki.serviceAccountPrivateKeyPem());
    ClusterPki.write(certs.resolve("sa.pub"), pki.serviceAccountPublicKeyPem());
    kubeconfig =
        KubeconfigFile.withCertificate(
            workDir.resolve("admin.kubeconfig"),
            url,
            pki.caPem(),
            pki.client(ADMIN_USER, MASTERS_GROUP),
            ADMIN_USER);
    List<String> command =
        new ArrayList<>(
            List.of(
                binary.toString(),
                "--etcd-servers=" + etcdUrl,
                "--bind-address=" + settings.bindAddress,
                "--advertise-address=" + settings.bindAddress,
                "--secure-port=" + port,
                "--cert-dir=" + certs,
                "--tls-cert-file=" + certs.resolve("apiserver.crt"),
                "--tls-private-key-file=" + certs.resolve("apiserver.key"),
                "--client-ca-file=" + certs.resolve("ca.crt"),
                "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
                "--service-account-key-file=" + certs.resolve("sa.pub"),
                "--service-account-signing-key-file=" + certs.resolve("sa.key"),
                "--service-cluster-ip-range=" + ClusterPki.SERVICE_RANGE,
                "--authorization-mode=" + settings.authorizationMode,
                "--enable-admission-plugins=" + settings.admissionPlugins,
                "--profiling=false",
                "--enable-priority-and-fairness=false"));
    command.addAll(settings.extraApiServerArgs);
    apiServerCommand = List.copyOf(command);
    apiServer = startProcess(KubeTools.KUBE_APISERVER, command);
  }

  /**
   * Stops kube-apiserver (SIGTERM) and starts it again on the same port, PKI and etcd data, then
   * waits for {@code /readyz}: an API server restart as clients see it (connections drop, watches
   * end, nothing stored is lost).
   */
  public synchronized void restartApiServer() {
    processes.remove(apiServer);
    apiServer.close();
    apiServer = startProcess(KubeTools.KUBE_APISERVER, apiServerCommand);
    awaitReady(Instant.now().plus(settings.startupTimeout));
  }

  private ManagedProcess startProcess(String name, List<String> command) {
    ManagedProcess process = ManagedProcess.start(name, command, workDir, settings.stopOnExit);
    processes.add(process);
    return process;
  }

  /** Polls {@code /readyz} as the admin user until it answers 200 or the deadline passes. */
  private void awaitReady(Instant deadline) {
    SSLContext tls = pki.clientTls(pki.client(ADMIN_USER, MASTERS_GROUP));
    HttpClient http =
        HttpClient.newBuilder().sslContext(tls).connectTimeout(Duration.ofSeconds(2)).build();
    HttpRequest readyz =
        HttpRequest.newBuilder(URI.create(url + "/readyz")).timeout(Duration.ofSeconds(5)).build();
    String last = "no answer yet";
    while (Instant.now().isBefore(deadline)) {
      processes.forEach(ManagedProcess::requireAlive);
      try {
        HttpResponse<String> response = http.send(readyz, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() == 200) {
          return;
        }
        last = "HTTP " + response.statusCode() + ": " + response.body();
      } catch (IOException e) {
        last = e.toString();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for kube-apiserver", e);
      }
      LockSupport.parkNanos(POLL.toNanos());
    }
    StringBuilder logs = new StringBuilder();
    processes.forEach(
        p -> logs.append("\n--- ").append(p.name()).append(" ---\n").append(p.logTail()));
    throw new IllegalStateException(
        "kube-apiserver at "
            + url
            + " not ready within "
            + settings.startupTimeout
            + " (last /readyz: "
            + last
            + ")"
            + logs);
  }

  @Override
  public synchronized void close() {
    if (client != null) {
      client.close();
      client = null;
    }
    stopProcesses();
    deleteRecursively(workDir);
  }

  private void stopProcesses() {
    // Stop in reverse order: controller manager, API server, then etcd.
    for (int i = processes.size() - 1; i >= 0; i--) {
      processes.get(i).close();
    }
    processes.clear();
  }

  private static void deleteRecursively(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    } catch (IOException e) {
      LOG.warn("could not delete {}: {}", dir, e.toString());
    }
  }

  /** Options of a {@link KubeApiServer}. */
  public static final class Builder {
    private boolean controllerManager;
    private List<String> controllers = List.of("garbagecollector", "namespace");
    private Duration startupTimeout = Duration.ofSeconds(90);
    private final List<String> extraApiServerArgs = new ArrayList<>();
    private String bindAddress = "127.0.0.1";
    private IntSupplier ports = LoopbackPorts::free;
    private final List<String> extraControllerManagerArgs = new ArrayList<>();
    private ClusterPki pki;
    private boolean stopOnExit = true;
    private String authorizationMode = "RBAC";
    private String admissionPlugins = "NamespaceLifecycle,ValidatingAdmissionPolicy";

    private Builder() {}

    /**
     * {@code --authorization-mode} (a list flag: given twice, kube-apiserver refuses the repeated
     * mode).
     */
    Builder authorizationMode(String modes) {
      this.authorizationMode = modes;
      return this;
    }

    /** {@code --enable-admission-plugins}, beside the ones kube-apiserver enables by default. */
    Builder admissionPlugins(String plugins) {
      this.admissionPlugins = plugins;
      return this;
    }

    /** The PKI to issue from, when the caller needs certificates before the API server starts. */
    Builder pki(ClusterPki source) {
      this.pki = source;
      return this;
    }

    /**
     * Leaves stopping the processes on JVM exit to the caller, which stops them in its own order.
     */
    Builder stopOnExitByCaller() {
      this.stopOnExit = false;
      return this;
    }

    /** Extra kube-controller-manager flags. */
    Builder controllerManagerArg(String flag) {
      this.extraControllerManagerArgs.add(flag);
      return this;
    }

    /**
     * Where etcd's and kube-apiserver's ports come from; tests of the start itself hand out taken
     * ones.
     */
    Builder ports(IntSupplier source) {
      this.ports = source;
      return this;
    }

    /**
     * Listens on that local IPv4 address instead of loopback, e.g. the Docker bridge's address so
     * containers reach the API server; the serving certificate and {@link #url()} name it.
     */
    public Builder bindAddress(String address) {
      this.bindAddress = address;
      return this;
    }

    /**
     * Also runs kube-controller-manager (garbage collector and namespace controllers by default).
     */
    public Builder withControllerManager() {
      this.controllerManager = true;
      return this;
    }

    /** The controllers kube-controller-manager runs when started. */
    public Builder controllers(String... names) {
      this.controllers = List.of(names);
      return this;
    }

    /**
     * How long etcd plus kube-apiserver may take to become ready (default 90 s: shared CI cores).
     */
    public Builder startupTimeout(Duration timeout) {
      this.startupTimeout = timeout;
      return this;
    }

    /** Extra kube-apiserver flags, e.g. {@code --feature-gates=...}. */
    public Builder apiServerArg(String flag) {
      this.extraApiServerArgs.add(flag);
      return this;
    }

    /** Starts the control plane and waits until {@code /readyz} passes. */
    public KubeApiServer start() {
      return new KubeApiServer(this).start();
    }
  }
}
