package io.kubewarden.networkenforcer.common.flow;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;
import java.util.Objects;

/**
 * One observed connection between two endpoints, normalized from any provider: the value of the
 * flows topic. Self-contained, so a topic replayed months later yields the same proposals.
 *
 * @param dstPort destination port, 0 when unknown
 * @param verdict what the data plane did
 * @param denyingPolicy the policy the data plane named for a deny, if it named one
 * @param time when the flow was seen; for a record that stands for several flows (an aggregate),
 *     the earliest of them ({@link #firstSeen()})
 * @param count how many connections this record stands for (Goldmane aggregates 15 s windows, the
 *     ingest folds repeated flows per aggregation window, the processor combines observations)
 * @param reporter which end observed the flow; for a deny, the end that enforced it
 * @param lastSeen the latest time of the flows this record stands for; never before {@code time},
 *     equal to it for a single flow (null in the constructor or absent in old JSON reads as {@code
 *     time})
 * @param seenAs which record proved the connection when the reporter alone does not say it (an L7
 *     proxy's request); null: as {@code reporter} says ({@link #sighting()}), and in records of
 *     older versions
 * @param http the HTTP request of an L7 record (Cilium's proxy), method and path; null for a
 *     connection without one (and in records of older versions)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record FlowRecord(
    Instant time,
    Provider provider,
    Protocol protocol,
    int dstPort,
    FlowEndpoint src,
    FlowEndpoint dst,
    Verdict verdict,
    PolicyRef denyingPolicy,
    long count,
    Reporter reporter,
    Instant lastSeen,
    Sighting seenAs,
    HttpRequest http) {

  public FlowRecord {
    Objects.requireNonNull(time, "time");
    Objects.requireNonNull(provider, "provider");
    Objects.requireNonNull(protocol, "protocol");
    Objects.requireNonNull(src, "src");
    Objects.requireNonNull(dst, "dst");
    verdict = verdict == null ? Verdict.FORWARDED : verdict;
    reporter = reporter == null ? Reporter.UNKNOWN : reporter;
    if (count <= 0) {
      count = 1;
    }
    if (dstPort < 0 || dstPort > 65535) {
      throw new IllegalArgumentException("dstPort out of range: " + dstPort);
    }
    lastSeen = lastSeen == null || lastSeen.isBefore(time) ? time : lastSeen;
  }

  /** A record whose reporter says how it was seen, with the HTTP request of an L7 record. */
  public FlowRecord(
      Instant time,
      Provider provider,
      Protocol protocol,
      int dstPort,
      FlowEndpoint src,
      FlowEndpoint dst,
      Verdict verdict,
      PolicyRef denyingPolicy,
      long count,
      Reporter reporter,
      Instant lastSeen,
      HttpRequest http) {
    this(
        time,
        provider,
        protocol,
        dstPort,
        src,
        dst,
        verdict,
        denyingPolicy,
        count,
        reporter,
        lastSeen,
        null,
        http);
  }

  /** A record without an HTTP request, seen as {@code seenAs} says. */
  public FlowRecord(
      Instant time,
      Provider provider,
      Protocol protocol,
      int dstPort,
      FlowEndpoint src,
      FlowEndpoint dst,
      Verdict verdict,
      PolicyRef denyingPolicy,
      long count,
      Reporter reporter,
      Instant lastSeen,
      Sighting seenAs) {
    this(
        time,
        provider,
        protocol,
        dstPort,
        src,
        dst,
        verdict,
        denyingPolicy,
        count,
        reporter,
        lastSeen,
        seenAs,
        null);
  }

  /** A record whose reporter says how it was seen, without an HTTP request. */
  public FlowRecord(
      Instant time,
      Provider provider,
      Protocol protocol,
      int dstPort,
      FlowEndpoint src,
      FlowEndpoint dst,
      Verdict verdict,
      PolicyRef denyingPolicy,
      long count,
      Reporter reporter,
      Instant lastSeen) {
    this(
        time,
        provider,
        protocol,
        dstPort,
        src,
        dst,
        verdict,
        denyingPolicy,
        count,
        reporter,
        lastSeen,
        null,
        null);
  }

  /** A single flow, or an aggregate seen only at {@code time}. */
  public FlowRecord(
      Instant time,
      Provider provider,
      Protocol protocol,
      int dstPort,
      FlowEndpoint src,
      FlowEndpoint dst,
      Verdict verdict,
      PolicyRef denyingPolicy,
      long count,
      Reporter reporter) {
    this(
        time,
        provider,
        protocol,
        dstPort,
        src,
        dst,
        verdict,
        denyingPolicy,
        count,
        reporter,
        null,
        null,
        null);
  }

  /**
   * Which record proved the connection: {@link #seenAs()} when set, else what the reporter's record
   * is (null for an unknown reporter).
   */
  @JsonIgnore
  public Sighting sighting() {
    return seenAs != null ? seenAs : Sighting.ofReporter(reporter);
  }

  /** This record with other times and count; every other field is kept. */
  public FlowRecord withTimes(Instant first, long count, Instant last) {
    return new FlowRecord(
        first,
        provider,
        protocol,
        dstPort,
        src,
        dst,
        verdict,
        denyingPolicy,
        count,
        reporter,
        last,
        seenAs,
        http);
  }

  /** The earliest time of the flows this record stands for: {@link #time()}. */
  @JsonIgnore
  public Instant firstSeen() {
    return time;
  }

  /**
   * This record and {@code other}, one flow apart from time and count, as one record: the earlier
   * first seen, the later last seen, the counts summed.
   */
  public FlowRecord plus(FlowRecord other) {
    Instant first = other.time.isBefore(time) ? other.time : time;
    Instant last = other.lastSeen.isAfter(lastSeen) ? other.lastSeen : lastSeen;
    return withTimes(first, Counts.sum(count, other.count), last);
  }

  /**
   * The key of the flows topic: the source workload, or for an identity-only Istio source the
   * destination workload, so that flows of one workload stay in order.
   */
  @JsonIgnore
  public String partitionKey() {
    return src.workload()
        .or(dst::workload)
        .map(w -> w.key())
        .orElse(src.namespace() + "/" + src.identity());
  }
}
