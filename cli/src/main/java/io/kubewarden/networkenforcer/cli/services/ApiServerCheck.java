package io.kubewarden.networkenforcer.cli.services;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.kubewarden.networkenforcer.common.config.ConfigException;

/**
 * Contacts the API server once at start, so a wrong kubeconfig ends the command with a message
 * instead of a service that retries forever without saying why.
 */
public final class ApiServerCheck {
  private ApiServerCheck() {}

  public static void check(KubernetesClient client) {
    String url = String.valueOf(client.getConfiguration().getMasterUrl());
    // One quick attempt: the services' own clients retry, this check must answer fast.
    Config once = new ConfigBuilder(client.getConfiguration()).withRequestRetryBackoffLimit(0)
        .withConnectionTimeout(5_000).withRequestTimeout(10_000).build();
    try (KubernetesClient probe = new KubernetesClientBuilder().withConfig(once).build()) {
      probe.getKubernetesVersion();
    } catch (RuntimeException e) {
      String cause = e.getCause() != null ? e.getCause().getMessage() : e.getMessage();
      throw new ConfigException("cannot reach the Kubernetes API server at " + url + " (" + cause + "); set "
          + "--kubeconfig or KUBECONFIG to a working kubeconfig, or run inside the cluster");
    }
  }
}
