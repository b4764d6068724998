package io.kubewarden.networkenforcer.cli.report;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * A Hubble capture ({@code hubble observe -o jsonpb} lines, shaped like samples/basic) of a cluster
 * of {@code workloads} workloads, deterministic for a seed, for the report's scale tests. Like a
 * real cluster: namespaces of very uneven sizes (a few large, many with a handful), most calls
 * within a namespace, popular services, kube-dns for everyone, some workloads calling the internet
 * by DNS name, a few internet-facing ones with outside clients, and one lost-events notice (so the
 * report has a warning to put first). Each call is reported at both ends (EGRESS at the source,
 * INGRESS at the destination).
 */
final class SyntheticCapture {
  record Workload(String namespace, String name, String kind, String ip, String hash) {}

  private static final String[] ROLES = {
    "api", "web", "worker", "cache", "db", "auth", "billing", "search", "ingest", "report"
  };
  private static final int[][] PORTS = {
    {8080, 6}, {8443, 6}, {9090, 6}, {5432, 6}, {6379, 6}, {50051, 6}, {8125, 17}
  };
  private static final String[][] INTERNET = {
    {"api.stripe.com", "142.251.209.46"},
    {"api.stripe.com", "142.251.209.47"},
    {"s3.eu-west-1.amazonaws.com", "52.218.16.10"},
    {"s3.eu-west-1.amazonaws.com", "52.218.16.11"},
    {"hooks.slack.com", "34.226.36.50"},
    {"api.github.com", "140.82.121.6"},
    {"oauth2.googleapis.com", "142.250.74.170"}
  };

  private final Random rng;
  private final List<Workload> workloads = new ArrayList<>();
  private final List<String> namespaces = new ArrayList<>();
  private long micros;

  private SyntheticCapture(long seed) {
    this.rng = new Random(seed);
  }

