package io.kubewarden.networkenforcer.ingest.resolution;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.common.policy.Labels;
import io.kubewarden.networkenforcer.ingest.hubble.HubbleFlowParser;
import io.kubewarden.networkenforcer.ingest.hubble.HubbleJson;
import io.kubewarden.networkenforcer.ingest.parsing.DropReason;
import io.kubewarden.networkenforcer.ingest.parsing.ParseOutcome;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The rule for a Job without a CronJob, on records shaped like real ones: Hubble records of a
 * one-off Job's pod (no {@code workloads}, or {@code workloads} naming the Job, as Cilium does when
 * no CronJob owns it) with the labels the Job controller adds to every run, and the same pod as the
 * live ingest's informers see it. Only an opt-in with stable labels of its own makes it a peer.
 */
class StandaloneJobPeerTest {
  private static final String OPT_IN = "\"k8s:" + Labels.JOB_PEER + "=db-migrate\",";
  private static final String PER_RUN =
      "\"k8s:batch.kubernetes.io/controller-uid=3f1c9a52-0a4e-4a8e-9d7c-1b2e3f4a5b6c\","
          + "\"k8s:batch.kubernetes.io/job-name=db-migrate\",\"k8s:controller-uid=3f1c9a52-0a4e-4a8e-9d7c-1b2e3f4a5b6c\","
          + "\"k8s:job-name=db-migrate\",\"k8s:io.cilium.k8s.namespace.labels.kubernetes.io/metadata.name=shop\","
          + "\"k8s:io.cilium.k8s.policy.cluster=kind-kind\",\"k8s:io.cilium.k8s.policy.serviceaccount=default\","
          + "\"k8s:io.kubernetes.pod.namespace=shop\"";

  /** A flow from the Job's pod to the database, as {@code hubble observe -o jsonpb} prints it. */
  private static String flow(String sourceLabels, String sourceWorkloads) {
    return "{\"flow\":{\"time\":\"2026-08-03T10:00:05.123456789Z\",\"verdict\":\"FORWARDED\","
        + "\"IP\":{\"source\":\"10.244.1.31\",\"destination\":\"10.244.2.10\",\"ipVersion\":\"IPv4\"},"
        + "\"l4\":{\"TCP\":{\"source_port\":51234,\"destination_port\":5432,\"flags\":{\"SYN\":true}}},"
        + "\"source\":{\"ID\":812,\"identity\":40123,\"cluster_name\":\"kind-kind\",\"namespace\":\"shop\","
        + "\"labels\":["
        + sourceLabels
        + "],\"pod_name\":\"db-migrate-x7k2p\""
        + sourceWorkloads
        + "},"
        + "\"destination\":{\"identity\":40200,\"cluster_name\":\"kind-kind\",\"namespace\":\"shop\","
        + "\"labels\":[\"k8s:app=db\",\"k8s:io.kubernetes.pod.namespace=shop\"],\"pod_name\":\"db-0\","
        + "\"workloads\":[{\"name\":\"db\",\"kind\":\"StatefulSet\"}]},"
        + "\"Type\":\"L3_L4\",\"node_name\":\"kind-kind/kind-worker\",\"event_type\":{\"type\":4},"
        + "\"traffic_direction\":\"EGRESS\",\"trace_observation_point\":\"TO_STACK\",\"Summary\":\"TCP Flags: SYN\"},"
        + "\"node_name\":\"kind-kind/kind-worker\",\"time\":\"2026-08-03T10:00:05.123456789Z\"}";
  }

  private static ParseOutcome parse(String line) throws Exception {
    HubbleFlowParser parser =
        new HubbleFlowParser(new WorkloadResolver(new ClusterIndex()), Clock.systemUTC());
    return parser.parse(HubbleJson.decode(line, Json.mapper().readTree(line)));
  }

  private static final Map<String, String> SELECTOR =
      Map.of("app.kubernetes.io/name", "db-migrate", Labels.JOB_PEER, "db-migrate");

