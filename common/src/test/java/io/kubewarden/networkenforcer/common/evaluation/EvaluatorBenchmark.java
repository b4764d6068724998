package io.kubewarden.networkenforcer.common.evaluation;

import com.sun.management.ThreadMXBean;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicySpec;
import io.kubewarden.networkenforcer.common.crd.IstioPolicy;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.policy.Direction;
import java.lang.management.ManagementFactory;
import java.util.function.Supplier;

/**
 * Prints nanoseconds and bytes allocated per evaluation (not a test: figures depend on the
 * machine). Run: {@code java -cp <test classpath>
 * io.kubewarden.networkenforcer.common.evaluation.EvaluatorBenchmark}.
 */
public final class EvaluatorBenchmark {

  private static final int ITERATIONS = 2_000_000;
  private static volatile Object sink;

  private EvaluatorBenchmark() {}

  /**
   * A learned-style proposal: several namespace+pod peers, each with ports; the flow hits the last.
   */
  private static final String LEARNED =
      """
      podSelector: {matchLabels: {app: web}}
      policyTypes: [Ingress]
      ingress:
      - from:
        - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: prod}}
          podSelector: {matchLabels: {app: a}}
        ports: [{protocol: TCP, port: 8080}]
      - from:
        - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: prod}}
          podSelector: {matchLabels: {app: b}}
        ports: [{protocol: TCP, port: 8080}, {protocol: TCP, port: 9090}]
      - from:
        - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: bob}}
          podSelector: {matchExpressions: [{key: app, operator: In, values: [c, d]}]}
        ports: [{protocol: UDP, port: 53}, {protocol: TCP, port: 8000, endPort: 8100}]
      """;

  public static void main(String[] args) {
    NetworkPolicySpec learned = NetworkPolicyEvaluatorTest.spec(LEARNED);
    NetworkPolicySpec docs =
        NetworkPolicyEvaluatorTest.spec(NetworkPolicyEvaluatorTest.DOCS_EXAMPLE);
    IstioPolicy istio = IstioPolicyEvaluatorTest.policy(IstioPolicyEvaluatorTest.TWO_RULES);
    FlowEndpoint web = Endpoints.pod("default", "app", "web");
    FlowEndpoint db = Endpoints.podWithIp("10.244.0.10", "default", "role", "db");
    FlowEndpoint client = Endpoints.pod("bob", "app", "d");
    FlowEndpoint external = Endpoints.external("172.17.0.5");
    FlowEndpoint externalV6 = Endpoints.external("2001:db8:2::1");
    FlowEndpoint prometheus = IstioPolicyEvaluatorTest.PROMETHEUS;
    FlowEndpoint istioWeb = IstioPolicyEvaluatorTest.WEB;

    for (int round = 0; round < 2; round++) { // first round warms up the JIT
      boolean print = round == 1;
      measure(
          print,
          "kubernetes learned proposal, last rule allows",
          () ->
              NetworkPolicyEvaluator.evaluate(
                  learned, Direction.Ingress, client, web, Protocol.TCP, 8050));
      measure(
          print,
          "kubernetes learned proposal, denied",
          () ->
              NetworkPolicyEvaluator.evaluate(
                  learned, Direction.Ingress, client, web, Protocol.TCP, 7000));
      measure(
          print,
          "kubernetes docs example, IPv4 ipBlock allows",
          () ->
              NetworkPolicyEvaluator.evaluate(
                  docs, Direction.Ingress, external, db, Protocol.TCP, 6379));
      measure(
          print,
          "kubernetes docs example, IPv6 peer denied",
          () ->
              NetworkPolicyEvaluator.evaluate(
                  docs, Direction.Ingress, externalV6, db, Protocol.TCP, 6379));
      measure(
          print,
          "istio two rules, second allows",
          () -> IstioPolicyEvaluator.evaluate(istio, prometheus, istioWeb, Protocol.TCP, 9090));
    }
  }

  private static void measure(boolean print, String name, Supplier<Decision> evaluation) {
    var threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
    long threadId = Thread.currentThread().getId();
    Decision last = null;
    long bytesBefore = threads.getThreadAllocatedBytes(threadId);
    long start = System.nanoTime();
    for (int i = 0; i < ITERATIONS; i++) {
      last = evaluation.get();
    }
    long elapsed = System.nanoTime() - start;
    long bytes = threads.getThreadAllocatedBytes(threadId) - bytesBefore;
    sink = last;
    if (print) {
      System.out.printf(
          "%-50s %-9s %7.1f ns/op %7.1f B/op%n",
          name, last, (double) elapsed / ITERATIONS, (double) bytes / ITERATIONS);
    }
  }
}
