package io.kubewarden.networkenforcer.ingest;

import io.kubewarden.networkenforcer.common.config.ConfigException;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.ingest.hubble.NodeLocalHubble;
import io.kubewarden.networkenforcer.ingest.publishing.ProducerTuning;
import io.kubewarden.networkenforcer.ingest.transport.Keepalive;
import io.kubewarden.networkenforcer.ingest.transport.StreamSettings;
import io.kubewarden.networkenforcer.ingest.transport.TlsMode;
import io.kubewarden.networkenforcer.ingest.transport.TlsSettings;
import io.kubewarden.networkenforcer.ingest.ztunnel.OtlpSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Everything the ingest service needs besides Kafka. Defaults follow the Helm values in api.md;
 * {@link #validate()} says what to fix.
 *
 * @param provider the data plane of this installation: istio, calico or cilium
 * @param hubble Hubble Relay connection (cilium)
 * @param goldmane Goldmane connection (calico)
 * @param istio the OTLP receiver fluent-bit sends ztunnel logs to (istio)
 * @param trustDomain the SPIFFE trust domain of the mesh
 * @param clusterStateFile resolve against this {@code kubectl get -o json|yaml} List instead of
 *     informers, or null
 * @param dumper the optional {@code GET /flow} debug endpoint
 * @param producer flows producer batching and compression
 * @param hubbleNodeLocal the node whose Hubble server {@code hubble} reads (a DaemonSet pod), or
 *     null when it reads Relay
 */
public record IngestConfig(
    Provider provider,
    StreamSettings hubble,
    StreamSettings goldmane,
    OtlpSettings istio,
    String trustDomain,
    Path clusterStateFile,
    Dumper dumper,
    ProducerTuning producer,
    NodeLocalHubble hubbleNodeLocal) {

  /** {@code controller.flowDumper.{enabled,port,bufferSize}}. */
  public record Dumper(boolean enabled, int port, int bufferSize) {
    public static Dumper defaults() {
      return new Dumper(false, 9080, 10_000);
    }
  }

  public static final Duration INITIAL_BACKOFF = Duration.ofSeconds(1);
  public static final Duration MAX_BACKOFF = Duration.ofMinutes(1);

  /** Where the chart mounts provider certificates ({@code NE_PROVIDER_TLS_CERT_DIR}). */
  public static final String DEFAULT_PROVIDER_CERT_DIR = "/etc/provider/certs";

  /** Hubble Relay defaults: the client Secret and server name of the Cilium chart. */
  public static StreamSettings defaultHubble(TlsMode mode) {
    if (mode == TlsMode.insecure) {
      return new StreamSettings(
          "hubble-relay.kube-system.svc:80",
          TlsSettings.insecure(),
          INITIAL_BACKOFF,
          MAX_BACKOFF,
          Keepalive.grpcGoCompatible());
    }
    return new StreamSettings(
        "hubble-relay.kube-system.svc:443",
        TlsSettings.fromSecret(
            mode, "kube-system", "hubble-relay-client-certs", "ui.hubble-relay.cilium.io"),
        INITIAL_BACKOFF,
        MAX_BACKOFF,
        Keepalive.grpcGoCompatible());
  }

  /** Goldmane defaults: the operator's key pair Secret and CA bundle ConfigMap. */
  public static StreamSettings defaultGoldmane() {
    return new StreamSettings(
        "goldmane.calico-system.svc:7443",
        TlsSettings.fromSecret(TlsMode.existingSecret, "calico-system", "goldmane-key-pair", null)
            .withCaConfigMap("goldmane-ca-bundle", "tigera-ca-bundle.crt"),
        INITIAL_BACKOFF,
        MAX_BACKOFF,
        Keepalive.grpcGoCompatible());
  }

  public static OtlpSettings defaultIstio() {
    // The chart gives fluent-bit a client certificate of the same CA: mutual TLS by default, and
    // only fluent-bit's name is accepted (the chart's namespace; --otlp-client-name sets another).
    return new OtlpSettings(
        4317,
        4318,
        TlsSettings.fromDirectory(TlsMode.issuer, Path.of(DEFAULT_PROVIDER_CERT_DIR), null),
        OtlpSettings.fluentBitName("network-enforcer"));
  }

  public static IngestConfig defaults(Provider provider) {
    return new IngestConfig(
        provider,
        defaultHubble(TlsMode.existingSecret),
        defaultGoldmane(),
        defaultIstio(),
        "cluster.local",
        null,
        Dumper.defaults(),
        ProducerTuning.defaults(),
        null);
  }

  public IngestConfig withHubble(StreamSettings s) {
    return new IngestConfig(
        provider,
        s,
        goldmane,
        istio,
        trustDomain,
        clusterStateFile,
        dumper,
        producer,
        hubbleNodeLocal);
  }

  public IngestConfig withGoldmane(StreamSettings s) {
    return new IngestConfig(
        provider,
        hubble,
        s,
        istio,
        trustDomain,
        clusterStateFile,
        dumper,
        producer,
        hubbleNodeLocal);
  }

  public IngestConfig withIstio(OtlpSettings s) {
    return new IngestConfig(
        provider,
        hubble,
        goldmane,
        s,
        trustDomain,
        clusterStateFile,
        dumper,
        producer,
        hubbleNodeLocal);
  }

  public IngestConfig withClusterStateFile(Path file) {
    return new IngestConfig(
        provider, hubble, goldmane, istio, trustDomain, file, dumper, producer, hubbleNodeLocal);
  }

  public IngestConfig withDumper(Dumper d) {
    return new IngestConfig(
        provider,
        hubble,
        goldmane,
        istio,
        trustDomain,
        clusterStateFile,
        d,
        producer,
        hubbleNodeLocal);
  }

  public IngestConfig withTrustDomain(String td) {
    return new IngestConfig(
        provider, hubble, goldmane, istio, td, clusterStateFile, dumper, producer, hubbleNodeLocal);
  }

  public IngestConfig withProducer(ProducerTuning p) {
    return new IngestConfig(
        provider,
        hubble,
        goldmane,
        istio,
        trustDomain,
        clusterStateFile,
        dumper,
        p,
        hubbleNodeLocal);
  }

  /**
   * Reads the Hubble server of one node instead of Relay: {@code hubble}'s target becomes the
   * node's address and its TLS server name the node's in Cilium's Hubble certificate (the client
   * certificate stays as set: Relay's client certificate is what the agents accept).
   */
  public IngestConfig withHubbleNodeLocal(NodeLocalHubble node) {
    node.validate();
    TlsSettings tls =
        hubble.tls().isInsecure() ? hubble.tls() : hubble.tls().withServerName(node.serverName());
    StreamSettings s =
        new StreamSettings(
            node.target(), tls, hubble.initialBackoff(), hubble.maxBackoff(), hubble.keepalive());
    return new IngestConfig(
        provider, s, goldmane, istio, trustDomain, clusterStateFile, dumper, producer, node);
  }

  /** Checks the settings the chosen provider uses. Returns this for chaining. */
  public IngestConfig validate() {
    if (provider == null || provider == Provider.file) {
      throw new ConfigException(
          "controller.provider.name must be istio, calico or cilium"
              + (provider == Provider.file
                  ? " (capture files are read with the learn command, not the service)"
                  : ""));
    }
    switch (provider) {
      case cilium -> {
        validateStream("controller.provider.cilium", hubble);
        if (hubbleNodeLocal != null) {
          hubbleNodeLocal.validate();
        }
      }
      case calico -> {
        validateStream("controller.provider.calico", goldmane);
        if (goldmane.tls().isInsecure()) {
          throw new ConfigException(
              "controller.provider.calico.tls.mode cannot be insecure: Goldmane only accepts "
                  + "mutual TLS; use existingSecret (Secret calico-system/goldmane-key-pair) or issuer");
        }
      }
      case istio -> {
        checkPort("controller.provider.istio.endpoint", istio.grpcPort(), false);
        checkPort("controller.provider.istio.httpPort", istio.httpPort(), true);
        if (istio.httpPort() == istio.grpcPort()) {
          throw new ConfigException(
              "the OTLP/HTTP port must differ from the OTLP/gRPC port " + istio.grpcPort());
        }
        istio.tls().validate("controller.provider.istio.tls");
        if (!istio.tls().isInsecure() && istio.tls().certDir() == null) {
          throw new ConfigException(
              "controller.provider.istio.tls: the OTLP server reads its certificate from a "
                  + "mounted directory; set its path (default "
                  + DEFAULT_PROVIDER_CERT_DIR
                  + ")");
        }
        if (!istio.tls().isInsecure()
            && (istio.clientName() == null || istio.clientName().isBlank())) {
          throw new ConfigException(
              "controller.provider.istio.tls.clientName (--otlp-client-name) is empty: the "
                  + "OTLP receiver accepts only the client certificate with that name (fluent-bit's, fluent-bit.<namespace> "
                  + "in the chart)");
        }
      }
      default -> {}
    }
    if (trustDomain == null || trustDomain.isBlank() || trustDomain.contains("/")) {
      throw new ConfigException(
          "the mesh trust domain '" + trustDomain + "' must be a name such as cluster.local");
    }
    if (clusterStateFile != null && !Files.isReadable(clusterStateFile)) {
      throw new ConfigException(
          "cluster-state file " + clusterStateFile + " does not exist or cannot be read");
    }
    if (dumper.enabled()) {
      checkPort("controller.flowDumper.port", dumper.port(), false);
      if (provider == Provider.istio
          && (dumper.port() == istio.grpcPort() || dumper.port() == istio.httpPort())) {
        throw new ConfigException(
            "controller.flowDumper.port "
                + dumper.port()
                + " is already used by the OTLP receiver");
      }
    }
    if (dumper.bufferSize() < 1 || dumper.bufferSize() > 1_000_000) {
      throw new ConfigException(
          "controller.flowDumper.bufferSize must be between 1 and 1000000, got "
              + dumper.bufferSize());
    }
    producer.validate();
    return this;
  }

  private static void validateStream(String setting, StreamSettings s) {
    if (s.target() == null || s.target().isBlank()) {
      throw new ConfigException(setting + ".endpoint is empty; set host:port of the service");
    }
    s.tls().validate(setting + ".tls");
    if (s.initialBackoff().isNegative()
        || s.initialBackoff().isZero()
        || s.maxBackoff().compareTo(s.initialBackoff()) < 0) {
      throw new ConfigException(
          setting
              + ": reconnect backoff must be positive and the maximum at least the "
              + "initial wait");
    }
    if (s.keepalive().time().compareTo(Duration.ofMinutes(5)) < 0) {
      throw new ConfigException(
          setting
              + ": keepalive pings every "
              + s.keepalive().time()
              + " would be refused by "
              + "grpc-go servers (minimum 5m); use 5m or more");
    }
  }

  private static void checkPort(String setting, int port, boolean zeroAllowed) {
    if (port < (zeroAllowed ? 0 : 1) || port > 65535) {
      throw new ConfigException(
          setting
              + " must be a port between 1 and 65535"
              + (zeroAllowed ? " (or 0 for off)" : "")
              + ", got "
              + port);
    }
  }
}
