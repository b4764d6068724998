package io.kubewarden.networkenforcer.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The images {@code hack/tools/cluster.sh} writes as tarballs into {@code
 * $NE_TOOLS_DIR/cluster/images}: {@code <name>.tar} and {@code <name>.image}, the reference the
 * tarball is tagged with.
 */
public final class ClusterImages {

  static final String PAUSE = "pause";
  static final String COREDNS = "coredns";
  static final String LOCAL_PATH_PROVISIONER = "local-path-provisioner";
  static final String LOCAL_PATH_HELPER = "local-path-helper";
  static final String CERT_MANAGER_CONTROLLER = "cert-manager-controller";

  /** Tagged with the chart's default collector image (otel/opentelemetry-collector-contrib). */
  public static final String OTEL_COLLECTOR = "otel-collector";

  /**
   * netcheck: opens a TCP connection to each {@code name=host:port} argument and prints {@code
   * <name> <host:port> connected|timeout|refused|error ...}, one line each (NetworkPolicy checks).
   */
  public static final String NETCHECK = "netcheck";

  /** A stand-in tagged with the chart's default fluent-bit image. */
  public static final String FLUENT_BIT = "fluent-bit";

  private ClusterImages() {}

  static Path dir() {
    return KubeTools.toolsDir().resolve("cluster").resolve("images");
  }

  static Path tarball(String name) {
    Path tarball = dir().resolve(name + ".tar");
    if (!Files.isRegularFile(tarball)) {
      throw new IllegalStateException(
          "image "
              + name
              + " not found at "
              + tarball
              + ": run `"
              + KubeTools.CLUSTER_BUILD_SCRIPT
              + "` (set NE_TOOLS_DIR to use another tools directory)");
    }
    return tarball;
  }

  static String reference(String name) {
    tarball(name);
    try {
      return Files.readString(dir().resolve(name + ".image")).strip();
    } catch (IOException e) {
      throw new IllegalStateException(
          "no reference for image "
              + name
              + " in "
              + dir()
              + ": run `"
              + KubeTools.CLUSTER_BUILD_SCRIPT
              + "` again",
          e);
    }
  }
}
