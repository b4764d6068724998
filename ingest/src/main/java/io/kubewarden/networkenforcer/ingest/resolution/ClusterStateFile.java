package io.kubewarden.networkenforcer.ingest.resolution;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.kubewarden.networkenforcer.common.config.ConfigException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;

/**
 * Loads a cluster snapshot for offline resolution: the output of
 * {@code kubectl get ns,deploy,sts,ds,rs,pods -A -o json} (or {@code -o yaml}), a List or several
 * YAML documents.
 */
public final class ClusterStateFile {
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  private ClusterStateFile() {}

  public static ClusterIndex load(Path path) {
    ClusterIndex index = new ClusterIndex();
    try (InputStream in = Files.newInputStream(path)) {
      Object parsed = SERIALIZATION.unmarshal(in);
      add(index, parsed);
    } catch (IOException e) {
      throw new ConfigException("cannot read cluster-state file " + path + ": " + e.getMessage());
    } catch (RuntimeException e) {
      throw new ConfigException("cluster-state file " + path + " is not a Kubernetes List in JSON or YAML "
          + "(write it with: kubectl get ns,deploy,sts,ds,rs,pods -A -o json): " + e.getMessage());
    }
    return index;
  }

  private static void add(ClusterIndex index, Object parsed) {
    if (parsed instanceof KubernetesResourceList<?> list) {
      list.getItems().forEach(item -> add(index, item));
    } else if (parsed instanceof Collection<?> docs) {
      docs.forEach(doc -> add(index, doc));
    } else if (parsed instanceof HasMetadata object && object.getMetadata() != null) {
      index.upsert(object);
    }
  }
}
