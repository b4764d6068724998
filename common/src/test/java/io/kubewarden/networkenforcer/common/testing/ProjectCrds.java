package io.kubewarden.networkenforcer.common.testing;

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
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The project's CustomResourceDefinitions as shipped in the Helm chart
 * ({@code charts/network-enforcer/crds/*.yml}); when the chart has none (a checkout without it),
 * generated from the {@code common.crd} classes the same way.
 */
public final class ProjectCrds {

  private static final Logger LOG = LoggerFactory.getLogger(ProjectCrds.class);
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
  static final Path CHART_CRDS = Path.of("charts", "network-enforcer", "crds");

  private ProjectCrds() {}

  /** The CRDs, from the chart when present. */
  public static List<CustomResourceDefinition> load() {
    Optional<Path> chartDir = RepositoryRoot.find().map(root -> root.resolve(CHART_CRDS)).filter(Files::isDirectory);
    if (chartDir.isPresent()) {
      List<CustomResourceDefinition> crds = read(chartDir.get());
      if (!crds.isEmpty()) {
        LOG.info("CRDs from the chart: {}", chartDir.get());
        return crds;
      }
    }
    LOG.info("no CRDs in {}: generating them from the common.crd classes", CHART_CRDS);
    return read(GeneratedCrds.generate());
  }

  /** Creates (or replaces) the CRDs and waits until each is Established. */
  public static List<CustomResourceDefinition> install(KubernetesClient client, Duration timeout) {
    List<CustomResourceDefinition> crds = load();
    for (CustomResourceDefinition crd : crds) {
      client.apiextensions().v1().customResourceDefinitions().resource(crd).forceConflicts().serverSideApply();
    }
    for (CustomResourceDefinition crd : crds) {
      client.apiextensions().v1().customResourceDefinitions().withName(crd.getMetadata().getName())
          .waitUntilCondition(ProjectCrds::established, timeout.toMillis(), TimeUnit.MILLISECONDS);
    }
    return crds;
  }

  /** Whether the CRD has condition Established=True. */
  public static boolean established(CustomResourceDefinition crd) {
    return crd != null && crd.getStatus() != null && crd.getStatus().getConditions() != null
        && crd.getStatus().getConditions().stream().anyMatch(ProjectCrds::isEstablished);
  }

  private static boolean isEstablished(CustomResourceDefinitionCondition condition) {
    return "Established".equals(condition.getType()) && "True".equals(condition.getStatus());
  }

  private static List<CustomResourceDefinition> read(Path dir) {
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(f -> f.toString().endsWith(".yml") || f.toString().endsWith(".yaml")).sorted()
          .map(ProjectCrds::readOne).toList();
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
