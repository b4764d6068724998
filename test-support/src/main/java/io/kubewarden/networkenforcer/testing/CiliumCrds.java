package io.kubewarden.networkenforcer.testing;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Cilium's {@code cilium.io/v2 CiliumNetworkPolicy} and {@code CiliumNode} kinds for a bare API
 * server, with Cilium's own published schemas, so a rendered policy, or a node whose ranges are
 * read, is checked by the schema Cilium clusters enforce. The CRDs are Cilium's text: {@code
 * hack/tools/cilium-crds.sh} fetches them from the released Go module (version and sha256 pinned
 * there) into the test-tools directory; they are not kept in this repository.
 */
public final class CiliumCrds {

  public static final String CILIUM_NETWORK_POLICIES = "ciliumnetworkpolicies.cilium.io";
  public static final String CILIUM_NODES = "ciliumnodes.cilium.io";

  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  private CiliumCrds() {}

  /** Cilium's CiliumNetworkPolicy CRD as published. */
  public static CustomResourceDefinition ciliumNetworkPolicy() {
    return load("ciliumnetworkpolicies.yaml");
  }

  /** Cilium's CiliumNode CRD as published. */
  public static CustomResourceDefinition ciliumNode() {
    return load("ciliumnodes.yaml");
  }

  private static CustomResourceDefinition load(String file) {
    Path crd = KubeTools.toolsDir().resolve("cilium").resolve(file);
    if (!Files.isRegularFile(crd)) {
      throw new IllegalStateException(
          "Cilium's CRD "
              + file
              + " is not at "
              + crd
              + ": run hack/tools/cilium-crds.sh (./hack/test.sh runs it)");
    }
    try (InputStream in = Files.newInputStream(crd)) {
      return SERIALIZATION.unmarshal(in, CustomResourceDefinition.class);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Creates the CiliumNetworkPolicy CRD and waits until it is Established. */
  public static void installCiliumNetworkPolicy(KubernetesClient client, Duration timeout) {
    install(client, ciliumNetworkPolicy(), CILIUM_NETWORK_POLICIES, timeout);
  }

  /** Creates the CiliumNode CRD and waits until it is Established. */
  public static void installCiliumNode(KubernetesClient client, Duration timeout) {
    install(client, ciliumNode(), CILIUM_NODES, timeout);
  }

  private static void install(
      KubernetesClient client, CustomResourceDefinition crd, String name, Duration timeout) {
    client
        .apiextensions()
        .v1()
        .customResourceDefinitions()
        .resource(crd)
        .forceConflicts()
        .serverSideApply();
    client
        .apiextensions()
        .v1()
        .customResourceDefinitions()
        .withName(name)
        .waitUntilCondition(ProjectCrds::established, timeout.toMillis(), TimeUnit.MILLISECONDS);
  }
}
