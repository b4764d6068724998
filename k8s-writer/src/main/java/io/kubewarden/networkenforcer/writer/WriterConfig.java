package io.kubewarden.networkenforcer.writer;

import io.kubewarden.networkenforcer.common.config.ConfigException;
import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.writer.telemetry.TelemetrySettings;
import java.io.IOException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Objects;

/**
 * Everything the writer needs, with the defaults of the Helm chart. Build with {@link #builder()},
 * then {@link #validate()}: it names the setting to fix.
 *
 * @param namespace where the Lease lives (the writer's own namespace)
 * @param identity this replica's name in the Lease (the pod name)
 * @param statusUpdateInterval {@code wnpStatusUpdateInterval}: how often buffered violations reach
 *     the status
 * @param fieldManager the server-side apply field manager of every object we write
 * @param consumerGroup prefix of the Kafka consumer groups ({@code -proposals}, {@code
 *     -violations})
 * @param maxBufferedViolations consumption pauses above this many buffered, unwritten observations
 * @param resyncPeriod how often informers replay the cache (repairs drift nobody told us about)
 * @param liveView serve the read-only live view page on the management port (off by default)
 * @param convergenceQuietPeriod the processor's quiet period: events lost by the data plane hold a
 *     proposal's {@code Converged} false until this long has passed without loss
 * @param groupInstanceId this replica's stable name in its consumer groups (Kafka static
 *     membership; each group adds {@code -<group>}), or null for dynamic membership: a leader
 *     restarted in place (SIGKILL, OOM) gets its partitions back at once instead of after its dead
 *     members' session timeout
 */
