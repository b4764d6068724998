package io.kubewarden.networkenforcer.ingest.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.kubewarden.networkenforcer.testing.TestCertificates;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Certificates from a Secret and a CA ConfigMap read through the API (the Goldmane default). */
@EnableKubernetesMockClient(crud = true)
class TlsMaterialLoaderTest {
  static KubernetesClient client;

  @TempDir Path dir;

  private static String b64(Path file) throws Exception {
    return Base64.getEncoder().encodeToString(Files.readAllBytes(file));
  }

  @Test
  void readsTheKeyPairFromTheSecretAndTheCaFromTheConfigMap() throws Exception {
    TestCertificates ca = TestCertificates.newCa("tigera-ca");
    Path certs = ca.issue(dir.resolve("pair"), "goldmane", List.of("goldmane"), List.of(), true);
    client
        .secrets()
        .inNamespace("calico-system")
        .resource(
            new SecretBuilder()
                .withNewMetadata()
                .withName("goldmane-key-pair")
                .withNamespace("calico-system")
                .endMetadata()
                .addToData("tls.crt", b64(certs.resolve("tls.crt")))
                .addToData("tls.key", b64(certs.resolve("tls.key")))
                .build())
        .create();
    client
        .configMaps()
        .inNamespace("calico-system")
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName("goldmane-ca-bundle")
                .withNamespace("calico-system")
                .endMetadata()
                .addToData("tigera-ca-bundle.crt", ca.caPem())
                .build())
        .create();

    TlsSettings settings =
        TlsSettings.fromSecret(TlsMode.existingSecret, "calico-system", "goldmane-key-pair", null)
            .withCaConfigMap("goldmane-ca-bundle", "tigera-ca-bundle.crt")
            .validate("test");
    TlsMaterial material = new TlsMaterialLoader(client).load(settings);

    assertThat(material.certificateChain()).isEqualTo(Files.readAllBytes(certs.resolve("tls.crt")));
    assertThat(new String(material.trustedCa())).isEqualTo(ca.caPem());
    TlsMaterial.Parsed parsed = material.parse();
    assertThat(parsed.key().getAlgorithm()).isEqualTo("RSA");
    assertThat(parsed.chain()).hasSize(1);
    assertThat(parsed.caCertificates()).hasSize(1);
    assertThat(material.toString()).doesNotContain("PRIVATE");

    assertThatThrownBy(
            () ->
                new TlsMaterialLoader(client)
                    .load(
                        TlsSettings.fromSecret(
                            TlsMode.existingSecret, "calico-system", "missing", null)))
        .isInstanceOf(TlsMaterialException.class)
        .hasMessageContaining("calico-system/missing not found");
    assertThatThrownBy(
            () ->
                new TlsMaterialLoader(client)
                    .load(settings.withCaConfigMap("goldmane-ca-bundle", "x")))
        .hasMessageContaining("has no key x");
    assertThatThrownBy(() -> TlsMaterialLoader.fromDirectory(dir.resolve("nothing")))
        .hasMessageContaining("does not exist");
  }
}
