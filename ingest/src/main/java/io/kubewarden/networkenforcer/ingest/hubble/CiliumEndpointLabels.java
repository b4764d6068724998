package io.kubewarden.networkenforcer.ingest.hubble;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reads a Hubble endpoint's label list ({@code k8s:app=web}, {@code k8s:io.cilium.k8s.policy.*},
 * {@code k8s:io.cilium.k8s.namespace.labels.*}, {@code reserved:*}): the pod's own labels, its
 * namespace's labels and its service account. Cilium reports only identity-relevant labels, so
 * generated ones such as {@code pod-template-hash} are usually absent already.
 */
public record CiliumEndpointLabels(
    Map<String, String> podLabels, Map<String, String> namespaceLabels, String serviceAccount) {
  private static final String LABEL_PREFIX = "k8s:";
  private static final String SERVICE_ACCOUNT_LABEL = "k8s:io.cilium.k8s.policy.serviceaccount=";
  private static final String NAMESPACE_LABEL_PREFIX = "k8s:io.cilium.k8s.namespace.labels.";

  public static CiliumEndpointLabels of(List<String> labels) {
    Map<String, String> pod = new TreeMap<>();
    Map<String, String> namespace = new TreeMap<>();
    String serviceAccount = null;
    for (String label : labels) {
      if (label.startsWith(SERVICE_ACCOUNT_LABEL)) {
        serviceAccount = label.substring(SERVICE_ACCOUNT_LABEL.length());
      } else if (label.startsWith(NAMESPACE_LABEL_PREFIX)) {
        put(namespace, label.substring(NAMESPACE_LABEL_PREFIX.length()));
      } else if (label.startsWith(LABEL_PREFIX)
          && !label.startsWith("k8s:io.cilium.k8s.")
          && !label.startsWith("k8s:io.kubernetes.pod.namespace=")) {
        put(pod, label.substring(LABEL_PREFIX.length()));
      }
    }
    return new CiliumEndpointLabels(pod, namespace, serviceAccount);
  }

  private static void put(Map<String, String> labels, String keyValue) {
    int eq = keyValue.indexOf('=');
    if (eq > 0) {
      labels.put(keyValue.substring(0, eq), keyValue.substring(eq + 1));
    }
  }
}
