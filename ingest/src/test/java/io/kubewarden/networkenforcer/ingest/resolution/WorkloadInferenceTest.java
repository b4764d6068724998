package io.kubewarden.networkenforcer.ingest.resolution;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.workload.WorkloadKind;
import io.kubewarden.networkenforcer.ingest.parsing.DropReason;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Workloads read from pod names and labels, and the guesses that are refused. */
class WorkloadInferenceTest {

  private static WorkloadInference.Guess guess(String pod, Map<String, String> labels) {
    return WorkloadInference.guess(pod, labels);
  }

  @Test
  void controllerSuffixesNameTheWorkload() {
    // Pod names from Cilium's documentation and Istio's Bookinfo.
    assertThat(guess("deathstar-7848d6c4d5-th9v2", Map.of("app", "deathstar")))
        .isEqualTo(new WorkloadInference.Guess(WorkloadKind.Deployment, "deathstar", null));
    assertThat(guess("productpage-v1-87d54dd59-fn6vw", Map.of()))
        .isEqualTo(new WorkloadInference.Guess(WorkloadKind.Deployment, "productpage-v1", null));
    assertThat(guess("db-0", Map.of("app", "db")))
        .isEqualTo(new WorkloadInference.Guess(WorkloadKind.StatefulSet, "db", null));
    assertThat(guess("log-agent-x7k2p", Map.of("app", "log-agent", "pod-template-generation", "3")))
        .isEqualTo(new WorkloadInference.Guess(WorkloadKind.DaemonSet, "log-agent", null));
    // Goldmane's aggregated names: the prefix and the labels of every pod behind it.
    assertThat(
            guess("nginx-7c5ddbdf54-*", Map.of("app", "nginx", "pod-template-hash", "7c5ddbdf54")))
        .isEqualTo(new WorkloadInference.Guess(WorkloadKind.Deployment, "nginx", null));
    assertThat(
            guess(
                "fluent-bit-*",
                Map.of("app", "fluent-bit", "controller-revision-hash", "6b4f8d7c9")))
        .isEqualTo(new WorkloadInference.Guess(WorkloadKind.DaemonSet, "fluent-bit", null));
  }

  @Test
  void guessesThatCouldBeWrongAreRefusedWithAReason() {
    // A lone generated suffix with nothing saying DaemonSet: could be a bare pod made with
    // generateName.
    assertThat(guess("debug-x7k2p", Map.of("run", "debug")).dropReason())
        .isEqualTo(DropReason.AMBIGUOUS_WORKLOAD);
    assertThat(guess("fluent-bit-*", Map.of("app", "fluent-bit")).dropReason())
        .isEqualTo(DropReason.AMBIGUOUS_WORKLOAD);
    // The pod-template-hash label contradicts the name.
    assertThat(
            guess("web-7848d6c4d5-th9v2", Map.of("pod-template-hash", "5d8f7b9c6d")).dropReason())
        .isEqualTo(DropReason.AMBIGUOUS_WORKLOAD);
    // Named by a person (Cilium's xwing), or a suffix Kubernetes never generates (vowels): a bare
    // pod.
    assertThat(guess("xwing", Map.of("org", "alliance")).dropReason())
        .isEqualTo(DropReason.NOT_A_WORKLOAD);
    assertThat(guess("netshoot-abcde", Map.of()).dropReason()).isEqualTo(DropReason.NOT_A_WORKLOAD);
    // Jobs and CronJob runs are not workloads we write policies for.
    assertThat(guess("migrate-x7k2p", Map.of("job-name", "migrate")).dropReason())
        .isEqualTo(DropReason.NOT_A_WORKLOAD);
    assertThat(guess("report-29245678-x7k2p", Map.of("app", "report")).dropReason())
        .isEqualTo(DropReason.NOT_A_WORKLOAD);
  }

