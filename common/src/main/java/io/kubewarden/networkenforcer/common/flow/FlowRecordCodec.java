package io.kubewarden.networkenforcer.common.flow;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.kubewarden.networkenforcer.common.codec.BinaryCodec;
import io.kubewarden.networkenforcer.common.codec.MalformedRecordException;
import io.kubewarden.networkenforcer.common.codec.WireReader;
import io.kubewarden.networkenforcer.common.codec.WireWriter;
import io.kubewarden.networkenforcer.common.workload.WorkloadKind;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The binary form of a {@link FlowRecord} on the flows topic and inside the processor's internal
 * topics (see {@code BinarySerde} for the header and the JSON fallback). Field numbers, as a
 * protocol-buffers schema would give them; never renumber or reuse one, add new fields with new
 * numbers (readers skip what they do not know):
 *
 * <pre>
 * FlowRecord:   1 time seconds, 2 time nanos, 3 provider, 4 protocol, 5 dstPort, 6 src Endpoint,
 *               7 dst Endpoint, 8 verdict (absent: FORWARDED), 9 denyingPolicy PolicyRef,
 *               10 count (absent: 1), 11 reporter (absent: UNKNOWN),
 *               12 lastSeen - time in nanoseconds (absent: 0), 13 seenAs (absent: as the reporter
 *               says), 14 http HttpRequest (absent: none)
 * Endpoint:     1 namespace, 2 workloadKind, 3 workloadName, 4 workloadSelector Selector,
 *               5 podLabels Label*, 6 namespaceLabels Label* (without kubernetes.io/metadata.name
 *               when it equals the namespace: then 7 = true), 8 ip, 9 identity, 10 namedPorts Port*,
 *               11 inferred (workload and selector inferred from the pod name; absent: false),
 *               12 namedPortsKnown (10 is the pod's complete list; absent: unknown),
 *               13 external External (the end is outside the cluster; absent: inside),
 *               14 labelsOnly (known only by namespace and labels, 4 = their selector; absent: false)
 * External:     1 dnsNames*, 2 network
 * HttpRequest:  1 method, 2 path, 3 truncated (absent: false), 4 connectionSeen (absent: false)
 * Selector:     1 matchLabels Label*, 2 matchExpressions Requirement*
 * Requirement:  1 key, 2 operator, 3 values*
 * Label:        1 key, 2 value
 * Port:         1 name, 2 port, 3 protocol
 * PolicyRef:    1 kind, 2 namespace, 3 name
 * enums:        provider istio=1 calico=2 cilium=3 file=4; protocol TCP=1 UDP=2 SCTP=3;
 *               verdict FORWARDED=1 DENIED=2 DRY_RUN_DENIED=3; reporter SOURCE=1 DESTINATION=2
 *               UNKNOWN=3; seenAs source-record=1 destination-record=2 l7-request=3 (a code
 *               this version does not know reads as absent); workloadKind Deployment=1
 *               StatefulSet=2 DaemonSet=3
 *               CronJob=4
 * </pre>
 *
 * <p>Not carried, because neither learning, monitor-mode evaluation nor violations read them:
 * {@link FlowEndpoint#podName()} and {@link FlowEndpoint#serviceAccount()} (the Istio identity
 * carries the service account). A decoded record has them null. JSON records of older versions
 * still carry them and decode with them.
 */
public final class FlowRecordCodec implements BinaryCodec<FlowRecord> {
  public static final FlowRecordCodec INSTANCE = new FlowRecordCodec();

  /**
   * The namespace label every namespace has; dropped from the bytes when it names the namespace.
   */
  static final String NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name";

  static final Provider[] PROVIDERS = {
    null, Provider.istio, Provider.calico, Provider.cilium, Provider.file
  };
  static final Protocol[] PROTOCOLS = {null, Protocol.TCP, Protocol.UDP, Protocol.SCTP};
  static final Verdict[] VERDICTS = {
    null, Verdict.FORWARDED, Verdict.DENIED, Verdict.DRY_RUN_DENIED
  };
  static final Reporter[] REPORTERS = {
    null, Reporter.SOURCE, Reporter.DESTINATION, Reporter.UNKNOWN
  };
  static final Sighting[] SIGHTINGS = {
    null, Sighting.SOURCE_RECORD, Sighting.DESTINATION_RECORD, Sighting.L7_REQUEST
  };
  static final WorkloadKind[] KINDS = {
    null,
    WorkloadKind.Deployment,
    WorkloadKind.StatefulSet,
    WorkloadKind.DaemonSet,
    WorkloadKind.CronJob
  };

  private FlowRecordCodec() {}

  /**
   * {@code r} as it reads back from its binary form: without what the binary form does not carry.
   */
  public static FlowRecord carried(FlowRecord r) {
    return new FlowRecord(
        r.time(),
        r.provider(),
        r.protocol(),
        r.dstPort(),
        carried(r.src()),
        carried(r.dst()),
        r.verdict(),
        r.denyingPolicy(),
        r.count(),
        r.reporter(),
        r.lastSeen(),
        r.seenAs(),
        r.http());
  }

  private static FlowEndpoint carried(FlowEndpoint e) {
    return e.toBuilder().podName(null).serviceAccount(null).build();
  }

  @Override
  public void write(WireWriter out, FlowRecord r) {
    out.varint(1, r.time().getEpochSecond());
    if (r.time().getNano() != 0) {
      out.varint(2, r.time().getNano());
    }
    out.varint(3, code(PROVIDERS, r.provider()));
    out.varint(4, code(PROTOCOLS, r.protocol()));
    if (r.dstPort() != 0) {
      out.varint(5, r.dstPort());
    }
    int m = out.beginMessage(6);
    writeEndpoint(out, r.src());
    out.endMessage(m);
    m = out.beginMessage(7);
    writeEndpoint(out, r.dst());
    out.endMessage(m);
    if (r.verdict() != Verdict.FORWARDED) {
      out.varint(8, code(VERDICTS, r.verdict()));
    }
    if (r.denyingPolicy() != null) {
      m = out.beginMessage(9);
      out.string(1, r.denyingPolicy().kind());
      out.string(2, r.denyingPolicy().namespace());
      out.string(3, r.denyingPolicy().name());
      out.endMessage(m);
    }
    if (r.count() != 1) {
      out.varint(10, r.count());
    }
    if (r.reporter() != Reporter.UNKNOWN) {
      out.varint(11, code(REPORTERS, r.reporter()));
    }
    if (!r.lastSeen().equals(r.time())) {
      long seconds = r.lastSeen().getEpochSecond() - r.time().getEpochSecond();
      out.varint(12, seconds * 1_000_000_000L + r.lastSeen().getNano() - r.time().getNano());
    }
    if (r.seenAs() != null) {
      out.varint(13, code(SIGHTINGS, r.seenAs()));
    }
    if (r.http() != null) {
      m = out.beginMessage(14);
      out.string(1, r.http().method());
      out.string(2, r.http().path());
      if (r.http().truncated()) {
        out.bool(3, true);
      }
      if (r.http().connectionSeen()) {
        out.bool(4, true);
      }
      out.endMessage(m);
    }
  }

  @Override
  public FlowRecord read(WireReader in) {
    long seconds = 0;
    int nanos = 0;
    Provider provider = null;
    Protocol protocol = null;
    int port = 0;
    FlowEndpoint src = null;
    FlowEndpoint dst = null;
    Verdict verdict = Verdict.FORWARDED;
    PolicyRef denying = null;
    long count = 1;
    Reporter reporter = Reporter.UNKNOWN;
    long lastSeenDelta = 0;
    Sighting seenAs = null;
    HttpRequest http = null;
    while (in.hasMore()) {
      int tag = in.readTag();
      switch (WireReader.field(tag)) {
        case 1 -> seconds = in.readVarint();
        case 2 -> nanos = in.readInt();
        case 3 -> provider = decode(PROVIDERS, in.readInt(), "provider");
        case 4 -> protocol = decode(PROTOCOLS, in.readInt(), "protocol");
        case 5 -> port = in.readInt();
        case 6 -> src = readEndpoint(in.nested());
        case 7 -> dst = readEndpoint(in.nested());
        case 8 -> verdict = decode(VERDICTS, in.readInt(), "verdict");
        case 9 -> denying = readPolicyRef(in.nested());
        case 10 -> count = in.readVarint();
        case 11 -> reporter = decode(REPORTERS, in.readInt(), "reporter");
        case 12 -> lastSeenDelta = in.readVarint();
        case 13 -> {
          // A sighting a newer version added: the reporter still says what it can.
          int code = in.readInt();
          seenAs = code >= 1 && code < SIGHTINGS.length ? SIGHTINGS[code] : null;
        }
        case 14 -> http = readHttp(in.nested());
        default -> in.skip(tag);
      }
    }
    if (provider == null || protocol == null || src == null || dst == null) {
      throw new MalformedRecordException("a flow record needs provider, protocol, src and dst");
    }
    Instant time = Instant.ofEpochSecond(seconds, nanos);
    Instant lastSeen = lastSeenDelta == 0 ? time : time.plusNanos(lastSeenDelta);
    return new FlowRecord(
        time, provider, protocol, port, src, dst, verdict, denying, count, reporter, lastSeen,
        seenAs, http);
  }

  private static HttpRequest readHttp(WireReader in) {
    String method = null;
    String path = null;
    boolean truncated = false;
    boolean connectionSeen = false;
    while (in.hasMore()) {
      int tag = in.readTag();
      switch (WireReader.field(tag)) {
        case 1 -> method = in.readString();
        case 2 -> path = in.readString();
        case 3 -> truncated = in.readBool();
        case 4 -> connectionSeen = in.readBool();
        default -> in.skip(tag);
      }
    }
    if (method == null || path == null) {
      throw new MalformedRecordException("an HTTP request needs method and path");
    }
    return new HttpRequest(method, path, truncated, connectionSeen);
  }

  private static void writeEndpoint(WireWriter out, FlowEndpoint e) {
    out.string(1, e.namespace());
    if (e.workloadKind() != null) {
      out.varint(2, code(KINDS, e.workloadKind()));
    }
    out.string(3, e.workloadName());
    if (e.workloadSelector() != null) {
      int m = out.beginMessage(4);
      writeSelector(out, e.workloadSelector());
      out.endMessage(m);
    }
    writeLabels(out, 5, e.podLabels(), null);
    String namespaceName =
        e.namespace() != null && e.namespace().equals(e.namespaceLabels().get(NAMESPACE_NAME_LABEL))
            ? NAMESPACE_NAME_LABEL
            : null;
    writeLabels(out, 6, e.namespaceLabels(), namespaceName);
    if (namespaceName != null) {
      out.bool(7, true);
    }
    out.string(8, e.ip());
    out.string(9, e.identity());
    for (NamedPort p : e.namedPorts()) {
      int m = out.beginMessage(10);
      out.string(1, p.name());
      out.varint(2, p.port());
      if (p.protocol() != null) {
        out.varint(3, code(PROTOCOLS, p.protocol()));
      }
      out.endMessage(m);
    }
    if (e.inferred()) {
      out.bool(11, true);
    }
    if (Boolean.TRUE.equals(e.namedPortsKnown())) {
      out.bool(12, true);
    }
    if (e.external() != null) {
      int m = out.beginMessage(13);
      for (String name : e.external().dnsNames()) {
        out.string(1, name);
      }
      out.string(2, e.external().network());
      out.endMessage(m);
    }
    if (e.labelsOnly()) {
      out.bool(14, true);
    }
  }

  private static FlowEndpoint readEndpoint(WireReader in) {
    String namespace = null;
    WorkloadKind kind = null;
    String name = null;
    LabelSelector selector = null;
    Map<String, String> podLabels = new HashMap<>();
    Map<String, String> namespaceLabels = new HashMap<>();
    boolean namespaceNameLabel = false;
    String ip = null;
    String identity = null;
    List<NamedPort> ports = List.of();
    boolean inferred = false;
    Boolean namedPortsKnown = null;
    ExternalEndpoint external = null;
    boolean labelsOnly = false;
    while (in.hasMore()) {
      int tag = in.readTag();
      switch (WireReader.field(tag)) {
        case 1 -> namespace = in.readString();
        case 2 -> kind = decode(KINDS, in.readInt(), "workload kind");
        case 3 -> name = in.readString();
        case 4 -> selector = readSelector(in.nested());
        case 5 -> readLabel(in.nested(), podLabels);
        case 6 -> readLabel(in.nested(), namespaceLabels);
        case 7 -> namespaceNameLabel = in.readBool();
        case 8 -> ip = in.readString();
        case 9 -> identity = in.readString();
        case 10 -> {
          if (ports.isEmpty()) {
            ports = new ArrayList<>(2);
          }
          ports.add(readNamedPort(in.nested()));
        }
        case 11 -> inferred = in.readBool();
        case 12 -> namedPortsKnown = in.readBool();
        case 13 -> external = readExternal(in.nested());
        case 14 -> labelsOnly = in.readBool();
        default -> in.skip(tag);
      }
    }
    if (namespaceNameLabel && namespace != null) {
      namespaceLabels.put(NAMESPACE_NAME_LABEL, namespace);
    }
    return new FlowEndpoint(
        namespace,
        kind,
        name,
        selector,
        podLabels,
        namespaceLabels,
        null,
        ip,
        null,
        identity,
        ports,
        inferred,
        namedPortsKnown,
        external,
        labelsOnly);
  }

  private static ExternalEndpoint readExternal(WireReader in) {
    List<String> dnsNames = new ArrayList<>();
    String network = null;
    while (in.hasMore()) {
      int tag = in.readTag();
      switch (WireReader.field(tag)) {
        case 1 -> dnsNames.add(in.readString());
        case 2 -> network = in.readString();
        default -> in.skip(tag);
      }
    }
    return new ExternalEndpoint(dnsNames, network);
  }

  private static void writeSelector(WireWriter out, LabelSelector s) {
    writeLabels(out, 1, s.getMatchLabels(), null);
    if (s.getMatchExpressions() != null) {
      for (LabelSelectorRequirement r : s.getMatchExpressions()) {
        int m = out.beginMessage(2);
        out.string(1, r.getKey());
        out.string(2, r.getOperator());
        if (r.getValues() != null) {
          for (String v : r.getValues()) {
            out.string(3, v);
          }
        }
        out.endMessage(m);
      }
    }
  }

  private static LabelSelector readSelector(WireReader in) {
    Map<String, String> matchLabels = new LinkedHashMap<>();
    List<LabelSelectorRequirement> expressions = new ArrayList<>();
    while (in.hasMore()) {
      int tag = in.readTag();
      switch (WireReader.field(tag)) {
        case 1 -> readLabel(in.nested(), matchLabels);
        case 2 -> expressions.add(readRequirement(in.nested()));
        default -> in.skip(tag);
      }
    }
    return new LabelSelector(expressions, matchLabels);
  }

  private static LabelSelectorRequirement readRequirement(WireReader in) {
    String key = null;
    String operator = null;
    List<String> values = new ArrayList<>();
    while (in.hasMore()) {
      int tag = in.readTag();
      switch (WireReader.field(tag)) {
        case 1 -> key = in.readString();
        case 2 -> operator = in.readString();
        case 3 -> values.add(in.readString());
        default -> in.skip(tag);
      }
    }
    return new LabelSelectorRequirement(key, operator, values);
  }

  private static void writeLabels(
      WireWriter out, int field, Map<String, String> labels, String skipKey) {
    if (labels == null) {
      return;
    }
    for (Map.Entry<String, String> e : labels.entrySet()) {
      if (e.getKey().equals(skipKey)) {
        continue;
      }
      int m = out.beginMessage(field);
      out.string(1, e.getKey());
      out.string(2, e.getValue());
      out.endMessage(m);
    }
  }

  private static void readLabel(WireReader in, Map<String, String> into) {
    String key = null;
    String value = "";
    while (in.hasMore()) {
      int tag = in.readTag();
      switch (WireReader.field(tag)) {
        case 1 -> key = in.readString();
        case 2 -> value = in.readString();
        default -> in.skip(tag);
      }
    }
    if (key == null) {
      throw new MalformedRecordException("label without a key");
    }
    into.put(key, value);
  }

  private static NamedPort readNamedPort(WireReader in) {
    String name = null;
    int port = 0;
    Protocol protocol = null;
    while (in.hasMore()) {
      int tag = in.readTag();
      switch (WireReader.field(tag)) {
        case 1 -> name = in.readString();
        case 2 -> port = in.readInt();
        case 3 -> protocol = decode(PROTOCOLS, in.readInt(), "protocol");
        default -> in.skip(tag);
      }
    }
    return new NamedPort(name, port, protocol);
  }

  private static PolicyRef readPolicyRef(WireReader in) {
    String kind = null;
    String namespace = null;
    String name = null;
    while (in.hasMore()) {
      int tag = in.readTag();
      switch (WireReader.field(tag)) {
        case 1 -> kind = in.readString();
        case 2 -> namespace = in.readString();
        case 3 -> name = in.readString();
        default -> in.skip(tag);
      }
    }
    return new PolicyRef(kind, namespace, name);
  }

  private static <E> int code(E[] table, E value) {
    for (int i = 1; i < table.length; i++) {
      if (table[i] == value) {
        return i;
      }
    }
    throw new IllegalArgumentException("no binary code for " + value);
  }

  static <E> E decode(E[] table, int code, String what) {
    if (code < 1 || code >= table.length) {
      throw new MalformedRecordException("unknown " + what + " code " + code);
    }
    return table[code];
  }
}
