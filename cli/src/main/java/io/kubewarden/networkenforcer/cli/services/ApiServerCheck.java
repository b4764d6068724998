package io.kubewarden.networkenforcer.cli.services;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kubewarden.networkenforcer.common.config.ConfigException;
import java.net.ConnectException;

/**
 * Contacts the API server once at start, so a wrong kubeconfig ends the command with a message that
 * names the server, where its address came from and what to change, instead of a service that
 * retries forever without saying why.
 */
public final class ApiServerCheck {
  private ApiServerCheck() {}

  /**
   * @param source where the client configuration came from, for the message ("kubeconfig /x",
   *     "in-cluster")
   */
  public static void check(KubernetesClient client, String source) {
    String url = String.valueOf(client.getConfiguration().getMasterUrl());
    // One quick attempt: the services' own clients retry, this check must answer fast.
    Config once =
        new ConfigBuilder(client.getConfiguration())
            .withRequestRetryBackoffLimit(0)
            .withConnectionTimeout(5_000)
            .withRequestTimeout(10_000)
            .build();
    try (KubernetesClient probe = new KubernetesClientBuilder().withConfig(once).build()) {
      probe.getKubernetesVersion();
    } catch (KubernetesClientException e) {
      if (e.getCode() == 401 || e.getCode() == 403) {
        throw new ConfigException(
            "the Kubernetes API server at "
                + url
                + " (from "
                + source
                + ") refused the "
                + "credentials (HTTP "
                + e.getCode()
                + "); renew the token or certificate of that kubeconfig user, or "
                + "point --kubeconfig (NE_KUBECONFIG) or KUBECONFIG at one that works, or pick another --context");
      }
      throw unreachable(url, source, e);
    } catch (RuntimeException e) {
      throw unreachable(url, source, e);
    }
  }

  private static ConfigException unreachable(String url, String source, RuntimeException e) {
    return new ConfigException(
        "cannot reach the Kubernetes API server at "
            + url
            + " (from "
            + source
            + "): "
            + rootCause(e)
            + "; set --kubeconfig (NE_KUBECONFIG) or KUBECONFIG to the kubeconfig of a running "
            + "cluster (and --context to one of its contexts), or run inside the cluster");
  }

  /**
   * What went wrong, in the words of the innermost exception that has some (fabric8's own is often
   * only "An error has occurred."). The JDK HTTP client reports a refused connection as a {@link
   * java.net.ConnectException} without a message around a closed channel: say so.
   */
  static String rootCause(Throwable e) {
    String said = null;
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof ConnectException && (t.getMessage() == null || t.getMessage().isBlank())) {
        return "ConnectException: Connection refused";
      }
      if (t.getMessage() != null
          && !t.getMessage().isBlank()
          && !(t instanceof KubernetesClientException)) {
        said = t.getClass().getSimpleName() + ": " + t.getMessage();
      }
      if (t.getCause() == null && said == null) {
        said = t.getClass().getSimpleName();
      }
    }
    return said;
  }
}