  @Test
  void theSelectorIsTheNonGeneratedLabelsAndTheEndpointIsMarked() {
    WorkloadInference inference = new WorkloadInference(new ClusterIndex());
    Resolution r =
        inference.infer(
            "shop",
            "worker-7f6d5c4b9-n8m2x",
            Map.of("app", "worker", "queue", "orders", "pod-template-hash", "7f6d5c4b9"),
            "10.244.3.51",
            "worker");

    FlowEndpoint e = r.endpoint();
    assertThat(e.workload().orElseThrow().key()).isEqualTo("shop/Deployment/worker");
    assertThat(e.workloadSelector())
        .isEqualTo(
            new LabelSelectorBuilder()
                .addToMatchLabels("app", "worker")
                .addToMatchLabels("queue", "orders")
                .build());
    assertThat(e.inferred()).isTrue();
    assertThat(e.podName()).isEqualTo("worker-7f6d5c4b9-n8m2x");
    assertThat(e.serviceAccount()).isEqualTo("worker");

    // Nothing selectable left: an empty selector would select the whole namespace.
    assertThat(
            inference
                .infer(
                    "shop",
                    "worker-7f6d5c4b9-n8m2x",
                    Map.of("pod-template-hash", "7f6d5c4b9"),
                    null,
                    null)
                .dropReason())
        .isEqualTo(DropReason.AMBIGUOUS_WORKLOAD);
  }

  @Test
  void aWorkloadTheClusterStillHasGivesItsRealSelectorUnmarked() {
    ClusterIndex index = new ClusterIndex();
    index.upsert(
        new DeploymentBuilder()
            .withMetadata(new ObjectMetaBuilder().withNamespace("shop").withName("api").build())
            .withNewSpec()
            .withSelector(new LabelSelectorBuilder().addToMatchLabels("app", "api").build())
            .endSpec()
            .build());
    // The ReplicaSet names its Deployment even when the pod name would suggest another split.
    index.upsert(
        new ReplicaSetBuilder()
            .withMetadata(
                new ObjectMetaBuilder()
                    .withNamespace("shop")
                    .withName("api-5d8f7b9c6d")
                    .withOwnerReferences(
                        new OwnerReferenceBuilder()
                            .withKind("Deployment")
                            .withName("api")
                            .withController(true)
                            .build())
                    .build())
            .build());
    WorkloadInference inference = new WorkloadInference(index);

    FlowEndpoint e =
        inference
            .infer(
                "shop", "api-5d8f7b9c6d-x7k2p", Map.of("app", "api", "track", "canary"), null, null)
            .endpoint();
    assertThat(e.workloadSelector())
        .isEqualTo(new LabelSelectorBuilder().addToMatchLabels("app", "api").build());
    assertThat(e.inferred()).isFalse();

    // The same name with labels the Deployment does not select: not that Deployment's pod after
    // all.
    assertThat(
            inference
                .infer("shop", "api-5d8f7b9c6d-x7k2p", Map.of("app", "other"), null, null)
                .dropReason())
        .isEqualTo(DropReason.AMBIGUOUS_WORKLOAD);
  }

  @Test
  void anAmbiguousPodCarriesItsLabelOnlyFormAndANotAWorkloadOneDoesNot() {
    WorkloadInference inference = new WorkloadInference(new ClusterIndex());
    Resolution r =
        inference.infer(
            "logging",
            "fluent-bit-x7k2p",
            Map.of(
                "app.kubernetes.io/name", "fluent-bit",
                "controller-revision-hash", "6c4f8d9b7",
                "statefulset.kubernetes.io/pod-name", "fluent-bit-x7k2p"),
            "10.244.1.33",
            "fluent-bit");
    assertThat(r.resolved()).isFalse();
    assertThat(r.dropReason()).isEqualTo(DropReason.AMBIGUOUS_WORKLOAD);
    FlowEndpoint peer = r.labelPeer();
    assertThat(peer.labelsOnly()).isTrue();
    assertThat(peer.workload()).isEmpty();
    assertThat(peer.workloadSelector())
        .isEqualTo(
            new LabelSelectorBuilder()
                .addToMatchLabels("app.kubernetes.io/name", "fluent-bit")
                .build());
    assertThat(peer.labelPeerKey()).contains("logging/Labels/app.kubernetes.io/name=fluent-bit");
    assertThat(peer.effectiveNamespaceLabels())
        .containsExactly(Map.entry("kubernetes.io/metadata.name", "logging"));
    assertThat(peer.podName()).isEqualTo("fluent-bit-x7k2p");
    assertThat(peer.ip()).isEqualTo("10.244.1.33");

    // A pod made by hand (no controller suffix) is no peer by labels either: not-a-workload stays.
    Resolution byHand = inference.infer("logging", "debug", Map.of("run", "debug"), null, null);
    assertThat(byHand.dropReason()).isEqualTo(DropReason.NOT_A_WORKLOAD);
    assertThat(byHand.labelPeer()).isNull();
    // Nothing selectable: no label-only form.
    assertThat(
            inference
                .infer("logging", "fluent-bit-x7k2p", Map.of("pod-template-hash", "x"), null, null)
                .labelPeer())
        .isNull();
  }
}
