package io.kubewarden.networkenforcer.cli.config;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubewarden.networkenforcer.common.config.ConfigException;
import io.kubewarden.networkenforcer.common.http.AccessCheck;
import io.kubewarden.networkenforcer.common.http.KubernetesAccessCheck;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Options every long-running service shares: management and probe ports, logging, identity, API
 * server.
 */
public class ServiceOptions {
  private static final Logger LOG = LoggerFactory.getLogger(ServiceOptions.class);

  /** Who may read /metrics, the live view, /caughtup and the flow dumper. */
  public enum ManagementAuth {
    /**
     * A bearer token the API server accepts (TokenReview) for a user it allows
     * (SubjectAccessReview).
     */
    kubernetes,
    /** Anyone who reaches the port: only where nobody else can (ports bound to 127.0.0.1). */
    none
  }

  @Option(
      names = "--management-port",
      paramLabel = "PORT",
      defaultValue = "8080",
      description =
          "Port of /metrics and the pages (live view, /caughtup), behind --management-auth "
              + "(default: ${DEFAULT-VALUE}).")
  int managementPort;

  @Option(
      names = "--probe-port",
      paramLabel = "PORT",
      defaultValue = "8081",
      description =
          "Port of /healthz and /readyz, open to anyone (the kubelet's probes) (default: ${DEFAULT-VALUE}).")
  int probePort;

  @Option(
      names = "--management-auth",
      paramLabel = "kubernetes|none",
      defaultValue = "kubernetes",
      description =
          "Who may read the management port and the flow dumper: kubernetes (a bearer token the API "
              + "server accepts, for a user RBAC lets `get` the path: nonResourceURLs) or none (anyone who reaches "
              + "the port) (default: ${DEFAULT-VALUE}).")
  ManagementAuth managementAuth;

  @Option(
      names = "--log-level",
      paramLabel = "LEVEL",
      defaultValue = "info",
      description = "debug, info, warn or error (default: ${DEFAULT-VALUE}).")
  String logLevel;

  @Option(
      names = "--pod-name",
      paramLabel = "NAME",
      description = "This replica's name (leader election identity); default the host name.")
  String podName;

  @Option(
      names = "--pod-namespace",
      paramLabel = "NAMESPACE",
      defaultValue = "network-enforcer",
      description = "The namespace the service runs in (default: ${DEFAULT-VALUE}).")
  String podNamespace;

  @Mixin ClusterOptions cluster = new ClusterOptions();

  public void validate() {
    if (managementPort < 0 || managementPort > 65535) {
      throw new ConfigException("--management-port " + managementPort + " is not a port (0-65535)");
    }
    if (probePort < 0 || probePort > 65535) {
      throw new ConfigException("--probe-port " + probePort + " is not a port (0-65535)");
    }
    if (probePort != 0 && probePort == managementPort) {
      throw new ConfigException(
          "--probe-port and --management-port are both "
              + probePort
              + ": the probes need a port of their own");
    }
    LogLevels.apply(logLevel);
    cluster.validate();
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
      LOG.warn(
          "--management-auth none: /metrics, the live view, /caughtup and the flow dumper answer anyone "
              + "who reaches their port");
      return AccessCheck.open();
    }
    try {
      apiServerSource();
    } catch (ConfigException e) {
      throw new ConfigException(
          "--management-auth kubernetes checks the tokens of management requests with the "
              + "API server: "
              + e.getMessage()
              + "; or set --management-auth none (NE_MANAGEMENT_AUTH) where only "
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
   * Where the API server's address comes from, for messages; see {@link ClusterOptions#source()}.
   */
  public String apiServerSource() {
    return cluster.source();
  }

  /** A client for the configured API server and context (not yet contacted). */
  public KubernetesClient kubernetesClient() {
    return cluster.client();
  }
}
