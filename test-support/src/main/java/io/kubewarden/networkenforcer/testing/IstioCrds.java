package io.kubewarden.networkenforcer.testing;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Istio's {@code security.istio.io/v1 AuthorizationPolicy} kind for a bare API server, so the
 * writer's Istio backend has somewhere to write. The schema is open (Istio's own is not vendored
 * here); the name, group, version and scope are Istio's.
 */
public final class IstioCrds {

  public static final String AUTHORIZATION_POLICIES = "authorizationpolicies.security.istio.io";

  private IstioCrds() {}

  /** Creates the AuthorizationPolicy CRD and waits until it is Established. */
  public static void installAuthorizationPolicy(KubernetesClient client, Duration timeout) {
    CustomResourceDefinition crd =
        new CustomResourceDefinitionBuilder()
            .withNewMetadata()
            .withName(AUTHORIZATION_POLICIES)
            .endMetadata()
            .withNewSpec()
            .withGroup("security.istio.io")
            .withScope("Namespaced")
            .withNewNames()
            .withKind("AuthorizationPolicy")
            .withListKind("AuthorizationPolicyList")
            .withPlural("authorizationpolicies")
            .withSingular("authorizationpolicy")
            .endNames()
            .addNewVersion()
            .withName("v1")
            .withServed(true)
            .withStorage(true)
            .withNewSchema()
            .withNewOpenAPIV3Schema()
            .withType("object")
            .addToProperties(
                "spec",
                new io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaPropsBuilder()
                    .withType("object")
                    .withXKubernetesPreserveUnknownFields(true)
                    .build())
            .addToProperties(
                "status",
                new io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaPropsBuilder()
                    .withType("object")
                    .withXKubernetesPreserveUnknownFields(true)
                    .build())
            .endOpenAPIV3Schema()
            .endSchema()
            .withNewSubresources()
            .withNewStatus()
            .endStatus()
            .endSubresources()
            .endVersion()
            .endSpec()
            .build();
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
        .withName(AUTHORIZATION_POLICIES)
        .waitUntilCondition(ProjectCrds::established, timeout.toMillis(), TimeUnit.MILLISECONDS);
  }
}
