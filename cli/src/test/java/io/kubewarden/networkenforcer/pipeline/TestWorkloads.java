package io.kubewarden.networkenforcer.pipeline;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.policy.Labels;
import io.kubewarden.networkenforcer.common.workload.WorkloadKind;
import java.util.Map;

/**
 * The workloads the pipeline tests learn from: Deployments the API server stores but no kubelet
 * runs (the image is never pulled), and their pods as a flow names them.
 */
final class TestWorkloads {
  private TestWorkloads() {}

  /** The selector of a workload labelled {@code app=<name>}. */
  static LabelSelector app(String name) {
    return new LabelSelectorBuilder().withMatchLabels(Map.of("app", name)).build();
  }

  /** A Deployment selecting {@code app=<name>}, created in the namespace. */
  static Deployment create(KubernetesClient admin, String namespace, String name) {
    return create(admin, namespace, name, app(name), Map.of("app", name));
  }

  /** A Deployment with that selector and those pod labels, created in the namespace. */
  static Deployment create(
      KubernetesClient admin,
      String namespace,
      String name,
      LabelSelector selector,
      Map<String, String> podLabels) {
    return admin
        .resource(
            new DeploymentBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(namespace)
                .endMetadata()
                .withNewSpec()
                .withSelector(selector)
                .withNewTemplate()
                .withNewMetadata()
                .withLabels(podLabels)
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("app")
                .withImage("registry.invalid/" + name)
                .endContainer()
                .endSpec()
                .endTemplate()
                .endSpec()
                .build())
        .create();
  }

  /** The one pod ({@code <name>-0}) of a Deployment labelled {@code app=<name>}, in a flow. */
  static FlowEndpoint endpoint(String namespace, String workload) {
    return FlowEndpoint.builder()
        .namespace(namespace)
        .workload(WorkloadKind.Deployment, workload)
        .workloadSelector(app(workload))
        .podLabels(Map.of("app", workload))
        .namespaceLabels(Map.of(Labels.NAMESPACE_NAME, namespace))
        .podName(workload + "-0")
        .serviceAccount(workload)
        .build();
  }
}
