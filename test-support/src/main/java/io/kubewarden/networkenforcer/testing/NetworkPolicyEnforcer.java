package io.kubewarden.networkenforcer.testing;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * The test cluster's NetworkPolicy enforcer: the controller of {@code
 * sigs.k8s.io/kube-network-policies} v0.8.0 with a main of ours ({@code hack/tools/cluster/netpol},
 * built by {@code hack/tools/cluster.sh}), a host process beside the kubelet. The first packet of
 * every new connection from or to a pod goes to it over nfqueue (the iptables chain {@code mangle
 * NE-NETWORK-POLICIES}, which it adds once it listens and removes when it stops), and it accepts or
 * drops it as the NetworkPolicies say: a denied connection's client times out. The bridge CNI
 * enforces nothing by itself. Traffic the node's root sends (the kubelet's probes, the test JVM)
 * and established connections are never queued.
 */
final class NetworkPolicyEnforcer implements AutoCloseable {

  static final String BINARY = "kube-network-policies";

  /** The chain the process hangs off mangle POSTROUTING. */
  static final String CHAIN = "NE-NETWORK-POLICIES";

  private static final Duration POLL = Duration.ofMillis(250);

  private final ManagedProcess process;

  private NetworkPolicyEnforcer(ManagedProcess process) {
    this.process = process;
  }

  /**
   * Starts it with a kubeconfig that may read pods, namespaces and NetworkPolicies and write
   * Events; returns once its queueing rules are in place (its informers synced, the queue bound).
   */
  static NetworkPolicyEnforcer start(
      Path kubeconfig, String nodeName, String podSubnet, Path workDir, Duration timeout) {
    ManagedProcess process =
        ManagedProcess.start(
            BINARY,
            List.of(
                KubeTools.require(BINARY).toString(),
                "--kubeconfig=" + kubeconfig,
                "--node-name=" + nodeName,
                "--pod-cidr=" + podSubnet,
                "--v=2"),
            workDir,
            false);
    NetworkPolicyEnforcer enforcer = new NetworkPolicyEnforcer(process);
    Instant deadline = Instant.now().plus(timeout);
    while (!rulesPresent()) {
      if (!process.isAlive() || Instant.now().isAfter(deadline)) {
        enforcer.close();
        throw new IllegalStateException(
            BINARY
                + ": no jump to "
                + CHAIN
                + " in mangle POSTROUTING within "
                + timeout
                + "; last log lines:\n"
                + process.logTail());
      }
      LockSupport.parkNanos(POLL.toNanos());
    }
    return enforcer;
  }

  ManagedProcess process() {
    return process;
  }

  /** Stops it; its rules go with it (removed here if the process could not). */
  @Override
  public void close() {
    process.close();
    for (int i = 0; i < 3 && rulesPresent(); i++) {
      iptables("-D", "POSTROUTING", "-j", CHAIN);
    }
    iptables("-F", CHAIN);
    iptables("-X", CHAIN);
  }

  private static boolean rulesPresent() {
    return iptables("-C", "POSTROUTING", "-j", CHAIN).ok();
  }

  private static HostCommand.Result iptables(String... args) {
    List<String> command = new java.util.ArrayList<>(List.of("iptables", "-w", "-t", "mangle"));
    command.addAll(List.of(args));
    return HostCommand.run(command);
  }
}
