package io.kubewarden.networkenforcer.writer.apply;

import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.util.function.UnaryOperator;

/**
 * Clients that send every request once. fabric8 resends a failed request (I/O errors, 429, 5xx)
 * with back-off for up to minutes on its own; where a late request does harm (a Lease renewal past
 * its deadline, a write past the leader guard), the caller decides whether and when to try again.
 */
public final class SingleAttempt {
  private SingleAttempt() {}

  /**
   * A new client (the caller closes it) configured as {@code shared}, then {@code tuning}, without
   * retries.
   */
  public static KubernetesClient client(
      KubernetesClient shared, UnaryOperator<ConfigBuilder> tuning) {
    return new KubernetesClientBuilder()
        .withConfig(
            tuning
                .apply(new ConfigBuilder(shared.getConfiguration()))
                .withRequestRetryBackoffLimit(0)
                .build())
        .build();
  }
}
