package io.kubewarden.networkenforcer.testing;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Writes a kubeconfig with one cluster, one user and one context. The user proves who it is with a
 * client certificate (people and control-plane components) or a bearer token (service accounts).
 */
final class KubeconfigFile {

  private KubeconfigFile() {}

  static Path withCertificate(
      Path file, String serverUrl, String caPem, ClusterPki.Credential user, String userName) {
    return write(
        file,
        serverUrl,
        caPem,
        userName,
        Map.of(
            "client-certificate-data",
            user.certificateBase64(),
            "client-key-data",
            user.privateKeyBase64()));
  }

  static Path withToken(Path file, String serverUrl, String caPem, String token, String userName) {
    return write(file, serverUrl, caPem, userName, Map.of("token", token));
  }

  private static Path write(
      Path file, String serverUrl, String caPem, String userName, Map<String, String> credentials) {
    String userFields =
        credentials.entrySet().stream()
            .sorted(Map.Entry.comparingByKey())
            .map(field -> "    " + field.getKey() + ": " + field.getValue())
            .collect(Collectors.joining("\n"));
    String ca = Base64.getEncoder().encodeToString(caPem.getBytes(StandardCharsets.US_ASCII));
    String yaml =
        """
        apiVersion: v1
        kind: Config
        clusters:
        - name: test
          cluster:
            server: %s
            certificate-authority-data: %s
        users:
        - name: "%s"
          user:
        %s
        contexts:
        - name: test
          context:
            cluster: test
            user: "%s"
            namespace: default
        current-context: test
        """
            .formatted(serverUrl, ca, userName, userFields, userName);
    ClusterPki.write(file, yaml);
    return file;
  }
}
