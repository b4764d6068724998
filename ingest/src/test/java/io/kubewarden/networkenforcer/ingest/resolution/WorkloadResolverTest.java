package io.kubewarden.networkenforcer.ingest.resolution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.PodBuilder;
import io.kubewarden.networkenforcer.common.config.ConfigException;
import io.kubewarden.networkenforcer.common.flow.NamedPort;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.workload.WorkloadKind;
import io.kubewarden.networkenforcer.ingest.parsing.DropReason;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WorkloadResolverTest {
  private static WorkloadResolver resolver;

  @BeforeAll
  static void load() throws URISyntaxException {
    Path yaml = Path.of(WorkloadResolverTest.class.getResource("/edge-cluster-state.yaml").toURI());
    resolver = new WorkloadResolver(ClusterStateFile.load(yaml));
  }

  @Test
  void statefulSetPodResolvesWithNamedPortsAndServiceAccount() {
    Resolution r = resolver.byName("shop", "db-0");
    assertThat(r.resolved()).isTrue();
    assertThat(r.endpoint().workloadKind()).isEqualTo(WorkloadKind.StatefulSet);
    assertThat(r.endpoint().workloadName()).isEqualTo("db");
    assertThat(r.endpoint().serviceAccount()).isEqualTo("db-sa");
    assertThat(r.endpoint().namedPorts()).containsExactly(new NamedPort("sql", 5432, Protocol.TCP));
    assertThat(r.endpoint().namedPortsAreKnown()).isTrue();
    assertThat(r.endpoint().namespaceLabels()).containsEntry("team", "red");
  }

  @Test
  void twoRunsOfACronJobResolveToTheCronJobWithItsTemplateLabelsAsSelector() {
    // The first run's Job is in the view (owner reference); the second's is not (yet): its name
    // follows the CronJob's <name>-<scheduled minute> pattern.
    Resolution first = resolver.byName("shop", "backup-29000000-abcde");
    Resolution second = resolver.byIp("10.1.0.22");
    for (Resolution r : List.of(first, second)) {
      assertThat(r.resolved()).isTrue();
      assertThat(r.endpoint().workload().orElseThrow().key()).isEqualTo("shop/CronJob/backup");
      assertThat(r.endpoint().workloadSelector().getMatchLabels())
          .isEqualTo(Map.of("app", "backup", "tier", "ops"));
      assertThat(r.endpoint().workloadSelector().getMatchExpressions()).isNullOrEmpty();
      assertThat(r.endpoint().serviceAccount()).isEqualTo("backup-sa");
    }
    assertThat(first.endpoint().podName()).isNotEqualTo(second.endpoint().podName());
    assertThat(first.endpoint().workloadSelector()).isEqualTo(second.endpoint().workloadSelector());
  }

  @Test
  void perRunJobLabelsAreNeverPartOfACronJobSelector() {
    assertThat(
            CronJobResolution.stableLabels(
                Map.of(
                    "app",
                    "backup",
                    "job-name",
                    "backup-1",
                    "controller-uid",
                    "u",
                    "batch.kubernetes.io/job-name",
                    "backup-1",
                    "batch.kubernetes.io/controller-uid",
                    "u")))
        .isEqualTo(Map.of("app", "backup"));
    assertThat(CronJobResolution.selector(Map.of("job-name", "x", "controller-uid", "u")))
        .isEmpty();
  }

  @Test
  void daemonSetPodResolvesByIpAndByGenerateName() {
    Resolution byIp = resolver.byIp("10.1.0.11");
    assertThat(byIp.endpoint().workloadKind()).isEqualTo(WorkloadKind.DaemonSet);
    assertThat(byIp.endpoint().workloadSelector().getMatchExpressions()).hasSize(1);
    assertThat(byIp.endpoint().serviceAccount()).isEqualTo("default");
    Resolution byPrefix = resolver.byAggregatedName("shop", "agent-*");
    assertThat(byPrefix.endpoint().workloadName()).isEqualTo("agent");
    assertThat(byPrefix.endpoint().podName()).isNull();
  }

  @Test
  void deploymentResolvesThroughThePodTemplateHashWhenTheReplicaSetIsNotKnown() {
    Resolution r = resolver.byName("shop", "web-6d4cf56db6-abcde");
    assertThat(r.endpoint().workload().orElseThrow().key()).isEqualTo("shop/Deployment/web");
  }

  @Test
  void nonWorkloadsAreDroppedWithTheirReason() {
    assertThat(resolver.byIp("172.18.0.3").dropReason()).isEqualTo(DropReason.HOST_NETWORK);
    assertThat(resolver.byName("shop", "migrate-28391-xyz12").dropReason())
        .isEqualTo(DropReason.NOT_A_WORKLOAD);
    assertThat(resolver.byName("shop", "debug").dropReason()).isEqualTo(DropReason.NOT_A_WORKLOAD);
    assertThat(resolver.byName("shop", "lonely-q1w2e").dropReason())
        .isEqualTo(DropReason.NOT_A_WORKLOAD);
    assertThat(resolver.byAggregatedName("shop", "lonely-*").dropReason())
        .isEqualTo(DropReason.NOT_A_WORKLOAD);
    assertThat(resolver.byName("shop", "nope").dropReason()).isEqualTo(DropReason.UNKNOWN_POD);
    assertThat(resolver.byAggregatedName("shop", "gone-abc-*").dropReason())
        .isEqualTo(DropReason.UNKNOWN_POD);
    // A finished pod no longer owns its IP.
    assertThat(resolver.byIp("10.1.0.14").dropReason()).isEqualTo(DropReason.UNKNOWN_POD);
    // The pod is kept for an Istio source that only needs an identity.
    assertThat(resolver.byName("shop", "migrate-28391-xyz12").pod()).isNotNull();
  }

  @Test
  void podIpMovesToTheNewPodAndIsForgottenOnDelete() {
    ClusterIndex index = new ClusterIndex();
    var pod =
        new PodBuilder()
            .withNewMetadata()
            .withName("a")
            .withNamespace("n")
            .endMetadata()
            .withNewStatus()
            .withPhase("Running")
            .withPodIP("10.9.9.9")
            .endStatus()
            .build();
    index.upsert(pod);
    assertThat(index.podByIp("10.9.9.9")).isPresent();
    index.remove(pod);
    assertThat(index.podByIp("10.9.9.9")).isEmpty();
    assertThat(index.podByName("n", "a")).isEmpty();
  }

  @Test
  void aBrokenClusterStateFileSaysWhatToRun(@TempDir Path dir) throws Exception {
    Path bad = Files.writeString(dir.resolve("state.json"), "{ this is not json");
    assertThatThrownBy(() -> ClusterStateFile.load(bad))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("kubectl get");
    assertThatThrownBy(() -> ClusterStateFile.load(dir.resolve("missing.json")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("cannot read");
  }
}
