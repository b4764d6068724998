package io.kubewarden.networkenforcer.ingest.hubble;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.ingest.resolution.ClusterIndex;
import io.kubewarden.networkenforcer.ingest.resolution.WorkloadResolver;
import java.time.Clock;
import org.junit.jupiter.api.Test;

/**
 * The live ingest resolves through the informers' {@link ClusterIndex}. A short-lived pod (a
 * rollout, a scale-down) is deleted from it before its flows arrive; those flows used to be lost as
 * unknown pods.
 */
class DeletedPodFallbackTest {
  private static final String FLOW =
      "{\"flow\":{\"time\":\"2026-08-03T15:40:01Z\",\"verdict\":\"FORWARDED\","
          + "\"IP\":{\"source\":\"10.244.1.21\",\"destination\":\"10.244.2.31\"},"
          + "\"l4\":{\"TCP\":{\"source_port\":45678,\"destination_port\":8080,\"flags\":{\"SYN\":true}}},"
          + "\"source\":{\"identity\":20101,\"namespace\":\"shop\",\"labels\":[\"k8s:app=frontend\","
          + "\"k8s:io.cilium.k8s.policy.serviceaccount=frontend\"],\"pod_name\":\"frontend-5d8f7b9c6d-x7k2p\"},"
          + "\"destination\":{\"ID\":2301,\"identity\":20102,\"namespace\":\"shop\",\"labels\":[\"k8s:app=backend\"],"
          + "\"pod_name\":\"backend-6c9d8f7b54-q2w4z\",\"workloads\":[{\"name\":\"backend\",\"kind\":\"Deployment\"}]},"
          + "\"Type\":\"L3_L4\",\"event_type\":{\"type\":4},\"traffic_direction\":\"INGRESS\"}}";

  private static Deployment deployment(String name, String app) {
    return new DeploymentBuilder()
        .withMetadata(new ObjectMetaBuilder().withNamespace("shop").withName(name).build())
        .withNewSpec()
        .withSelector(new LabelSelectorBuilder().addToMatchLabels("app", app).build())
        .endSpec()
        .build();
  }

  private static Pod frontendPod() {
    return new PodBuilder()
        .withMetadata(
            new ObjectMetaBuilder()
                .withNamespace("shop")
                .withName("frontend-5d8f7b9c6d-x7k2p")
                .addToLabels("app", "frontend")
                .addToLabels("pod-template-hash", "5d8f7b9c6d")
                .withOwnerReferences(
                    new OwnerReferenceBuilder()
                        .withKind("ReplicaSet")
                        .withName("frontend-5d8f7b9c6d")
                        .withController(true)
                        .build())
                .build())
        .withNewStatus()
        .withPodIP("10.244.1.21")
        .withPhase("Running")
        .endStatus()
        .build();
  }

  private static FlowRecord parse(ClusterIndex index) throws Exception {
    HubbleFlowParser parser = new HubbleFlowParser(new WorkloadResolver(index), Clock.systemUTC());
    return parser.parse(HubbleJson.decode(FLOW, Json.mapper().readTree(FLOW))).records().get(0);
  }

  @Test
  void aDeletedPodOfALiveDeploymentResolvesToItWithItsRealSelector() throws Exception {
    ClusterIndex index = new ClusterIndex();
    index.upsert(deployment("frontend", "frontend"));
    index.upsert(deployment("backend", "backend"));
    Pod pod = frontendPod();
    index.upsert(pod);
    index.remove(pod); // the informer saw the deletion before the flow arrived

    FlowRecord r = parse(index);
    FlowEndpoint src = r.src();
    assertThat(src.workload().orElseThrow().key()).isEqualTo("shop/Deployment/frontend");
    assertThat(src.workloadSelector())
        .isEqualTo(new LabelSelectorBuilder().addToMatchLabels("app", "frontend").build());
    assertThat(src.inferred()).isFalse();
    assertThat(src.serviceAccount()).isEqualTo("frontend");
    assertThat(r.dst().inferred()).isFalse();
  }

  @Test
  void whenTheWorkloadIsGoneTooTheLabelsStandInAndTheEndpointIsMarked() throws Exception {
    FlowRecord r = parse(new ClusterIndex());

    assertThat(r.src().workload().orElseThrow().key()).isEqualTo("shop/Deployment/frontend");
    assertThat(r.src().workloadSelector())
        .isEqualTo(new LabelSelectorBuilder().addToMatchLabels("app", "frontend").build());
    assertThat(r.src().inferred()).isTrue();
    // Hubble named the destination's Deployment; only its selector came from the labels.
    assertThat(r.dst().workload().orElseThrow().key()).isEqualTo("shop/Deployment/backend");
    assertThat(r.dst().inferred()).isTrue();
  }

  @Test
  void anAddressTheKubeletGaveToAnotherPodSinceNeverNamesTheFlowsPod() throws Exception {
    ClusterIndex index = new ClusterIndex();
    index.upsert(deployment("frontend", "frontend"));
    index.upsert(deployment("backend", "backend"));
    Pod gone = frontendPod();
    index.upsert(gone);
    index.remove(gone);
    // The address of the deleted frontend pod now belongs to a pod of another workload and
    // namespace: looked up by address, frontend's traffic would be learned for it.
    Deployment other =
        new DeploymentBuilder()
            .withMetadata(
                new ObjectMetaBuilder().withNamespace("billing").withName("ledger").build())
            .withNewSpec()
            .withSelector(new LabelSelectorBuilder().addToMatchLabels("app", "ledger").build())
            .endSpec()
            .build();
    index.upsert(other);
    index.upsert(
        new PodBuilder()
            .withMetadata(
                new ObjectMetaBuilder()
                    .withNamespace("billing")
                    .withName("ledger-7f8c9d6b5c-k4m2n")
                    .addToLabels("app", "ledger")
                    .addToLabels("pod-template-hash", "7f8c9d6b5c")
                    .withOwnerReferences(
                        new OwnerReferenceBuilder()
                            .withKind("ReplicaSet")
                            .withName("ledger-7f8c9d6b5c")
                            .withController(true)
                            .build())
                    .build())
            .withNewStatus()
            .withPodIP("10.244.1.21")
            .withPhase("Running")
            .endStatus()
            .build());

    FlowRecord r = parse(index);
    assertThat(r.src().workload().orElseThrow().key()).isEqualTo("shop/Deployment/frontend");
    assertThat(r.src().workloadSelector())
        .isEqualTo(new LabelSelectorBuilder().addToMatchLabels("app", "frontend").build());
  }
}
