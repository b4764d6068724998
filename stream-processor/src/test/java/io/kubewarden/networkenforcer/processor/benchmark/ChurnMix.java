package io.kubewarden.networkenforcer.processor.benchmark;

import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.kubewarden.networkenforcer.common.control.ControlCommand;
import io.kubewarden.networkenforcer.common.flow.ExternalEndpoint;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.NamedPort;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.common.flow.Verdict;
import io.kubewarden.networkenforcer.common.policy.Direction;
import io.kubewarden.networkenforcer.common.topics.Topics;
import io.kubewarden.networkenforcer.common.workload.WorkloadKind;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * The realistic mix of issue #36 with workloads that come and go, seeded: 2,000 Deployments in 200
 * namespaces, 10,000 client/server pairs drawn Zipf-like (rank r with weight 1/r), 5 % of the flows
 * from a short-lived workload (a new key each: a per-run Deployment, a preview environment) calling
 * one of them, 5 % calls to an outside address, 3 % denies, ports 8080/8443/5432. One flow per
 * millisecond of flow time; at every simulated minute a tenth of the 2,000 is replaced by a new
 * Deployment of a new name in the same place of the pairs, and the short-lived workloads of the
 * minute before are gone. A workload that is gone gets the writer's two ResetLearning records (its
 * Egress and Ingress targets) one simulated minute after its last flow: its proposals are deleted
 * by the garbage collector and their finalizer sends the reset. Today's writer does not: its
 * finalizer sees "its workload is gone" and sends nothing ({@code WhoDeleted}), so {@code
 * sendResets} false is what a cluster gets now, true what a writer that resets would give.
 *
 * <p>Replacing a Deployment's ReplicaSet changes nothing here: ingest keys a pod by its Deployment
 * (pod, ReplicaSet, Deployment), and peers by the Deployment's key and selector, so a rollout is
 * the same workload. Churn is new workload keys: new names.
 */
final class ChurnMix {
  static final int FLOWS_PER_MINUTE = 60_000;
  private static final int NAMESPACES = 200;
  private static final int WORKLOADS = 2_000;
  private static final int PAIRS = 10_000;
  private static final int REPLACED_PER_MINUTE = WORKLOADS / 10;
  private static final Instant START = Instant.parse("2026-08-03T15:40:00Z");
  private static final int[] PORTS = {8080, 8443, 5432};

  /** One record for the flows topic (control false) or the control topic. */
  record Entry(boolean control, byte[] key, byte[] value, long offsetMillis) {}

  private final Random random;
  private final int[] generation = new int[WORKLOADS];
  private final FlowEndpoint[] workloads = new FlowEndpoint[WORKLOADS];
  private final int[][] pairs = new int[PAIRS][2];
  private final double[] cumulative = new double[PAIRS];
  private final double total;
  private final Topics topics = new Topics("x.");

  /** Workload keys ({@code ns/Deployment/name}) gone in the current and the previous minute. */
  private List<String> goneThisMinute = new ArrayList<>();

  private List<String> goneLastMinute = new ArrayList<>();

  /** Workload keys whose reset records were sent. */
  private final Set<String> reset = new HashSet<>();

  /** Workload keys gone a minute or more ago (reset then, when resets are sent). */
  private final Set<String> gone = new HashSet<>();

  /** Whether the writer resets a workload that is gone (today's writer does not: see below). */
  private final boolean sendResets;

  private long next;
  private long resets;

  ChurnMix(long seed, boolean sendResets) {
    this.sendResets = sendResets;
    random = new Random(seed);
    for (int w = 0; w < WORKLOADS; w++) {
      workloads[w] = slot(w);
    }
    double sum = 0;
    for (int r = 0; r < PAIRS; r++) {
      pairs[r][0] = random.nextInt(WORKLOADS);
      pairs[r][1] = (pairs[r][0] + 1 + random.nextInt(WORKLOADS - 1)) % WORKLOADS;
      sum += 1.0 / (r + 1);
      cumulative[r] = sum;
    }
    total = sum;
  }

