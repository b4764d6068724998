package io.kubewarden.networkenforcer.testing;

import java.nio.file.Path;
import java.util.Base64;
import java.nio.charset.StandardCharsets;

/** Writes a kubeconfig with one cluster, one certificate-authenticated user and one context. */
final class KubeconfigFile {

  private KubeconfigFile() {}

  static Path write(Path file, String serverUrl, String caPem, ClusterPki.Credential user, String userName) {
    String ca = Base64.getEncoder().encodeToString(caPem.getBytes(StandardCharsets.US_ASCII));
    String yaml = """
        apiVersion: v1
        kind: Config
        clusters:
        - name: test
          cluster:
            server: %s
            certificate-authority-data: %s
        users:
        - name: %s
          user:
            client-certificate-data: %s
            client-key-data: %s
        contexts:
        - name: test
          context:
            cluster: test
            user: %s
            namespace: default
        current-context: test
        """.formatted(serverUrl, ca, userName, user.certificateBase64(), user.privateKeyBase64(), userName);
    ClusterPki.write(file, yaml);
    return file;
  }
}
