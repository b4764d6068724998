package io.kubewarden.networkenforcer.cli.services;

import io.kubewarden.networkenforcer.common.config.ConfigException;
import io.kubewarden.networkenforcer.common.config.Durations;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.ingest.IngestConfig;
import io.kubewarden.networkenforcer.ingest.hubble.NodeLocalHubble;
import io.kubewarden.networkenforcer.ingest.transport.StreamSettings;
import io.kubewarden.networkenforcer.ingest.transport.TlsMode;
import io.kubewarden.networkenforcer.ingest.transport.TlsSettings;
import io.kubewarden.networkenforcer.ingest.ztunnel.OtlpSettings;
import java.nio.file.Path;
import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * The ingest options (ingest and standalone), named like the environment variables the chart sets
 * ({@code NE_HUBBLE_ENDPOINT}, {@code NE_PROVIDER_TLS_MODE}, ...). Unset values take the Helm
 * defaults of the provider.
 */
public class IngestOptions {
  @Option(
      names = "--hubble-endpoint",
      paramLabel = "HOST:PORT",
      description =
          "Hubble Relay (cilium); default hubble-relay.kube-system.svc:443 (:80 when insecure).")
  String hubbleEndpoint;

  @Option(
      names = "--hubble-node-local",
      paramLabel = "true|false",
      arity = "0..1",
      fallbackValue = "true",
      defaultValue = "false",
      description =
          "Read only the Hubble server of this pod's node (--node-ip, "
              + "--hubble-node-port) instead of Relay: one ingest per node, a DaemonSet (cilium; default: "
              + "${DEFAULT-VALUE}).")
  boolean hubbleNodeLocal;

  @Option(
      names = "--node-name",
      paramLabel = "NODE",
      description = "This pod's node (the chart: spec.nodeName); node-local ingest only.")
  String nodeName;

  @Option(
      names = "--node-ip",
      paramLabel = "ADDRESS",
      description = "This pod's node address (the chart: status.hostIP); node-local ingest only.")
  String nodeIp;

  @Option(
      names = "--hubble-node-port",
      paramLabel = "PORT",
      defaultValue = "4244",
      description = "The Cilium agent's Hubble port on each node (default: ${DEFAULT-VALUE}).")
  int hubbleNodePort;

  @Option(
      names = "--cilium-cluster-name",
      paramLabel = "NAME",
      defaultValue = "default",
      description =
          "Cilium's cluster.name: the agents' Hubble certificates name "
              + "<node>.<cluster>.hubble-grpc.cilium.io (default: ${DEFAULT-VALUE}).")
  String ciliumClusterName;

  @Option(
      names = "--goldmane-endpoint",
      paramLabel = "HOST:PORT",
      description = "Goldmane (calico); default goldmane.calico-system.svc:7443.")
  String goldmaneEndpoint;

  @Option(
      names = "--otlp-port",
      paramLabel = "PORT",
      defaultValue = "4317",
      description =
          "OTLP/gRPC logs port fluent-bit sends ztunnel logs to (istio; default: ${DEFAULT-VALUE}).")
  int otlpPort;

  @Option(
      names = "--otlp-http-port",
      paramLabel = "PORT",
      defaultValue = "4318",
      description = "OTLP/HTTP /v1/logs port (istio; 0 = off; default: ${DEFAULT-VALUE}).")
  int otlpHttpPort;

  @Option(
      names = "--otlp-client-name",
      paramLabel = "NAME",
      defaultValue = "fluent-bit.network-enforcer",
      description =
          "The name (common name, DNS or URI SAN) in fluent-bit's client certificate: the only client "
              + "the OTLP receiver accepts over TLS; another certificate of the same CA is refused (istio; the chart "
              + "sets fluent-bit.<namespace>; default: ${DEFAULT-VALUE}).")
  String otlpClientName;

  @Option(
      names = "--provider-tls-mode",
      paramLabel = "issuer|existingSecret|insecure",
      description =
          "TLS of the provider hop; default issuer (istio), existingSecret (cilium, calico).")
  String tlsMode;

