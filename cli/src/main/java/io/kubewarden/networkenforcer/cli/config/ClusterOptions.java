package io.kubewarden.networkenforcer.cli.config;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.kubewarden.networkenforcer.common.config.ConfigException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * The cluster connection, as kubectl takes it ({@code --kubeconfig}, {@code --context}), for every
 * command that talks to the API server, so each builds the client the same way and names the same
 * kubeconfig in its messages. Namespaces stay with the commands: what {@code -n} selects differs.
 */
public class ClusterOptions {
  /**
   * One retry for a command line: a 429/503 with Retry-After (API Priority and Fairness, e.g. just
   * after CRDs were created) is waited for once, which fabric8 honours when it retries, while an
   * unreachable server still fails within {@link #commandLineBound()}.
   */
  static final int COMMAND_LINE_RETRIES = 1;

  static final int COMMAND_LINE_RETRY_INTERVAL_MS = 500;
  static final int COMMAND_LINE_CONNECT_TIMEOUT_MS = 5_000;

  @Option(
      names = "--kubeconfig",
      paramLabel = "FILE",
      description = "kubeconfig of the cluster; default KUBECONFIG, ~/.kube/config or in-cluster.")
  Path kubeconfig;

  @Option(
      names = "--context",
      paramLabel = "NAME",
      description = "The kubeconfig context to use (default: its current context).")
  String context;

  /**
   * Whether --kubeconfig or --context was given (for commands that can also work without a
   * cluster).
   */
  public boolean given() {
    return kubeconfig != null || context != null;
  }

  public void validate() {
    if (kubeconfig != null && !Files.isReadable(kubeconfig)) {
      throw new ConfigException(
          "kubeconfig " + kubeconfig + " does not exist or cannot be read; fix --kubeconfig");
    }
  }

  /**
   * Where the API server's address comes from, the way the client looks for it (--kubeconfig,
   * KUBECONFIG, ~/.kube/config, in-cluster), for messages. Fails when there is none at all: the
   * client would otherwise try https://kubernetes.default.svc and report only "An error has
   * occurred".
   */
  public String source() {
    String file = kubeconfigName();
    if (file != null) {
      return "kubeconfig " + file + (context == null ? "" : ", context " + context);
    }
    if (System.getenv("KUBERNETES_SERVICE_HOST") != null) {
      return "the in-cluster service account";
    }
    String master = System.getenv("KUBERNETES_MASTER");
    if (master != null && !master.isBlank()) {
      return "KUBERNETES_MASTER";
    }
    Path home = Path.of(System.getProperty("user.home"), ".kube", "config");
    throw new ConfigException(
        "no Kubernetes API server is configured: --kubeconfig (NE_KUBECONFIG) and KUBECONFIG "
            + "are not set, "
            + home
            + " does not exist and this is not a pod (KUBERNETES_SERVICE_HOST is unset); "
            + "point --kubeconfig at the kubeconfig of your cluster (for kind: kind get kubeconfig > FILE)");
  }

  /** The kubeconfig file the client reads, or null when there is none (in-cluster). */
  private String kubeconfigName() {
    if (kubeconfig != null) {
      return kubeconfig.toString();
    }
    String env = System.getenv("KUBECONFIG");
    if (env != null && !env.isBlank()) {
      return env + " (KUBECONFIG)";
    }
    Path home = Path.of(System.getProperty("user.home"), ".kube", "config");
    return Files.isRegularFile(home) ? home.toString() : null;
  }

  /** The client configuration for the chosen kubeconfig and context, with fabric8's defaults. */
  public Config config() {
    Config config;
    if (kubeconfig == null) {
      config = Config.autoConfigure(context);
    } else {
      try {
        config =
            Config.fromKubeconfig(context, Files.readString(kubeconfig), kubeconfig.toString());
      } catch (IOException e) {
        throw new ConfigException(
            "cannot read kubeconfig " + kubeconfig + ": " + e.getMessage() + "; fix --kubeconfig");
      }
    }
    // fabric8 falls back to the current context (or none) for a name it does not know: refuse
    // instead.
    if (context != null
        && (config.getCurrentContext() == null
            || !context.equals(config.getCurrentContext().getName()))) {
      String file = kubeconfigName();
      throw new ConfigException(
          "--context "
              + context
              + " is not a context of "
              + (file == null
                  ? "any kubeconfig (none found: set --kubeconfig or KUBECONFIG)"
                  : "kubeconfig " + file)
              + "; kubectl config get-contexts lists them");
    }
    return config;
  }

  /** A client for a long-running service (fabric8's retries), not yet contacted. */
  public KubernetesClient client() {
    return new KubernetesClientBuilder().withConfig(config()).build();
  }

  /**
   * A client for a command line: fails fast, but waits once for a server that asks to
   * (Retry-After).
   */
  public KubernetesClient commandLineClient() {
    Config config = config();
    config.setRequestRetryBackoffLimit(COMMAND_LINE_RETRIES);
    config.setRequestRetryBackoffInterval(COMMAND_LINE_RETRY_INTERVAL_MS);
    config.setConnectionTimeout(COMMAND_LINE_CONNECT_TIMEOUT_MS);
    return new KubernetesClientBuilder().withConfig(config).build();
  }

  /** How long a command line tries an unreachable server, for its message. */
  public static String commandLineBound() {
    return "gave up after "
        + (COMMAND_LINE_RETRIES + 1)
        + " attempts "
        + COMMAND_LINE_RETRY_INTERVAL_MS
        + " ms apart, "
        + COMMAND_LINE_CONNECT_TIMEOUT_MS / 1000
        + " s connect timeout each";
  }
}
