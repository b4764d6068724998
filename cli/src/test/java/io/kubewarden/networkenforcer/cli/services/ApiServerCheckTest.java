package io.kubewarden.networkenforcer.cli.services;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.nio.channels.ClosedChannelException;
import org.junit.jupiter.api.Test;

/** The start-up message names what went wrong, not fabric8's "An error has occurred.". */
class ApiServerCheckTest {

  @Test
  void aRefusedConnectionOfTheJdkClientSaysConnectionRefused() {
    // The chain the JDK HTTP client gives for https://127.0.0.1:1 (nothing listens).
    ConnectException refused = new ConnectException();
    refused.initCause(new ClosedChannelException());
    var e = new KubernetesClientException("An error has occurred.", new IOException(null, refused));
    assertThat(ApiServerCheck.rootCause(e)).isEqualTo("ConnectException: Connection refused");
  }

  @Test
  void theInnermostMessageIsTheOneShown() {
    var e =
        new KubernetesClientException(
            "An error has occurred.",
            new IOException(
                "request failed",
                new UnknownHostException("api.example: Name or service not known")));
    assertThat(ApiServerCheck.rootCause(e))
        .isEqualTo("UnknownHostException: api.example: Name or service not known");
  }

  @Test
  void withoutAnyMessageTheInnermostClassIsNamed() {
    assertThat(
            ApiServerCheck.rootCause(
                new KubernetesClientException(
                    "An error has occurred.",
                    new IOException((String) null, new ClosedChannelException()))))
        .isEqualTo("ClosedChannelException");
  }
}
