package io.kubewarden.networkenforcer.testing;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Renders the project's Helm chart ({@code charts/network-enforcer}) with the helm binary of {@code
 * hack/tools/helm.sh}, so tests apply exactly what the chart ships.
 */
public final class ChartTemplates {

  public static final String RELEASE = "ne";
  public static final String NAMESPACE = "network-enforcer";
  public static final String ADMISSION_POLICIES = "templates/admission-policies.yaml";
  private static final Path CHART = Path.of("charts", "network-enforcer");

  private ChartTemplates() {}

  /**
   * {@code helm template ne charts/network-enforcer --namespace network-enforcer <args>}: the YAML.
   */
  public static String render(String... args) {
    return renderRelease(RELEASE, args);
  }

  /** The same for another release name (two installs side by side). */
  public static String renderRelease(String release, String... args) {
    Path helm = KubeTools.require(KubeTools.HELM);
    Path chart =
        RepositoryRoot.find()
            .map(root -> root.resolve(CHART))
            .filter(Files::isDirectory)
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "no chart at " + CHART + " above " + Path.of("").toAbsolutePath()));
    List<String> command =
        new ArrayList<>(
            List.of(
                helm.toString(), "template", release, chart.toString(), "--namespace", NAMESPACE));
    command.addAll(List.of(args));
    try {
      Path stdout = Files.createTempFile("helm-template-", ".yaml");
      Path stderr = Files.createTempFile("helm-template-", ".err");
      try {
        Process process =
            new ProcessBuilder(command)
                .redirectOutput(stdout.toFile())
                .redirectError(stderr.toFile())
                .start();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
          process.destroyForcibly();
          throw new IllegalStateException("helm template did not finish within 60 s: " + command);
        }
        if (process.exitValue() != 0) {
          throw new IllegalStateException(
              "helm template failed (" + process.exitValue() + "): " + Files.readString(stderr));
        }
        return Files.readString(stdout);
      } finally {
        Files.deleteIfExists(stdout);
        Files.deleteIfExists(stderr);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run helm", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while rendering the chart", e);
    }
  }

  /** Rendered YAML as objects. */
  public static List<HasMetadata> objects(KubernetesClient client, String yaml) {
    return client.load(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8))).items();
  }

  /** The chart's ValidatingAdmissionPolicies and their bindings, with default values. */
  public static List<HasMetadata> admissionPolicies(KubernetesClient client) {
    return objects(client, render("--show-only", ADMISSION_POLICIES));
  }
}