  @Option(
      names = "--provider-tls-cert-dir",
      paramLabel = "DIR",
      description = "Mounted tls.crt, tls.key, ca.crt of the provider hop.")
  Path tlsCertDir;

  @Option(
      names = "--provider-tls-secret-namespace",
      paramLabel = "NAMESPACE",
      description = "Namespace of the Secret to read the certificates from (when not mounted).")
  String tlsSecretNamespace;

  @Option(
      names = "--provider-tls-secret-name",
      paramLabel = "NAME",
      description = "That Secret's name.")
  String tlsSecretName;

  @Option(
      names = "--provider-tls-ca-configmap",
      paramLabel = "NAME",
      description =
          "A ConfigMap (in the Secret's namespace) holding the CA bundle instead of ca.crt.")
  String tlsCaConfigMap;

  @Option(
      names = "--provider-tls-ca-configmap-key",
      paramLabel = "KEY",
      defaultValue = "ca.crt",
      description = "Key of the CA bundle in that ConfigMap (default: ${DEFAULT-VALUE}).")
  String tlsCaConfigMapKey;

  @Option(
      names = "--provider-tls-server-name",
      paramLabel = "NAME",
      description = "TLS server name to verify (cilium default ui.hubble-relay.cilium.io).")
  String tlsServerName;

  @Option(
      names = "--trust-domain",
      paramLabel = "DOMAIN",
      defaultValue = "cluster.local",
      description = "SPIFFE trust domain of the mesh (default: ${DEFAULT-VALUE}).")
  String trustDomain;

  @Option(
      names = "--cluster-state",
      paramLabel = "FILE",
      description = "Resolve pods against this kubectl get -o json|yaml List instead of informers.")
  Path clusterState;

  @Option(
      names = "--flow-dumper-enabled",
      paramLabel = "true|false",
      arity = "0..1",
      fallbackValue = "true",
      defaultValue = "false",
      description = "Serve GET /flow (recent flows as JSON lines; default: ${DEFAULT-VALUE}).")
  boolean dumperEnabled;

  @Option(
      names = "--flow-dumper-port",
      paramLabel = "PORT",
      defaultValue = "9080",
      description = "Port of the flow dumper (default: ${DEFAULT-VALUE}).")
  int dumperPort;

  @Option(
      names = "--flow-dumper-buffer-size",
      paramLabel = "N",
      defaultValue = "10000",
      description = "Flows the dumper keeps (default: ${DEFAULT-VALUE}).")
  int dumperBufferSize;

  @Option(
      names = "--aggregation-window",
      paramLabel = "DURATION",
      defaultValue = "5s",
      description =
          "Repeated flows (same workloads and pods, port, protocol, verdict, reporter) are folded into "
              + "one record with a count and first/last seen per window before they are published; 0 publishes every "
              + "flow as it comes (default: ${DEFAULT-VALUE}).")
  String aggregationWindow;

