package io.kubewarden.networkenforcer.testing;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Cilium's {@code cilium.io/v2 CiliumNetworkPolicy} kind for a bare API server, with Cilium's own
 * published schema (v1.20.2, unmodified; provenance in {@code cilium/PROVENANCE.md} beside the
 * file), so a rendered policy is checked by the schema Cilium clusters enforce.
 */
public final class CiliumCrds {

  public static final String CILIUM_NETWORK_POLICIES = "ciliumnetworkpolicies.cilium.io";

  private static final String RESOURCE = "cilium/ciliumnetworkpolicies.yaml";
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  private CiliumCrds() {}

  /** Cilium's CRD as published. */
  public static CustomResourceDefinition ciliumNetworkPolicy() {
    try (InputStream in = CiliumCrds.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("missing test resource " + RESOURCE);
      }
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
