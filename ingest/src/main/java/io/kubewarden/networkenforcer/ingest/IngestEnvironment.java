package io.kubewarden.networkenforcer.ingest;

import io.kubewarden.networkenforcer.common.config.ConfigException;
import io.kubewarden.networkenforcer.common.config.Durations;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.ingest.publishing.ProducerTuning;
import io.kubewarden.networkenforcer.ingest.transport.StreamSettings;
import io.kubewarden.networkenforcer.ingest.transport.TlsMode;
import io.kubewarden.networkenforcer.ingest.transport.TlsSettings;
import io.kubewarden.networkenforcer.ingest.ztunnel.OtlpSettings;
import java.nio.file.Path;
import java.util.Map;

/**
 * Builds {@link IngestConfig} from the environment variables the Helm chart sets (see the chart
 * README, "Flow source"). Unset variables take the defaults of the Helm values.
 */
public final class IngestEnvironment {
  public static final String PROVIDER = "NE_PROVIDER";
  public static final String OTLP_PORT = "NE_OTLP_PORT";
  public static final String OTLP_HTTP_PORT = "NE_OTLP_HTTP_PORT";
  public static final String HUBBLE_ENDPOINT = "NE_HUBBLE_ENDPOINT";
  public static final String GOLDMANE_ENDPOINT = "NE_GOLDMANE_ENDPOINT";
  public static final String TLS_MODE = "NE_PROVIDER_TLS_MODE";
  public static final String TLS_CERT_DIR = "NE_PROVIDER_TLS_CERT_DIR";
  public static final String TLS_SECRET_NAMESPACE = "NE_PROVIDER_TLS_SECRET_NAMESPACE";
  public static final String TLS_SECRET_NAME = "NE_PROVIDER_TLS_SECRET_NAME";
  public static final String TLS_CA_CONFIGMAP = "NE_PROVIDER_TLS_CA_CONFIGMAP";
  public static final String TLS_CA_CONFIGMAP_KEY = "NE_PROVIDER_TLS_CA_CONFIGMAP_KEY";
  public static final String TLS_SERVER_NAME = "NE_PROVIDER_TLS_SERVER_NAME";
  public static final String TRUST_DOMAIN = "NE_TRUST_DOMAIN";
  public static final String CLUSTER_STATE_FILE = "NE_CLUSTER_STATE_FILE";
  public static final String DUMPER_ENABLED = "NE_FLOW_DUMPER_ENABLED";
  public static final String DUMPER_PORT = "NE_FLOW_DUMPER_PORT";
  public static final String DUMPER_BUFFER_SIZE = "NE_FLOW_DUMPER_BUFFER_SIZE";
  public static final String COMPRESSION = "NE_INGEST_COMPRESSION";
  public static final String LINGER = "NE_INGEST_LINGER";

  private IngestEnvironment() {}