public record WriterConfig(
    String namespace,
    String leaseName,
    String identity,
    Duration leaseDuration,
    Duration renewDeadline,
    Duration retryPeriod,
    Duration statusUpdateInterval,
    String fieldManager,
    String consumerGroup,
    int maxBufferedViolations,
    Duration resyncPeriod,
    TelemetrySettings telemetry,
    KafkaSettings kafka,
    boolean liveView,
    Duration convergenceQuietPeriod,
    String groupInstanceId) {

  public static final String DEFAULT_LEASE_NAME = "network-enforcer-writer";
  public static final String DEFAULT_FIELD_MANAGER = "network-enforcer";
  public static final Duration DEFAULT_STATUS_UPDATE_INTERVAL = Duration.ofSeconds(30);

  public static Builder builder() {
    return new Builder();
  }

  public Builder toBuilder() {
    return new Builder()
        .namespace(namespace)
        .leaseName(leaseName)
        .identity(identity)
        .leaseDuration(leaseDuration)
        .renewDeadline(renewDeadline)
        .retryPeriod(retryPeriod)
        .statusUpdateInterval(statusUpdateInterval)
        .fieldManager(fieldManager)
        .consumerGroup(consumerGroup)
        .maxBufferedViolations(maxBufferedViolations)
        .resyncPeriod(resyncPeriod)
        .telemetry(telemetry)
        .kafka(kafka)
        .liveView(liveView)
        .convergenceQuietPeriod(convergenceQuietPeriod)
        .groupInstanceId(groupInstanceId);
  }

  /** Checks every value; returns this. */
  public WriterConfig validate() {
    requireName("writer namespace (--namespace, POD_NAMESPACE)", namespace);
    requireName("lease name (--lease-name)", leaseName);
    if (identity == null || identity.isBlank()) {
      throw new ConfigException(
          "writer identity is empty; set --identity or POD_NAME to this replica's name");
    }
    requirePositive("lease duration", leaseDuration);
    requirePositive("lease renew deadline", renewDeadline);
    requirePositive("lease retry period", retryPeriod);
    if (renewDeadline.compareTo(leaseDuration) >= 0) {
      throw new ConfigException(
          "lease renew deadline ("
              + renewDeadline
              + ") must be shorter than the lease duration ("
              + leaseDuration
              + ")");
    }
    if (retryPeriod.compareTo(renewDeadline) >= 0) {
      throw new ConfigException(
          "lease retry period ("
              + retryPeriod
              + ") must be shorter than the renew deadline ("
              + renewDeadline
              + ")");
    }
    requirePositive("wnpStatusUpdateInterval", statusUpdateInterval);
    requirePositive("informer resync period", resyncPeriod);
    requirePositive(
        "convergence quiet period (--convergence-quiet-period)", convergenceQuietPeriod);
    if (fieldManager == null || fieldManager.isBlank() || fieldManager.length() > 128) {
      throw new ConfigException(
          "field manager must be 1 to 128 characters, got '" + fieldManager + "'");
    }
    if (consumerGroup == null || consumerGroup.isBlank()) {
      throw new ConfigException("kafka consumer group of the writer is empty");
    }
    if (groupInstanceId != null && (groupInstanceId.isBlank() || groupInstanceId.length() > 200)) {
      throw new ConfigException(
          "group instance id must be unset (dynamic membership) or 1 to 200 characters, got '"
              + groupInstanceId
              + "'");
    }
    if (maxBufferedViolations < 1) {
      throw new ConfigException(
          "max buffered violations must be at least 1, got " + maxBufferedViolations);
    }
    Objects.requireNonNull(telemetry, "telemetry").validate();
    if (kafka == null) {
      throw new ConfigException("kafka settings are missing; set --kafka-bootstrap-servers");
    }
    kafka.validate();
    return this;
  }

  private static void requireName(String what, String value) {
    if (value == null || !value.matches("[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?")) {
      throw new ConfigException(
          what
              + " must be a Kubernetes name (lower case letters, digits, '-', '.'), got '"
              + value
              + "'");
    }
  }

  private static void requirePositive(String what, Duration d) {
    if (d == null || d.isZero() || d.isNegative()) {
      throw new ConfigException(what + " must be a positive duration such as 30s, got " + d);
    }
  }

  /**
   * Defaults: lease 15s/10s/2s like controller-runtime, status every 30s, field manager
   * network-enforcer.
   */
  public static final class Builder {
    private String namespace = "network-enforcer";
    private String leaseName = DEFAULT_LEASE_NAME;
    private String identity = defaultIdentity();
    private Duration leaseDuration = Duration.ofSeconds(15);
    private Duration renewDeadline = Duration.ofSeconds(10);
    private Duration retryPeriod = Duration.ofSeconds(2);
    private Duration statusUpdateInterval = DEFAULT_STATUS_UPDATE_INTERVAL;
    private String fieldManager = DEFAULT_FIELD_MANAGER;
    private String consumerGroup = "network-enforcer-writer";
    private int maxBufferedViolations = 100_000;
    private Duration resyncPeriod = Duration.ofMinutes(10);
    private TelemetrySettings telemetry = TelemetrySettings.disabled();
    private KafkaSettings kafka;
    private boolean liveView;
    private Duration convergenceQuietPeriod = Duration.ofDays(7);
    private String groupInstanceId;

    private static String defaultIdentity() {
      String pod = System.getenv("POD_NAME");
      if (pod != null && !pod.isBlank()) {
        return pod;
      }
      try {
        return InetAddress.getLocalHost().getHostName();
      } catch (IOException e) {
        return "writer-" + ProcessHandle.current().pid();
      }
    }

    public Builder namespace(String v) {
      namespace = v;
      return this;
    }

    public Builder leaseName(String v) {
      leaseName = v;
      return this;
    }

    public Builder identity(String v) {
      identity = v;
      return this;
    }

    public Builder leaseDuration(Duration v) {
      leaseDuration = v;
      return this;
    }

    public Builder renewDeadline(Duration v) {
      renewDeadline = v;
      return this;
    }

    public Builder retryPeriod(Duration v) {
      retryPeriod = v;
      return this;
    }

    public Builder statusUpdateInterval(Duration v) {
      statusUpdateInterval = v;
      return this;
    }

    public Builder fieldManager(String v) {
      fieldManager = v;
      return this;
    }

    public Builder consumerGroup(String v) {
      consumerGroup = v;
      return this;
    }

    public Builder maxBufferedViolations(int v) {
      maxBufferedViolations = v;
      return this;
    }

    public Builder resyncPeriod(Duration v) {
      resyncPeriod = v;
      return this;
    }

    public Builder telemetry(TelemetrySettings v) {
      telemetry = v;
      return this;
    }

    public Builder kafka(KafkaSettings v) {
      kafka = v;
      return this;
    }

    public Builder liveView(boolean v) {
      liveView = v;
      return this;
    }

    public Builder convergenceQuietPeriod(Duration v) {
      convergenceQuietPeriod = v;
      return this;
    }

    public Builder groupInstanceId(String v) {
      groupInstanceId = v;
      return this;
    }

    public WriterConfig build() {
      return new WriterConfig(
          namespace,
          leaseName,
          identity,
          leaseDuration,
          renewDeadline,
          retryPeriod,
          statusUpdateInterval,
          fieldManager,
          consumerGroup,
          maxBufferedViolations,
          resyncPeriod,
          telemetry,
          kafka,
          liveView,
          convergenceQuietPeriod,
          groupInstanceId);
    }
  }
}
