package io.kubewarden.networkenforcer.common.topics;

import io.kubewarden.networkenforcer.common.control.ControlCommand;
import io.kubewarden.networkenforcer.common.crd.PolicySnapshot;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.FlowRecordCheck;
import io.kubewarden.networkenforcer.common.flow.FlowRecordCodec;
import io.kubewarden.networkenforcer.common.loss.DataPlaneLoss;
import io.kubewarden.networkenforcer.common.policy.NativePolicySnapshot;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.common.violation.ViolationObservation;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.serialization.Serdes;

/**
 * Every topic of the pipeline, named {@code <prefix><topic>}. See DESIGN.md "Topics" for who writes
 * and reads each one. {@code flows} is binary ({@link BinarySerde}, {@link FlowRecordCodec}); the
 * topics a person reads (policies, control, proposals, violations) are JSON.
 */
public final class Topics {
  public static final String DEFAULT_PREFIX = "network-enforcer.";

  /**
   * The largest record (uncompressed) a producer of ours writes: a proposal of a target with
   * thousands of peers, its allow-list in a changelog, that proposal parked on the dead-letter
   * topic. Producers check the uncompressed size against {@code max.request.size} (1 MiB by
   * default); lz4 brings such a record far under the broker's message size.
   */
  public static final int MAX_RECORD_BYTES = 16 * 1024 * 1024;

  /** The replay window of the flows topic. */
  public static final Duration FLOWS_RETENTION = Duration.ofDays(7);

  /** Loss records must outlive the quiet period they hold a proposal back for (default 7 days). */
  public static final Duration LOSS_RETENTION = Duration.ofDays(30);

  private final Topic<String, FlowRecord> flows;
  private final Topic<String, PolicySnapshot> policies;
  private final Topic<String, ControlCommand> control;
  private final Topic<String, ProposalSnapshot> proposals;
  private final Topic<String, ViolationObservation> violations;
  private final Topic<byte[], byte[]> deadLetter;
  private final Topic<String, NativePolicySnapshot> nativePolicies;
  private final Topic<String, DataPlaneLoss> dataPlaneLoss;

  public Topics(String prefix) {
    String p = prefix == null ? "" : prefix;
    // Binary (the volume topic); JSON records written by older versions still read, per record.
    flows =
        new Topic<>(
            p + "flows", Serdes.String(), flowRecordSerde(), false, Optional.of(FLOWS_RETENTION));
    policies =
        new Topic<>(
            p + "policies",
            Serdes.String(),
            new JsonSerde<>(PolicySnapshot.class),
            true,
            Optional.empty());
    control =
        new Topic<>(
            p + "control",
            Serdes.String(),
            new JsonSerde<>(ControlCommand.class),
            false,
            Optional.empty());
    proposals =
        new Topic<>(
            p + "proposals",
            Serdes.String(),
            new JsonSerde<>(ProposalSnapshot.class),
            true,
            Optional.empty());
    violations =
        new Topic<>(
            p + "violations",
            Serdes.String(),
            new JsonSerde<>(ViolationObservation.class),
            false,
            Optional.empty());
    deadLetter =
        new Topic<>(
            p + "dead-letter", Serdes.ByteArray(), Serdes.ByteArray(), false, Optional.empty());
    nativePolicies =
        new Topic<>(
            p + "native-policies",
            Serdes.String(),
            new JsonSerde<>(NativePolicySnapshot.class),
            true,
            Optional.empty());
    dataPlaneLoss =
        new Topic<>(
            p + "data-plane-loss",
            Serdes.String(),
            new JsonSerde<>(DataPlaneLoss.class),
            false,
            Optional.of(LOSS_RETENTION));
  }

  /**
   * The serde of flow records wherever they travel between processes: the flows topic and the
   * processor's internal topics. Binary with a version header; reads JSON records too. A record
   * whose names cannot make a key ({@link FlowRecordCheck}) is refused.
   */
  public static BinarySerde<FlowRecord> flowRecordSerde() {
    return new BinarySerde<>(
        FlowRecord.class, FlowRecordCodec.INSTANCE, 512, FlowRecordCheck::problem);
  }

  public static Topics withDefaultPrefix() {
    return new Topics(DEFAULT_PREFIX);
  }

  public Topic<String, FlowRecord> flows() {
    return flows;
  }

  public Topic<String, PolicySnapshot> policies() {
    return policies;
  }

  public Topic<String, ControlCommand> control() {
    return control;
  }

  public Topic<String, ProposalSnapshot> proposals() {
    return proposals;
  }

  public Topic<String, ViolationObservation> violations() {
    return violations;
  }

  public Topic<byte[], byte[]> deadLetter() {
    return deadLetter;
  }

  /**
   * Every Kubernetes NetworkPolicy of the cluster, keyed {@code ns/name}: writer -> processor
   * (global).
   */
  public Topic<String, NativePolicySnapshot> nativePolicies() {
    return nativePolicies;
  }

  /**
   * Events the data plane reported lost, per provider, node and ingest window: ingest -> writer.
   */
  public Topic<String, DataPlaneLoss> dataPlaneLoss() {
    return dataPlaneLoss;
  }

  public List<Topic<?, ?>> all() {
    return List.of(
        flows, policies, control, proposals, violations, deadLetter, nativePolicies, dataPlaneLoss);
  }
}
