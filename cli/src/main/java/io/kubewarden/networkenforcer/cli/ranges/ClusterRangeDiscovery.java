package io.kubewarden.networkenforcer.cli.ranges;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kubewarden.networkenforcer.common.config.ConfigException;
import io.kubewarden.networkenforcer.common.evaluation.Addresses;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the cluster's service and pod ranges from the API server, from every {@link RangeSource} in
 * order. A source the cluster does not serve (no Cilium, no Calico, Kubernetes before 1.33) or the
 * caller may not list is noted and skipped: the others still count. An unreachable API server
 * fails, naming it: ranges silently missing would widen to {@code 0.0.0.0/0} without except.
 */
public final class ClusterRangeDiscovery {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private final KubernetesClient client;
  private final String apiServer;

  /**
   * @param apiServer where the client's address comes from, for messages
   */
  public ClusterRangeDiscovery(KubernetesClient client, String apiServer) {
    this.client = client;
    this.apiServer = apiServer;
  }

  public DiscoveredRanges discover() {
    Map<RangeSource, List<String>> found = new EnumMap<>(RangeSource.class);
    Map<RangeSource, String> unavailable = new EnumMap<>(RangeSource.class);
    for (RangeSource source : RangeSource.values()) {
      try {
        List<String> ranges = new ArrayList<>();
        for (GenericKubernetesResource object :
            client.genericKubernetesResources(source.context()).list().getItems()) {
          JsonNode tree = MAPPER.valueToTree(object);
          for (String cidr : source.ranges(tree)) {
            if (Addresses.isCidr(cidr) && !ranges.contains(cidr)) {
              ranges.add(cidr);
            }
          }
        }
        found.put(source, List.copyOf(ranges));
      } catch (KubernetesClientException e) {
        switch (e.getCode()) {
          case 404 -> unavailable.put(source, "not served");
          case 403 -> unavailable.put(source, "forbidden (list " + source.resource() + ")");
          // An aggregated API whose server is down (Calico's API server): its CRDs still answer.
          case 503 -> unavailable.put(source, "unavailable (503)");
          default ->
              throw new ConfigException(
                  "cannot discover the cluster ranges from "
                      + apiServer
                      + ": listing "
                      + source.resource()
                      + " failed: "
                      + e.getMessage()
                      + "; give them with --cluster-cidr instead, or fix the connection");
        }
      }
    }
    return new DiscoveredRanges(found, unavailable);
  }
}
