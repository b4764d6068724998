package io.kubewarden.networkenforcer.writer.rendering;

import static io.kubewarden.networkenforcer.writer.Fixtures.NS;
import static io.kubewarden.networkenforcer.writer.Fixtures.app;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicy;
import io.kubewarden.networkenforcer.common.policy.Labels;
import io.kubewarden.networkenforcer.common.policy.Mode;
import io.kubewarden.networkenforcer.writer.Fixtures;
import io.kubewarden.networkenforcer.writer.MockCluster;
import io.kubewarden.networkenforcer.writer.apply.MockClusterWriter;
import io.kubewarden.networkenforcer.writer.conditions.StatusConditions;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class NativeRendererTest {
  MockCluster cluster;
  KubernetesClient client;
  MockClusterWriter writer;
  RenderConditions conditions;
  NativeRenderer renderer;

  @BeforeEach
  void setUp() {
    cluster = MockCluster.start();
    init();
  }

  void init() {
    client = cluster.client();
    writer = new MockClusterWriter(client);
    conditions = new RenderConditions();
    renderer =
        new NativeRenderer(
            client,
            writer,
            new IstioAvailability(client, Duration.ofMinutes(1), Clock.systemUTC()),
            conditions,
            new SimpleMeterRegistry());
  }

  @AfterEach
  void tearDown() {
    cluster.close();
  }

  WorkloadNetworkPolicy created(WorkloadNetworkPolicy wnp) {
    return client.resource(wnp).create();
  }

  NetworkPolicy networkPolicy() {
    return client
        .network()
        .v1()
        .networkPolicies()
        .inNamespace(NS)
        .withName("deployment-api-ingress")
        .get();
  }

  GenericKubernetesResource authorizationPolicy() {
    return client
        .genericKubernetesResources(AuthorizationPolicies.CONTEXT)
        .inNamespace(NS)
        .withName("deployment-api-ingress")
        .get();
  }

  Map<String, Object> condition(String key) {
    var c = conditions.of(NS + "/" + key).get(0);
    return Map.of("status", c.getStatus(), "reason", c.getReason());
  }

  @Test
  void protectRendersAnOwnedNetworkPolicyAndMonitorDeletesIt() {
    WorkloadNetworkPolicy wnp = created(Fixtures.wnp("api", "web", Mode.protect));
    renderer.render(wnp);

    NetworkPolicy np = networkPolicy();
    assertThat(np.getSpec()).isEqualTo(wnp.getSpec().getKubernetes());
    assertThat(np.getMetadata().getLabels())
        .containsEntry(Labels.MANAGED_BY, Labels.MANAGED_BY_VALUE);
    assertThat(np.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(
            o -> {
              assertThat(o.getKind()).isEqualTo("WorkloadNetworkPolicy");
              assertThat(o.getUid()).isEqualTo(wnp.getMetadata().getUid());
              assertThat(o.getController()).isTrue();
            });
    assertThat(condition("deployment-api-ingress")).containsEntry("status", "True");

    renderer.render(wnp);
    assertThat(writer.count("apply", "NetworkPolicy"))
        .as("unchanged: no second apply")
        .isEqualTo(1);

    wnp.getSpec().setMode(Mode.monitor);
    renderer.render(wnp);
    assertThat(networkPolicy()).isNull();
    assertThat(writer.count("delete", "NetworkPolicy")).isEqualTo(1);
  }

  @Test
  void driftOfTheNetworkPolicyIsRepaired() {
    WorkloadNetworkPolicy wnp = created(Fixtures.wnp("api", "web", Mode.protect));
    renderer.render(wnp);
    NetworkPolicy np = networkPolicy();
    np.getSpec().setPodSelector(app("someone-else"));
    client.resource(np).update();

    renderer.render(wnp);
    assertThat(networkPolicy().getSpec()).isEqualTo(wnp.getSpec().getKubernetes());
    assertThat(writer.count("apply", "NetworkPolicy")).isEqualTo(2);
  }

  @Test
  void aSameNamedNetworkPolicyWeDoNotOwnIsLeftAloneAndReported() {
    NetworkPolicy foreign =
        new NetworkPolicyBuilder()
            .withMetadata(
                new ObjectMetaBuilder()
                    .withName("deployment-api-ingress")
                    .withNamespace(NS)
                    .build())
            .withNewSpec()
            .withPodSelector(app("x"))
            .withPolicyTypes("Ingress")
            .endSpec()
            .build();
    client.resource(foreign).create();
    WorkloadNetworkPolicy wnp = created(Fixtures.wnp("api", "web", Mode.protect));

    renderer.render(wnp);
    assertThat(networkPolicy().getSpec().getPodSelector()).isEqualTo(app("x"));
    assertThat(writer.calls()).isEmpty();
    assertThat(condition("deployment-api-ingress"))
        .containsEntry("status", "False")
        .containsEntry("reason", StatusConditions.REASON_NOT_OWNED);

    wnp.getSpec().setMode(Mode.monitor);
    renderer.render(wnp);
    assertThat(networkPolicy()).as("monitor never deletes an object it does not own").isNotNull();
  }

  @Test
  void istioRendersAnAllowPolicyDryRunInMonitorOnly() {
    WorkloadNetworkPolicy wnp = created(Fixtures.istioWnp("api", app("api"), Mode.monitor));
    renderer.render(wnp);

    GenericKubernetesResource ap = authorizationPolicy();
    assertThat(ap.getMetadata().getAnnotations()).containsEntry("istio.io/dry-run", "true");
    @SuppressWarnings("unchecked")
    Map<String, Object> spec = (Map<String, Object>) ap.getAdditionalProperties().get("spec");
    assertThat(spec)
        .containsEntry("action", "ALLOW")
        .containsEntry("selector", Map.of("matchLabels", Map.of("app", "api")))
        .containsEntry(
            "rules",
            List.of(
                Map.of(
                    "from",
                        List.of(
                            Map.of(
                                "source",
                                Map.of(
                                    "principals", List.of("cluster.local/ns/shop/sa/frontend")))),
                    "to", List.of(Map.of("operation", Map.of("ports", List.of("8080")))))));
    assertThat(ap.getMetadata().getOwnerReferences().get(0).getUid())
        .isEqualTo(wnp.getMetadata().getUid());

    wnp.getSpec().setMode(Mode.protect);
    renderer.render(wnp);
    GenericKubernetesResource enforced = authorizationPolicy();
    assertThat(enforced.getMetadata().getAnnotations()).doesNotContainKey("istio.io/dry-run");
    assertThat(networkPolicy()).as("the istio backend never renders a NetworkPolicy").isNull();
  }

  @Test
  void aSelectorWithMatchExpressionsIsReportedNotDropped() {
    var selector =
        new LabelSelectorBuilder()
            .withMatchLabels(Map.of("app", "api"))
            .addNewMatchExpression()
            .withKey("tier")
            .withOperator("In")
            .withValues("backend")
            .endMatchExpression()
            .build();
    WorkloadNetworkPolicy wnp = created(Fixtures.istioWnp("api", selector, Mode.protect));
    renderer.render(wnp);

    assertThat(authorizationPolicy()).isNull();
    assertThat(condition("deployment-api-ingress"))
        .containsEntry("status", "False")
        .containsEntry("reason", StatusConditions.REASON_SELECTOR_NOT_EXPRESSIBLE);
  }

  @Test
  void aClusterWithoutIstioGetsAConditionNotACrash() {
    cluster.close();
    cluster = MockCluster.withoutIstio();
    init();
    WorkloadNetworkPolicy wnp = created(Fixtures.istioWnp("api", app("api"), Mode.protect));
    renderer.render(wnp);

    assertThat(writer.calls()).isEmpty();
    assertThat(condition("deployment-api-ingress"))
        .containsEntry("status", "False")
        .containsEntry("reason", StatusConditions.REASON_ISTIO_UNAVAILABLE);
  }
}