  /** The validated ingest configuration for this provider. */
  public IngestConfig config(Provider provider) {
    TlsMode mode =
        tlsMode == null || tlsMode.isBlank()
            ? (provider == Provider.istio ? TlsMode.issuer : TlsMode.existingSecret)
            : TlsMode.parse("--provider-tls-mode", tlsMode.trim());
    IngestConfig config =
        IngestConfig.defaults(provider)
            .withTrustDomain(trustDomain)
            .withDumper(new IngestConfig.Dumper(dumperEnabled, dumperPort, dumperBufferSize));
    config =
        config.withProducer(
            config.producer().withAggregationWindow(aggregationWindow(aggregationWindow)));
    if (clusterState != null) {
      config = config.withClusterStateFile(clusterState);
    }
    switch (provider) {
      case cilium -> {
        StreamSettings d = IngestConfig.defaultHubble(mode);
        config =
            config.withHubble(
                new StreamSettings(
                    endpoint(hubbleEndpoint, d.target()),
                    tls(d.tls(), mode),
                    d.initialBackoff(),
                    d.maxBackoff(),
                    d.keepalive()));
        if (hubbleNodeLocal) {
          config = nodeLocal(config);
        }
      }
      case calico -> {
        if (mode == TlsMode.insecure) {
          throw new ConfigException(
              "--provider-tls-mode insecure is not possible with calico: Goldmane only "
                  + "accepts mutual TLS; use existingSecret (Secret calico-system/goldmane-key-pair) or issuer");
        }
        StreamSettings d = IngestConfig.defaultGoldmane();
        config =
            config.withGoldmane(
                new StreamSettings(
                    endpoint(goldmaneEndpoint, d.target()),
                    tls(d.tls(), mode),
                    d.initialBackoff(),
                    d.maxBackoff(),
                    d.keepalive()));
      }
      case istio -> {
        OtlpSettings d = IngestConfig.defaultIstio();
        config =
            config.withIstio(
                new OtlpSettings(otlpPort, otlpHttpPort, tls(d.tls(), mode), otlpClientName));
      }
      default -> throw new ConfigException("--provider must be istio, calico or cilium");
    }
    if (hubbleNodeLocal && provider != Provider.cilium) {
      throw new ConfigException(
          "--hubble-node-local reads Cilium's Hubble servers; the provider is " + provider);
    }
    return config.validate();
  }

  /**
   * The node's own Hubble server: its address and TLS name come from the node, not from options.
   */
  private IngestConfig nodeLocal(IngestConfig config) {
    if (hubbleEndpoint != null && !hubbleEndpoint.isBlank()) {
      throw new ConfigException(
          "--hubble-endpoint "
              + hubbleEndpoint
              + " and --hubble-node-local exclude each other: "
              + "node-local ingest reads the Hubble server at --node-ip:--hubble-node-port");
    }
    if (tlsServerName != null && !tlsServerName.isBlank()) {
      throw new ConfigException(
          "--provider-tls-server-name and --hubble-node-local exclude each other: the server "
              + "name is the node's, <node>.<cluster>.hubble-grpc.cilium.io (--cilium-cluster-name)");
    }
    return config.withHubbleNodeLocal(
        new NodeLocalHubble(nodeName, nodeIp, hubbleNodePort, ciliumClusterName));
  }

  static Duration aggregationWindow(String text) {
    return Durations.parse("--aggregation-window", text);
  }

  private static String endpoint(String given, String fallback) {
    return given == null || given.isBlank() ? fallback : given.trim();
  }

  private TlsSettings tls(TlsSettings defaults, TlsMode mode) {
    if (mode == TlsMode.insecure) {
      return TlsSettings.insecure();
    }
    TlsSettings t;
    if (tlsCertDir != null) {
      t = TlsSettings.fromDirectory(mode, tlsCertDir, defaults.serverName());
    } else if (tlsSecretName != null && !tlsSecretName.isBlank()) {
      if (tlsSecretNamespace == null || tlsSecretNamespace.isBlank()) {
        throw new ConfigException(
            "--provider-tls-secret-name "
                + tlsSecretName
                + " needs "
                + "--provider-tls-secret-namespace");
      }
      t = TlsSettings.fromSecret(mode, tlsSecretNamespace, tlsSecretName, defaults.serverName());
    } else {
      t =
          new TlsSettings(
              mode,
              defaults.certDir(),
              defaults.secretNamespace(),
              defaults.secretName(),
              defaults.caConfigMapName(),
              defaults.caConfigMapKey(),
              defaults.serverName());
    }
    if (tlsCaConfigMap != null && !tlsCaConfigMap.isBlank()) {
      t = t.withCaConfigMap(tlsCaConfigMap, tlsCaConfigMapKey);
    }
    if (tlsServerName != null && !tlsServerName.isBlank()) {
      t = t.withServerName(tlsServerName);
    }
    return t;
  }
}