  /** The validated configuration; a {@link ConfigException} names the variable to fix. */
  public static IngestConfig config(Map<String, String> env) {
    String providerName = get(env, PROVIDER);
    if (providerName == null) {
      throw new ConfigException(PROVIDER + " is not set; use istio, calico or cilium (controller.provider.name)");
    }
    Provider provider;
    try {
      provider = Provider.parse(providerName);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(PROVIDER + ": " + e.getMessage());
    }
    IngestConfig config = IngestConfig.defaults(provider);
    TlsMode defaultMode = provider == Provider.istio ? TlsMode.issuer : TlsMode.existingSecret;
    TlsMode mode = get(env, TLS_MODE) == null ? defaultMode : TlsMode.parse(TLS_MODE, get(env, TLS_MODE));
    switch (provider) {
      case cilium -> {
        StreamSettings base = IngestConfig.defaultHubble(mode);
        String serverName = mode == TlsMode.insecure ? null
            : orDefault(env, TLS_SERVER_NAME, base.tls().serverName());
        TlsSettings tls = tls(env, mode, base.tls()).withServerName(serverName);
        config = config.withHubble(new StreamSettings(orDefault(env, HUBBLE_ENDPOINT, base.target()), tls,
            base.initialBackoff(), base.maxBackoff(), base.keepalive()));
      }
      case calico -> {
        StreamSettings base = IngestConfig.defaultGoldmane();
        config = config.withGoldmane(new StreamSettings(orDefault(env, GOLDMANE_ENDPOINT, base.target()),
            tls(env, mode, base.tls()), base.initialBackoff(), base.maxBackoff(), base.keepalive()));
      }
      case istio -> {
        OtlpSettings base = IngestConfig.defaultIstio();
        TlsSettings tls = tls(env, mode, base.tls());
        config = config.withIstio(new OtlpSettings(integer(env, OTLP_PORT, base.grpcPort()),
            integer(env, OTLP_HTTP_PORT, base.httpPort()), tls, base.requireClientCertificate()));
      }
      default -> { }
    }
    if (get(env, TRUST_DOMAIN) != null) {
      config = config.withTrustDomain(get(env, TRUST_DOMAIN));
    }
    if (get(env, CLUSTER_STATE_FILE) != null) {
      config = config.withClusterStateFile(Path.of(get(env, CLUSTER_STATE_FILE)));
    }
    IngestConfig.Dumper d = IngestConfig.Dumper.defaults();
    config = config.withDumper(new IngestConfig.Dumper(bool(env, DUMPER_ENABLED, d.enabled()),
        integer(env, DUMPER_PORT, d.port()), integer(env, DUMPER_BUFFER_SIZE, d.bufferSize())));
    ProducerTuning p = ProducerTuning.defaults();
    config = config.withProducer(new ProducerTuning(orDefault(env, COMPRESSION, p.compression()),
        get(env, LINGER) == null ? p.linger() : Durations.parse(LINGER, get(env, LINGER)), p.batchSizeBytes()));
    return config.validate();
  }

  /** A mounted directory wins, then a named Secret, then the provider's default source. */
  private static TlsSettings tls(Map<String, String> env, TlsMode mode, TlsSettings defaults) {
    if (mode == TlsMode.insecure) {
      return TlsSettings.insecure();
    }
    if (get(env, TLS_CERT_DIR) != null) {
      return TlsSettings.fromDirectory(mode, Path.of(get(env, TLS_CERT_DIR)), defaults.serverName());
    }
    if (get(env, TLS_SECRET_NAME) != null) {
      String namespace = get(env, TLS_SECRET_NAMESPACE);
      if (namespace == null) {
        throw new ConfigException(TLS_SECRET_NAME + " is set but " + TLS_SECRET_NAMESPACE + " is not; name the "
            + "namespace of the Secret");
      }
      TlsSettings s = TlsSettings.fromSecret(mode, namespace, get(env, TLS_SECRET_NAME), defaults.serverName());
      if (get(env, TLS_CA_CONFIGMAP) != null) {
        s = s.withCaConfigMap(get(env, TLS_CA_CONFIGMAP), orDefault(env, TLS_CA_CONFIGMAP_KEY, "ca.crt"));
      }
      return s;
    }
    return new TlsSettings(mode, defaults.certDir(), defaults.secretNamespace(), defaults.secretName(),
        defaults.caConfigMapName(), defaults.caConfigMapKey(), defaults.serverName());
  }

  private static String get(Map<String, String> env, String key) {
    String v = env.get(key);
    return v == null || v.isBlank() ? null : v.trim();
  }

  private static String orDefault(Map<String, String> env, String key, String fallback) {
    String v = get(env, key);
    return v == null ? fallback : v;
  }

  private static int integer(Map<String, String> env, String key, int fallback) {
    String v = get(env, key);
    if (v == null) {
      return fallback;
    }
    try {
      return Integer.parseInt(v);
    } catch (NumberFormatException e) {
      throw new ConfigException(key + " = '" + v + "' is not a whole number");
    }
  }

  private static boolean bool(Map<String, String> env, String key, boolean fallback) {
    String v = get(env, key);
    if (v == null) {
      return fallback;
    }
    if (!v.equalsIgnoreCase("true") && !v.equalsIgnoreCase("false")) {
      throw new ConfigException(key + " = '" + v + "' must be true or false");
    }
    return Boolean.parseBoolean(v);
  }
}
