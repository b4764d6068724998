package io.kubewarden.networkenforcer.common.evaluation;

import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.NamedPort;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.workload.WorkloadKind;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The small cluster the evaluator tables run in. Namespaces and their labels (none of them carries
 * {@code kubernetes.io/metadata.name} explicitly, so the implicit label is exercised everywhere):
 * {@code default} (no labels), {@code prod} ({@code project: myproject, env: prod}), {@code alice}
 * ({@code user: alice}), {@code bob} ({@code user: bob, env: dev}).
 */
final class Endpoints {

  static final Map<String, Map<String, String>> NAMESPACE_LABELS =
      Map.of(
          "default", Map.of(),
          "prod", Map.of("project", "myproject", "env", "prod"),
          "alice", Map.of("user", "alice"),
          "bob", Map.of("user", "bob", "env", "dev"));

  private Endpoints() {}

  /** A Deployment pod in {@code namespace} with labels given as key, value, key, value, ... */
  static FlowEndpoint pod(String namespace, String... labels) {
    return podBuilder(namespace, labels).build();
  }

  static FlowEndpoint.Builder podBuilder(String namespace, String... labels) {
    return FlowEndpoint.builder()
        .namespace(namespace)
        .namespaceLabels(NAMESPACE_LABELS.getOrDefault(namespace, Map.of()))
        .workload(WorkloadKind.Deployment, "app")
        .podLabels(labels(labels));
  }

  static FlowEndpoint podWithIp(String ip, String namespace, String... labels) {
    return podBuilder(namespace, labels).ip(ip).build();
  }

  static FlowEndpoint podWithPorts(List<NamedPort> ports, String namespace, String... labels) {
    return podBuilder(namespace, labels).namedPorts(ports).namedPortsKnown(true).build();
  }

  /** A pod whose spec was read and has no named container port. */
  static FlowEndpoint podWithoutNamedPorts(String namespace, String... labels) {
    return podBuilder(namespace, labels).namedPortsKnown(true).build();
  }

  static FlowEndpoint podWithIdentity(String identity, String namespace, String... labels) {
    return podBuilder(namespace, labels).identity(identity).build();
  }

  /** An address outside the cluster: no namespace, no labels. */
  static FlowEndpoint external(String ip) {
    return FlowEndpoint.outsideCluster(ip, null);
  }

  static NamedPort tcp(String name, int port) {
    return new NamedPort(name, port, Protocol.TCP);
  }

  static NamedPort udp(String name, int port) {
    return new NamedPort(name, port, Protocol.UDP);
  }

  static Map<String, String> labels(String... keyValues) {
    if (keyValues.length % 2 != 0) {
      throw new IllegalArgumentException("labels come in key, value pairs");
    }
    Map<String, String> map = new HashMap<>();
    for (int i = 0; i < keyValues.length; i += 2) {
      map.put(keyValues[i], keyValues[i + 1]);
    }
    return map;
  }
}
