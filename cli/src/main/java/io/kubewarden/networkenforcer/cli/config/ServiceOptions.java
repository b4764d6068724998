package io.kubewarden.networkenforcer.cli.config;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.kubewarden.networkenforcer.common.config.ConfigException;
import io.kubewarden.networkenforcer.common.http.AccessCheck;
import io.kubewarden.networkenforcer.common.http.KubernetesAccessCheck;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Option;

/** Options every long-running service shares: management and probe ports, logging, identity, API server. */
public class ServiceOptions {
  private static final Logger LOG = LoggerFactory.getLogger(ServiceOptions.class);

  /** Who may read /metrics, the live view, /caughtup and the flow dumper. */
  public enum ManagementAuth {
    /** A bearer token the API server accepts (TokenReview) for a user it allows (SubjectAccessReview). */
    kubernetes,
    /** Anyone who reaches the port: only where nobody else can (ports bound to 127.0.0.1). */
    none
  }

  @Option(names = "--management-port", paramLabel = "PORT", defaultValue = "8080",
      description = "Port of /metrics and the pages (live view, /caughtup), behind --management-auth "
          + "(default: ${DEFAULT-VALUE}).")
  int managementPort;

  @Option(names = "--probe-port", paramLabel = "PORT", defaultValue = "8081",
      description = "Port of /healthz and /readyz, open to anyone (the kubelet's probes) (default: ${DEFAULT-VALUE}).")
  int probePort;

  @Option(names = "--management-auth", paramLabel = "kubernetes|none", defaultValue = "kubernetes",
      description = "Who may read the management port and the flow dumper: kubernetes (a bearer token the API "
          + "server accepts, for a user RBAC lets `get` the path: nonResourceURLs) or none (anyone who reaches "
          + "the port) (default: ${DEFAULT-VALUE}).")
  ManagementAuth managementAuth;

  @Option(names = "--log-level", paramLabel = "LEVEL", defaultValue = "info",
      description = "debug, info, warn or error (default: ${DEFAULT-VALUE}).")
  String logLevel;

  @Option(names = "--pod-name", paramLabel = "NAME",
      description = "This replica's name (leader election identity); default the host name.")
  String podName;

  @Option(names = "--pod-namespace", paramLabel = "NAMESPACE", defaultValue = "network-enforcer",
      description = "The namespace the service runs in (default: ${DEFAULT-VALUE}).")
  String podNamespace;

  @Option(names = "--kubeconfig", paramLabel = "FILE",
      description = "kubeconfig to reach the API server; default KUBECONFIG, ~/.kube/config or in-cluster.")
  Path kubeconfig;

  public void validate() {
    if (managementPort < 0 || managementPort > 65535) {
      throw new ConfigException("--management-port " + managementPort + " is not a port (0-65535)");
    }
    if (probePort < 0 || probePort > 65535) {
      throw new ConfigException("--probe-port " + probePort + " is not a port (0-65535)");
    }
    if (probePort != 0 && probePort == managementPort) {
      throw new ConfigException("--probe-port and --management-port are both " + probePort
          + ": the probes need a port of their own");
    }
    LogLevels.apply(logLevel);
    if (kubeconfig != null && !Files.isReadable(kubeconfig)) {
      throw new ConfigException("kubeconfig " + kubeconfig + " does not exist or cannot be read; fix --kubeconfig");
    }
  }

  public int managementPort() {
    return managementPort;
  }

  public int probePort() {
    return probePort;
  }

  /**
   * The check of the management port's requests. For {@code kubernetes}, {@code client} (called
   * once, here) is the API server connection that reviews tokens: the service's own identity needs
   * {@code create} on tokenreviews and subjectaccessreviews.
   */
  public AccessCheck managementAccess(Supplier<KubernetesClient> client) {
    if (managementAuth == ManagementAuth.none) {
      LOG.warn("--management-auth none: /metrics, the live view, /caughtup and the flow dumper answer anyone "
          + "who reaches their port");
      return AccessCheck.open();
    }
    try {
      apiServerSource();
    } catch (ConfigException e) {
      throw new ConfigException("--management-auth kubernetes checks the tokens of management requests with the "
          + "API server: " + e.getMessage() + "; or set --management-auth none (NE_MANAGEMENT_AUTH) where only "
          + "this machine reaches the port");
    }
    return new KubernetesAccessCheck(client.get());
  }

  public String podName() {
    return podName;
  }

  public String podNamespace() {
    return podNamespace;
  }

  /**
   * Where the API server's address comes from, the way the client looks for it (--kubeconfig,
   * KUBECONFIG, ~/.kube/config, in-cluster), for messages. Fails when there is none at all: the
   * client would otherwise try https://kubernetes.default.svc and report only "An error has occurred".
   */
  public String apiServerSource() {
    if (kubeconfig != null) {
      return "kubeconfig " + kubeconfig;
    }
    String env = System.getenv("KUBECONFIG");
    if (env != null && !env.isBlank()) {
      return "kubeconfig " + env + " (KUBECONFIG)";
    }
    Path home = Path.of(System.getProperty("user.home"), ".kube", "config");
    if (Files.isRegularFile(home)) {
      return "kubeconfig " + home;
    }
    if (System.getenv("KUBERNETES_SERVICE_HOST") != null) {
      return "the in-cluster service account";
    }
    String master = System.getenv("KUBERNETES_MASTER");
    if (master != null && !master.isBlank()) {
      return "KUBERNETES_MASTER";
    }
    throw new ConfigException("no Kubernetes API server is configured: --kubeconfig (NE_KUBECONFIG) and KUBECONFIG "
        + "are not set, " + home + " does not exist and this is not a pod (KUBERNETES_SERVICE_HOST is unset); "
        + "point --kubeconfig at the kubeconfig of your cluster (for kind: kind get kubeconfig > FILE)");
  }

  /** A client for the configured API server (not yet contacted). */
  public KubernetesClient kubernetesClient() {
    if (kubeconfig == null) {
      return new KubernetesClientBuilder().build();
    }
    try {
      return new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(Files.readString(kubeconfig))).build();
    } catch (java.io.IOException e) {
      throw new ConfigException("cannot read kubeconfig " + kubeconfig + ": " + e.getMessage());
    }
  }
}