  @Test
  void anOptedInJobWithStableLabelsIsAPeerWithoutAWorkloadOfItsOwn() throws Exception {
    for (String workloads :
        List.of("", ",\"workloads\":[{\"name\":\"db-migrate\",\"kind\":\"Job\"}]")) {
      ParseOutcome outcome =
          parse(flow("\"k8s:app.kubernetes.io/name=db-migrate\"," + OPT_IN + PER_RUN, workloads));
      assertThat(outcome.isDropped()).as("workloads '%s'", workloads).isFalse();
      FlowRecord r = outcome.records().get(0);
      assertThat(r.src().workload()).isEmpty();
      assertThat(r.src().jobPeerKey()).contains("shop/Job/db-migrate");
      assertThat(r.src().workloadSelector())
          .isEqualTo(new LabelSelectorBuilder().withMatchLabels(SELECTOR).build());
      assertThat(r.src().inferred()).isFalse();
      assertThat(r.dst().workload().orElseThrow().key()).isEqualTo("shop/StatefulSet/db");
    }
  }

  @Test
  void withoutTheOptInOrWithOnlyPerRunLabelsItStaysADrop() throws Exception {
    // Stable labels, no opt-in: a Job that ran once is no workload.
    assertThat(parse(flow("\"k8s:app.kubernetes.io/name=db-migrate\"," + PER_RUN, "")).dropReason())
        .isEqualTo(DropReason.NOT_A_WORKLOAD);
    assertThat(
            parse(
                    flow(
                        "\"k8s:app.kubernetes.io/name=db-migrate\"," + PER_RUN,
                        ",\"workloads\":[{\"name\":\"db-migrate\",\"kind\":\"Job\"}]"))
                .dropReason())
        .isEqualTo(DropReason.NOT_A_WORKLOAD);
    // The opt-in, but nothing of its own besides the per-run labels: a selector of them would match
    // one run.
    assertThat(parse(flow(OPT_IN + PER_RUN, "")).dropReason()).isEqualTo(DropReason.NOT_A_WORKLOAD);
    // An opt-in whose value is no DNS label names nothing.
    assertThat(
            parse(
                    flow(
                        "\"k8s:app.kubernetes.io/name=db-migrate\",\"k8s:"
                            + Labels.JOB_PEER
                            + "=Not_A_Name\","
                            + PER_RUN,
                        ""))
                .dropReason())
        .isEqualTo(DropReason.NOT_A_WORKLOAD);
  }

  private static Pod jobPod(Map<String, String> extra, String job) {
    PodBuilder b =
        new PodBuilder()
            .withMetadata(
                new ObjectMetaBuilder()
                    .withNamespace("shop")
                    .withName("db-migrate-x7k2p")
                    .addToLabels("job-name", "db-migrate")
                    .addToLabels("batch.kubernetes.io/job-name", "db-migrate")
                    .addToLabels("controller-uid", "u-1")
                    .addToLabels("batch.kubernetes.io/controller-uid", "u-1")
                    .addToLabels(extra)
                    .withOwnerReferences(
                        new OwnerReferenceBuilder()
                            .withApiVersion("batch/v1")
                            .withKind("Job")
                            .withName(job)
                            .withController(true)
                            .build())
                    .build());
    return b.withNewSpec()
        .withServiceAccountName("migrator")
        .endSpec()
        .withNewStatus()
        .withPodIP("10.244.1.31")
        .withPhase("Running")
        .endStatus()
        .build();
  }

  @Test
  void theLiveIngestAppliesTheSameRuleToThePodsItWatches() {
    ClusterIndex index = new ClusterIndex();
    index.upsert(
        new JobBuilder()
            .withNewMetadata()
            .withNamespace("shop")
            .withName("db-migrate")
            .endMetadata()
            .build());
    Pod optedIn = jobPod(SELECTOR, "db-migrate");
    index.upsert(optedIn);
    WorkloadResolver resolver = new WorkloadResolver(index);

    Resolution peer = resolver.byName("shop", "db-migrate-x7k2p");
    assertThat(peer.resolved()).isTrue();
    assertThat(peer.endpoint().jobPeerKey()).contains("shop/Job/db-migrate");
    assertThat(peer.endpoint().workloadSelector().getMatchLabels()).isEqualTo(SELECTOR);
    assertThat(peer.endpoint().serviceAccount()).isEqualTo("migrator");

    index.upsert(jobPod(Map.of("app.kubernetes.io/name", "db-migrate"), "db-migrate"));
    assertThat(new WorkloadResolver(index).byName("shop", "db-migrate-x7k2p").dropReason())
        .isEqualTo(DropReason.NOT_A_WORKLOAD);
  }
}
