package io.kubewarden.networkenforcer.common.evaluation;

import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.workload.WorkloadKind;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The random cluster of the differential tests: four namespaces with fixed labels, a few pods in
 * each with random labels, and addresses outside the cluster drawn from a few small IPv4 and IPv6
 * zones, so that random ipBlocks overlap the addresses often.
 *
 * <p>Pods carry no IP: Cilium applies CIDR rules to ends outside the cluster only, while a
 * NetworkPolicy ipBlock also matches a pod's address (a pinned difference, see {@code
 * CiliumNetworkPolicyDifferencesTest}).
 */
final class DifferentialCluster {
  static final Map<String, List<String>> POD_LABELS =
      ordered(
          "app",
          List.of("web", "db", "api"),
          "tier",
          List.of("front", "back"),
          "role",
          List.of("a", "b"));

  /** Keys and values namespace selectors draw from; a value no namespace has included. */
  static final Map<String, List<String>> NAMESPACE_LABEL_VALUES =
      ordered(
          "env",
          List.of("prod", "dev", "test"),
          "team",
          List.of("a", "b"),
          LabelSelectorMatcher.NAMESPACE_NAME_LABEL,
          List.of("default", "prod", "alice", "bob", "gone"));

  /** prod carries kubernetes.io/metadata.name itself; the others get it implicitly. */
  static final Map<String, Map<String, String>> NAMESPACES =
      Map.of(
          "default", Map.of(),
          "prod",
              Map.of("env", "prod", "team", "a", LabelSelectorMatcher.NAMESPACE_NAME_LABEL, "prod"),
          "alice", Map.of("team", "a"),
          "bob", Map.of("team", "b", "env", "dev"));

  static final List<Integer> PORTS = List.of(53, 80, 443, 5432, 8080, 8443, 9090);

  private static final long[] V4_ZONES = {
    0x0A010000L /* 10.1.0.0 */, 0xC0A80000L /* 192.168.0.0 */, 0xCB007100L /* 203.0.113.0 */
  };
  private static final String V6_PREFIX = "2001:db8::";

  private final Random random;
  private final List<FlowEndpoint> pods = new ArrayList<>();

  DifferentialCluster(Random random, int podsPerNamespace) {
    this.random = random;
    for (String namespace : List.of("alice", "bob", "default", "prod")) {
      for (int i = 0; i < podsPerNamespace; i++) {
        Map<String, String> labels = new HashMap<>();
        POD_LABELS.forEach(
            (key, values) -> {
              if (random.nextInt(3) > 0) {
                labels.put(key, values.get(random.nextInt(values.size())));
              }
            });
        pods.add(
            FlowEndpoint.builder()
                .namespace(namespace)
                .namespaceLabels(NAMESPACES.get(namespace))
                .workload(WorkloadKind.Deployment, "w" + i)
                .podLabels(labels)
                .build());
      }
    }
  }

  List<FlowEndpoint> pods() {
    return pods;
  }

  List<FlowEndpoint> podsIn(String namespace) {
    return pods.stream().filter(p -> p.namespace().equals(namespace)).toList();
  }

  /** An address outside the cluster: inside one of {@code cidrs} half the time, if any. */
  FlowEndpoint external(List<String> cidrs) {
    if (random.nextInt(30) == 0) {
      return FlowEndpoint.outsideCluster(null, null); // the data plane gave no address
    }
    String ip =
        !cidrs.isEmpty() && random.nextBoolean()
            ? addressIn(cidrs.get(random.nextInt(cidrs.size())), random)
            : randomAddress();
    return FlowEndpoint.outsideCluster(ip, null);
  }

  /** A CIDR in one of the zones: IPv4 /16 to /32 mostly, IPv6 /112 to /128 sometimes. */
  String randomCidr() {
    if (random.nextInt(6) == 0) {
      return v6Cidr(random.nextInt(1 << 10), 112 + random.nextInt(17));
    }
    long address = V4_ZONES[random.nextInt(V4_ZONES.length)] | random.nextInt(1 << 10);
    return v4Cidr(address, 16 + random.nextInt(17));
  }

  private String randomAddress() {
    if (random.nextInt(6) == 0) {
      return v6(random.nextInt(1 << 10));
    }
    return v4(V4_ZONES[random.nextInt(V4_ZONES.length)] | random.nextInt(1 << 10));
  }

  /** A strictly smaller block inside {@code cidr}, or null when it is a single address. */
  static String subnetOf(String cidr, Random random) {
    int slash = cidr.indexOf('/');
    int prefix = Integer.parseInt(cidr.substring(slash + 1));
    boolean v6 = cidr.contains(":");
    int max = v6 ? 128 : 32;
    if (prefix == max) {
      return null;
    }
    int inner = prefix + 1 + random.nextInt(max - prefix);
    long address = low32(cidr.substring(0, slash)) | hostBits(random, max - prefix);
    return v6 ? v6Cidr(address, inner) : v4Cidr(address, inner);
  }

  /** A random address inside {@code cidr}. */
  static String addressIn(String cidr, Random random) {
    int slash = cidr.indexOf('/');
    int prefix = Integer.parseInt(cidr.substring(slash + 1));
    boolean v6 = cidr.contains(":");
    long address = low32(cidr.substring(0, slash)) | hostBits(random, (v6 ? 128 : 32) - prefix);
    return v6 ? v6(address) : v4(address);
  }

  private static long hostBits(Random random, int bits) {
    return bits == 0 ? 0 : random.nextLong() & ((1L << Math.min(bits, 32)) - 1);
  }

  /** The low 32 bits of an address this class wrote (IPv6 ones vary in those bits only). */
  private static long low32(String address) {
    if (address.startsWith(V6_PREFIX)) {
      String[] groups = address.substring(V6_PREFIX.length()).split(":");
      return Long.parseLong(groups[0], 16) << 16 | Long.parseLong(groups[1], 16);
    }
    long value = 0;
    for (String octet : address.split("\\.")) {
      value = value << 8 | Long.parseLong(octet);
    }
    return value;
  }

  private static String v4Cidr(long address, int prefix) {
    long mask = prefix == 0 ? 0 : (0xFFFFFFFFL << (32 - prefix)) & 0xFFFFFFFFL;
    return v4(address & mask) + "/" + prefix;
  }

  private static String v6Cidr(long low32, int prefix) {
    int hostBits = 128 - prefix; // at most 32: only the low 32 bits vary
    long mask = (0xFFFFFFFFL << hostBits) & 0xFFFFFFFFL;
    return v6(low32 & mask) + "/" + prefix;
  }

  private static String v4(long a) {
    return (a >>> 24 & 255) + "." + (a >>> 16 & 255) + "." + (a >>> 8 & 255) + "." + (a & 255);
  }

  private static String v6(long low32) {
    return V6_PREFIX
        + Long.toHexString(low32 >>> 16 & 0xFFFF)
        + ":"
        + Long.toHexString(low32 & 0xFFFF);
  }

  private static Map<String, List<String>> ordered(Object... keyValues) {
    Map<String, List<String>> map = new LinkedHashMap<>();
    for (int i = 0; i < keyValues.length; i += 2) {
      @SuppressWarnings("unchecked")
      List<String> values = (List<String>) keyValues[i + 1];
      map.put((String) keyValues[i], values);
    }
    return map;
  }
}
