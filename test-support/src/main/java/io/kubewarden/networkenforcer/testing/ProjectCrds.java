package io.kubewarden.networkenforcer.testing;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The project's CustomResourceDefinitions exactly as shipped in the Helm chart ({@code
 * charts/network-enforcer/templates/crds/*.yml}, templates so that helm upgrade updates them), so
 * tests prove what users install.
 */
public final class ProjectCrds {

  private static final Logger LOG = LoggerFactory.getLogger(ProjectCrds.class);
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
  static final Path CHART_CRDS = Path.of("charts", "network-enforcer", "templates", "crds");

  private ProjectCrds() {}

  /** The chart's CRDs; fails when the checkout has none. */
  public static List<CustomResourceDefinition> load() {
    Path root =
        RepositoryRoot.find()
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "not inside a network-enforcer checkout (no hack/tools above "
                            + Path.of("").toAbsolutePath()
                            + ")"));
    Path chartDir = root.resolve(CHART_CRDS);
    List<CustomResourceDefinition> crds = Files.isDirectory(chartDir) ? read(chartDir) : List.of();
    if (crds.isEmpty()) {
      throw new IllegalStateException("no CRD manifests in " + chartDir);
    }
    LOG.debug("CRDs from {}", chartDir);
    return crds;
  }

  /** Creates (or replaces) the CRDs and waits until each is Established. */
  public static List<CustomResourceDefinition> install(KubernetesClient client, Duration timeout) {
    List<CustomResourceDefinition> crds = load();
    for (CustomResourceDefinition crd : crds) {
      client
          .apiextensions()
          .v1()
          .customResourceDefinitions()
          .resource(crd)
          .forceConflicts()
          .serverSideApply();
    }
    for (CustomResourceDefinition crd : crds) {
      client
          .apiextensions()
          .v1()
          .customResourceDefinitions()
          .withName(crd.getMetadata().getName())
          .waitUntilCondition(ProjectCrds::established, timeout.toMillis(), TimeUnit.MILLISECONDS);
    }
    return crds;
  }

  /** Whether the CRD has condition Established=True. */
  public static boolean established(CustomResourceDefinition crd) {
    return crd != null
        && crd.getStatus() != null
        && crd.getStatus().getConditions() != null
        && crd.getStatus().getConditions().stream().anyMatch(ProjectCrds::isEstablished);
  }

  private static boolean isEstablished(CustomResourceDefinitionCondition condition) {
    return "Established".equals(condition.getType()) && "True".equals(condition.getStatus());
  }

  private static List<CustomResourceDefinition> read(Path dir) {
    try (Stream<Path> files = Files.list(dir)) {
      return files
          .filter(f -> f.toString().endsWith(".yml") || f.toString().endsWith(".yaml"))
          .sorted()
          .map(ProjectCrds::readOne)
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + dir, e);
    }
  }

  private static CustomResourceDefinition readOne(Path file) {
    try (InputStream in = Files.newInputStream(file)) {
      return SERIALIZATION.unmarshal(in, CustomResourceDefinition.class);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }
}