  /** Writes the capture to {@code file}; returns the workloads it has (coredns included). */
  static List<Workload> write(Path file, int workloadCount, long seed) {
    SyntheticCapture c = new SyntheticCapture(seed);
    c.build(workloadCount);
    try (BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      c.flows(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return List.copyOf(c.workloads);
  }

  private void build(int count) {
    int nsCount = Math.max(3, count / 20);
    String[] envs = {"prod", "staging", "batch", "web", "data"};
    for (int i = 0; i < nsCount; i++) {
      namespaces.add(String.format(Locale.ROOT, "team%d-%s", i, envs[rng.nextInt(envs.length)]));
    }
    // Zipf-like weights: the first namespaces are large, the tail has a few workloads each.
    double[] weight = new double[nsCount];
    double total = 0;
    for (int i = 0; i < nsCount; i++) {
      weight[i] = 1.0 / Math.pow(i + 1, 1.1);
      total += weight[i];
    }
    workloads.add(new Workload("kube-system", "coredns", "Deployment", "10.96.0.10", hash()));
    for (int i = 1; i < count; i++) {
      String ns;
      if (i <= nsCount) {
        ns = namespaces.get(i - 1); // every namespace has at least one workload
      } else {
        double r = rng.nextDouble() * total;
        int k = 0;
        while (k < nsCount - 1 && (r -= weight[k]) > 0) {
          k++;
        }
        ns = namespaces.get(k);
      }
      double kind = rng.nextDouble();
      String name =
          ROLES[rng.nextInt(ROLES.length)]
              + "-"
              + Integer.toString(1296 + rng.nextInt(45000), 36)
              + "-"
              + i;
      workloads.add(
          new Workload(
              ns,
              name,
              kind < 0.85 ? "Deployment" : "StatefulSet",
              "10.244." + (i / 250) + "." + (i % 250 + 1),
              hash()));
    }
  }

  private String hash() {
    return Long.toString(0x10000000000L + (rng.nextLong() & 0xffffffffffL), 16).substring(1);
  }

  private void flows(BufferedWriter out) throws IOException {
    out.write(
        "{\"node_status\":{\"state_change\":\"NODE_CONNECTED\",\"node_names\":[\"default/worker-1\","
            + "\"default/worker-2\"]},\"time\":\""
            + time()
            + "\"}\n");
    Workload dns = workloads.get(0);
    List<Workload> apps = workloads.subList(1, workloads.size());
    // Popular services are called by many: each workload appears 1-6 times in the pool.
    List<Workload> pool = new ArrayList<>();
    for (Workload w : apps) {
      int copies = rng.nextInt(10) < 8 ? 1 : 2 + rng.nextInt(5);
      for (int k = 0; k < copies; k++) {
        pool.add(w);
      }
    }
    for (Workload src : apps) {
      int calls = 1 + rng.nextInt(4);
      for (int k = 0; k < calls; k++) {
        Workload dst = pool.get(rng.nextInt(pool.size()));
        if (rng.nextDouble() < 0.7) {
          List<Workload> local =
              apps.stream().filter(w -> w.namespace().equals(src.namespace())).toList();
          dst = local.get(rng.nextInt(local.size()));
        }
        if (dst != src) {
          int[] port = PORTS[Math.floorMod(dst.name().hashCode(), PORTS.length)];
          call(out, src, dst, port[0], port[1]);
        }
      }
      call(out, src, dns, 53, 17);
      if (rng.nextDouble() < 0.1) {
        String[] site = INTERNET[rng.nextInt(INTERNET.length)];
        egressToInternet(out, src, site[1], site[0]);
      }
      if (rng.nextDouble() < 0.02) {
        int clients = 5 + rng.nextInt(36);
        for (int c = 0; c < clients; c++) {
          ingressFromInternet(
              out, src, "203.0." + rng.nextInt(114) + "." + (1 + rng.nextInt(254)), 8443);
        }
      }
      if (src == apps.get(apps.size() / 2)) {
        out.write(
            "{\"lost_events\":{\"source\":\"HUBBLE_RING_BUFFER\",\"num_events_lost\":\"37\",\"cpu\":1},"
                + "\"node_name\":\"default/worker-2\",\"time\":\""
                + time()
                + "\"}\n");
      }
    }
  }

  private void call(BufferedWriter out, Workload src, Workload dst, int port, int proto)
      throws IOException {
    int sport = 32768 + rng.nextInt(28000);
    String ts = time();
    out.write(
        flow(
            ts,
            src.ip(),
            dst.ip(),
            proto,
            sport,
            port,
            endpoint(src),
            endpoint(dst),
            "EGRESS",
            ""));
    out.write(
        flow(
            ts,
            src.ip(),
            dst.ip(),
            proto,
            sport,
            port,
            endpoint(src),
            endpoint(dst),
            "INGRESS",
            ""));
  }

  private void egressToInternet(BufferedWriter out, Workload src, String ip, String dnsName)
      throws IOException {
    out.write(
        flow(
            time(),
            src.ip(),
            ip,
            6,
            40000 + rng.nextInt(20000),
            443,
            endpoint(src),
            "{\"identity\":2,\"labels\":[\"reserved:world\"]}",
            "EGRESS",
            ",\"destination_names\":[\"" + dnsName + "\"]"));
  }

  private void ingressFromInternet(BufferedWriter out, Workload dst, String ip, int port)
      throws IOException {
    out.write(
        flow(
            time(),
            ip,
            dst.ip(),
            6,
            40000 + rng.nextInt(20000),
            port,
            "{\"identity\":2,\"labels\":[\"reserved:world\"]}",
            endpoint(dst),
            "INGRESS",
            ""));
  }

  private String flow(
      String ts,
      String sip,
      String dip,
      int proto,
      int sport,
      int dport,
      String src,
      String dst,
      String direction,
      String extra) {
    String l4 =
        proto == 6
            ? "{\"TCP\":{\"source_port\":"
                + sport
                + ",\"destination_port\":"
                + dport
                + ",\"flags\":{\"SYN\":true}}}"
            : "{\"UDP\":{\"source_port\":" + sport + ",\"destination_port\":" + dport + "}}";
    return "{\"flow\":{\"time\":\""
        + ts
        + "\",\"verdict\":\"FORWARDED\",\"IP\":{\"source\":\""
        + sip
        + "\",\"destination\":\""
        + dip
        + "\",\"ipVersion\":\"IPv4\"},\"l4\":"
        + l4
        + ",\"source\":"
        + src
        + ",\"destination\":"
        + dst
        + extra
        + ",\"Type\":\"L3_L4\",\"node_name\":\"default/worker-1\","
        + "\"event_type\":{\"type\":4},\"traffic_direction\":\""
        + direction
        + "\",\"is_reply\":false},"
        + "\"node_name\":\"default/worker-1\",\"time\":\""
        + ts
        + "\"}\n";
  }

  private static String endpoint(Workload w) {
    String labels =
        "\"k8s:app="
            + w.name()
            + "\","
            + (w.kind().equals("Deployment") ? "\"k8s:pod-template-hash=" + w.hash() + "\"," : "")
            + "\"k8s:io.kubernetes.pod.namespace="
            + w.namespace()
            + "\","
            + "\"k8s:io.cilium.k8s.namespace.labels.kubernetes.io/metadata.name="
            + w.namespace()
            + "\","
            + "\"k8s:io.cilium.k8s.policy.serviceaccount="
            + w.name()
            + "-sa\","
            + "\"k8s:io.cilium.k8s.policy.cluster=default\"";
    String pod =
        w.kind().equals("Deployment") ? w.name() + "-" + w.hash() + "-x7k2p" : w.name() + "-0";
    return "{\"ID\":"
        + (100 + Math.floorMod(w.ip().hashCode(), 3900))
        + ",\"identity\":"
        + (20000 + Math.floorMod(w.name().hashCode(), 40000))
        + ",\"cluster_name\":\"default\",\"namespace\":\""
        + w.namespace()
        + "\",\"labels\":["
        + labels
        + "],\"pod_name\":\""
        + pod
        + "\",\"workloads\":[{\"name\":\""
        + w.name()
        + "\",\"kind\":\""
        + w.kind()
        + "\"}]}";
  }

  /** Strictly increasing timestamps from 2026-08-03T15:40:00Z, a few milliseconds apart. */
  private String time() {
    micros += 1000 + rng.nextInt(20000);
    long s = micros / 1_000_000;
    return String.format(
        Locale.ROOT,
        "2026-08-03T%02d:%02d:%02d.%06d000Z",
        15 + (40 * 60 + s) / 3600,
        (40 + s / 60) % 60,
        s % 60,
        micros % 1_000_000);
  }
}
