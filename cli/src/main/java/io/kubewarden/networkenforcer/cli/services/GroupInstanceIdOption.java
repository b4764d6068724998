package io.kubewarden.networkenforcer.cli.services;

import picocli.CommandLine.Option;

/**
 * {@code --group-instance-id}: a service's stable name in its Kafka consumer groups (static
 * membership), shared by the processor and the writer, which each add their own suffix.
 */
public class GroupInstanceIdOption {
  @Option(
      names = "--group-instance-id",
      paramLabel = "ID",
      description =
          "This instance's stable name in its consumer groups (Kafka static membership, group.instance.id; "
              + "the processor adds -<stream thread>, the writer -<group>): restarted in place, it takes its dead "
              + "members' places at once instead of waiting out their session. Unique per running instance; the chart "
              + "sets the pod name. Default: none (dynamic membership).")
  String groupInstanceId;

  /** The name, or null for dynamic membership (unset or blank). */
  public String value() {
    return groupInstanceId == null || groupInstanceId.isBlank() ? null : groupInstanceId;
  }
}
