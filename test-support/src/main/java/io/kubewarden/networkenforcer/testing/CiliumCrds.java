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
 * Cilium's {@code cilium.io/v2 CiliumNetworkPolicy} kind for a bare API server, with Cilium's own
 * published schema, so a rendered policy is checked by the schema Cilium clusters enforce. The CRD
 * is Cilium's text: {@code hack/tools/cilium-crds.sh} fetches it from the released Go module
 * (version and sha256 pinned there) into the test-tools directory; it is not kept in this
 * repository.
 */
public final class CiliumCrds {

  public static final String CILIUM_NETWORK_POLICIES = "ciliumnetworkpolicies.cilium.io";

  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  private CiliumCrds() {}

  /** Cilium's CRD as published. */
  public static CustomResourceDefinition ciliumNetworkPolicy() {
    Path crd = KubeTools.toolsDir().resolve("cilium").resolve("ciliumnetworkpolicies.yaml");
    if (!Files.isRegularFile(crd)) {
      throw new IllegalStateException(
          "Cilium's CiliumNetworkPolicy CRD is not at "
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
    client
        .apiextensions()
        .v1()
        .customResourceDefinitions()
        .resource(ciliumNetworkPolicy())
        .forceConflicts()
        .serverSideApply();
    client
        .apiextensions()
        .v1()
        .customResourceDefinitions()
        .withName(CILIUM_NETWORK_POLICIES)
        .waitUntilCondition(ProjectCrds::established, timeout.toMillis(), TimeUnit.MILLISECONDS);
  }
}
