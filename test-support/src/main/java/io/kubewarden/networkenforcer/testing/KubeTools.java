package io.kubewarden.networkenforcer.testing;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Finds the binaries that {@code hack/tools/kube.sh} (and {@code helm.sh}) build from source into
 * {@code $NE_TOOLS_DIR/bin} (default {@code ~/.cache/network-enforcer/tools/bin}).
 */
public final class KubeTools {

  public static final String BUILD_SCRIPT = "hack/tools/kube.sh";
  public static final String ETCD = "etcd";
  public static final String KUBE_APISERVER = "kube-apiserver";
  public static final String KUBE_CONTROLLER_MANAGER = "kube-controller-manager";
  public static final String HELM = "helm";
  public static final String HELM_BUILD_SCRIPT = "hack/tools/helm.sh";
  public static final String CLUSTER_BUILD_SCRIPT = "hack/tools/cluster.sh";
  public static final String KUBELET = "kubelet";
  public static final String KUBE_SCHEDULER = "kube-scheduler";
  public static final String KUBE_PROXY = "kube-proxy";
  public static final String KUBECTL = "kubectl";

  /** Cilium's policy engine behind a JSON-lines protocol (hack/tools/cilium-policy-oracle). */
  public static final String CILIUM_POLICY_ORACLE = "cilium-policy-oracle";

  public static final String CILIUM_POLICY_ORACLE_BUILD_SCRIPT =
      "hack/tools/cilium-policy-oracle.sh";

  /** The chart's default OpenTelemetry collector, as a host binary. */
  public static final String OTELCOL = "otelcol";

  private static final java.util.Set<String> CLUSTER_BINARIES =
      java.util.Set.of(
          KUBELET,
          KUBE_SCHEDULER,
          KUBE_PROXY,
          KUBECTL,
          "cert-manager-csi-driver",
          "kube-network-policies",
          OTELCOL);

  private KubeTools() {}

  /** The directory the binaries live in. */
  public static Path binDir() {
    return toolsDir().resolve("bin");
  }

  /** {@code $NE_TOOLS_DIR}, default {@code ~/.cache/network-enforcer/tools}. */
  public static Path toolsDir() {
    String configured = System.getenv("NE_TOOLS_DIR");
    return configured == null || configured.isBlank()
        ? Path.of(System.getProperty("user.home"), ".cache", "network-enforcer", "tools")
        : Path.of(configured);
  }

  /** The executable of that name, or a failure telling how to build it. */
  public static Path require(String binary) {
    return require(binDir(), binary);
  }

  static Path require(Path binDir, String binary) {
    Path path = binDir.resolve(binary);
    if (!Files.isExecutable(path)) {
      String how =
          HELM.equals(binary)
              ? HELM_BUILD_SCRIPT + "` (builds helm from source;"
              : CILIUM_POLICY_ORACLE.equals(binary)
                  ? CILIUM_POLICY_ORACLE_BUILD_SCRIPT
                      + "` (builds Cilium's policy engine from its Go module;"
                  : CLUSTER_BINARIES.contains(binary)
                      ? CLUSTER_BUILD_SCRIPT
                          + "` (builds kubelet, kube-scheduler, kube-proxy, kubectl, otelcol and the cluster's"
                          + " images;"
                      : BUILD_SCRIPT
                          + "` (builds kube-apiserver, kube-controller-manager and etcd from source;";
      throw new IllegalStateException(
          binary
              + " not found at "
              + path
              + ": run `"
              + how
              + " set NE_TOOLS_DIR to use another tools directory)");
    }
    return path;
  }

  /** The version kube.sh recorded next to the binary, {@code unknown} when it did not. */
  public static String version(String binary) {
    Path marker = binDir().resolve(binary + ".version");
    try {
      return Files.isReadable(marker) ? Files.readString(marker).strip() : "unknown";
    } catch (java.io.IOException e) {
      return "unknown";
    }
  }
}