  /** The next {@code flows} flows with the reset records due among them, in order. */
  List<Entry> next(int flows) {
    var flowSerializer = topics.flows().valueSerde().serializer();
    var controlSerializer = topics.control().valueSerde().serializer();
    List<Entry> out = new ArrayList<>(flows + flows / 10);
    for (int n = 0; n < flows; n++, next++) {
      long i = next;
      if (i > 0 && i % FLOWS_PER_MINUTE == 0) {
        minutePassed(i, out, controlSerializer);
      }
      double pick = random.nextDouble();
      FlowEndpoint src;
      FlowEndpoint dst;
      if (pick < 0.05) {
        int ns = (int) (i % NAMESPACES);
        src = endpoint("ns-" + ns, "short-" + i, (int) (100_000 + i % 1_000_000), false);
        goneThisMinute.add(workloadKey("ns-" + ns, "short-" + i));
        dst = workloads[random.nextInt(WORKLOADS)];
      } else if (pick < 0.10) {
        src = workloads[random.nextInt(WORKLOADS)];
        dst =
            FlowEndpoint.outsideCluster(
                "203.0.113." + random.nextInt(250),
                new ExternalEndpoint(List.of("api" + random.nextInt(20) + ".example.com"), null));
      } else {
        int r = rank(random.nextDouble() * total);
        src = workloads[pairs[r][0]];
        dst = workloads[pairs[r][1]];
      }
      Verdict verdict = random.nextDouble() < 0.03 ? Verdict.DENIED : Verdict.FORWARDED;
      FlowRecord flow =
          new FlowRecord(
              START.plusMillis(i),
              Provider.calico,
              Protocol.TCP,
              PORTS[random.nextInt(PORTS.length)],
              src,
              dst,
              verdict,
              null,
              1 + random.nextInt(3),
              i % 3 == 0 ? Reporter.DESTINATION : Reporter.SOURCE);
      out.add(
          new Entry(
              false,
              flow.partitionKey().getBytes(StandardCharsets.UTF_8),
              flowSerializer.serialize("x", flow),
              i));
    }
    return out;
  }

  /**
   * A minute passed at flow {@code i}: resets for what went a minute ago, a tenth of the workloads
   * replaced.
   */
  private void minutePassed(
      long i,
      List<Entry> out,
      org.apache.kafka.common.serialization.Serializer<ControlCommand> serializer) {
    Instant at = START.plusMillis(i);
    for (String workload : goneLastMinute) {
      gone.add(workload);
      if (!sendResets) {
        continue;
      }
      for (Direction d : Direction.values()) {
        String target = workload + "/" + d.name();
        out.add(
            new Entry(
                true,
                target.getBytes(StandardCharsets.UTF_8),
                serializer.serialize(
                    "x", ControlCommand.resetLearning(target, at, "its workload is gone")),
                i));
        resets++;
      }
      reset.add(workload);
    }
    goneLastMinute = goneThisMinute;
    goneThisMinute = new ArrayList<>();
    for (int k = 0; k < REPLACED_PER_MINUTE; k++) {
      int w = random.nextInt(WORKLOADS);
      goneLastMinute.add(workloadKey(workloads[w]));
      generation[w]++;
      workloads[w] = slot(w);
    }
  }

  /** Workloads whose reset records were sent so far. */
  Set<String> reset() {
    return reset;
  }

  /** Workloads gone a minute or more ago, whether reset or not. */
  Set<String> gone() {
    return gone;
  }

  /** Reset records sent so far. */
  long resets() {
    return resets;
  }

  private int rank(double x) {
    int i = Arrays.binarySearch(cumulative, x);
    return Math.min(cumulative.length - 1, i >= 0 ? i : -i - 1);
  }

  private FlowEndpoint slot(int w) {
    String name = generation[w] == 0 ? "app-" + w : "app-" + w + "-g" + generation[w];
    return endpoint("ns-" + (w % NAMESPACES), name, w, w % 4 == 0);
  }

  static String workloadKey(String namespace, String name) {
    return namespace + "/" + WorkloadKind.Deployment.name() + "/" + name;
  }

  private static String workloadKey(FlowEndpoint e) {
    return e.workload().orElseThrow().key();
  }

  private static FlowEndpoint endpoint(String namespace, String name, int n, boolean server) {
    return FlowEndpoint.builder()
        .namespace(namespace)
        .workload(WorkloadKind.Deployment, name)
        .workloadSelector(new LabelSelectorBuilder().withMatchLabels(Map.of("app", name)).build())
        .podLabels(
            Map.of(
                "app",
                name,
                "app.kubernetes.io/part-of",
                namespace,
                "pod-template-hash",
                "5d8f9c7b6"))
        .namespaceLabels(Map.of("kubernetes.io/metadata.name", namespace))
        .podName(name + "-5d8f9c7b6-abcde")
        .ip("10." + (n / 62500) % 250 + "." + (n / 250) % 250 + "." + n % 250)
        .serviceAccount(name)
        .identity("spiffe://cluster.local/ns/" + namespace + "/sa/" + name)
        .namedPorts(server ? List.of(new NamedPort("http", 8080, Protocol.TCP)) : List.of())
        .build();
  }
}
