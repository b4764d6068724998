package io.kubewarden.networkenforcer.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a kubelet, kube-proxy, containerd and the CNI plugins change on the host, recorded before a
 * cluster starts and put back when it stops: sysctls, the KUBE-/CNI- iptables chains (and the rules
 * of other chains that jump to them), the pod bridge, mounts below the cluster's directories and
 * {@code /run/netns}, the {@code kubepods} cgroups and the host directories they create.
 */
final class HostState {

  private static final Logger LOG = LoggerFactory.getLogger(HostState.class);
  private static final Path PROC_SYS = Path.of("/proc/sys");

  /** The kubelet sets the first three, kube-proxy route_localnet, the bridge plugin ip_forward. */
  static final List<String> SYSCTLS =
      List.of(
          "vm/overcommit_memory",
          "kernel/panic",
          "kernel/panic_on_oops",
          "net/ipv4/conf/all/route_localnet",
          "net/ipv4/ip_forward",
          "net/bridge/bridge-nf-call-iptables",
          "net/bridge/bridge-nf-call-ip6tables",
          "net/netfilter/nf_conntrack_max",
          "net/netfilter/nf_conntrack_tcp_timeout_established",
          "net/netfilter/nf_conntrack_tcp_timeout_close_wait");

  /** Directories the kubelet, containerd and libcni create at fixed places. */
  static final List<Path> HOST_DIRS =
      List.of(
          Path.of("/var/log/pods"),
          Path.of("/var/log/containers"),
          Path.of("/var/lib/cni"),
          Path.of("/run/netns"),
          Path.of("/var/lib/kubelet"),
          Path.of("/opt/containerd"),
          Path.of("/etc/cni"));

  private static final List<String> IPTABLES = List.of("iptables", "ip6tables");
  private static final List<String> TABLES = List.of("filter", "nat", "mangle", "raw");
  private static final List<String> OWN_CHAIN_PREFIXES = List.of("KUBE-", "CNI-");
  private static final Path CGROUPS = Path.of("/sys/fs/cgroup");
  private static final String KUBEPODS = "kubepods";

  private final String bridge;
  private final List<Path> ownDirs;
  private final Map<String, String> sysctls = new LinkedHashMap<>();
  private final Map<String, Set<String>> chains = new HashMap<>();
  private final Set<String> mounts;
  private final Set<Path> existingDirs = new HashSet<>();
  private final Set<Path> existingCgroups = new HashSet<>();

  private HostState(String bridge, List<Path> ownDirs) {
    this.bridge = bridge;
    this.ownDirs = List.copyOf(ownDirs);
    for (String key : SYSCTLS) {
      readSysctl(key).ifPresent(value -> sysctls.put(key, value));
    }
    for (String binary : IPTABLES) {
      for (String table : TABLES) {
        chains.put(binary + "/" + table, chainNames(rules(binary, table)));
      }
    }
    mounts = new HashSet<>(mountPoints());
    HOST_DIRS.stream().filter(Files::exists).forEach(existingDirs::add);
    kubepodsCgroups().stream().filter(Files::exists).forEach(existingCgroups::add);
  }

  /**
   * Records the host as it is now; {@code ownDirs} are the cluster's directories (all their mounts
   * go).
   */
  static HostState record(String bridge, List<Path> ownDirs) {
    return new HostState(bridge, ownDirs);
  }

  /**
   * Puts back what was recorded; logs and goes on where one step fails, so the others still run.
   */
  void restore() {
    step("unmount", this::unmount);
    step("remove the bridge", this::removeBridge);
    step("remove iptables chains", this::removeChains);
    step("restore sysctls", this::restoreSysctls);
    step("remove cgroups", this::removeCgroups);
    step("remove host directories", this::removeDirs);
  }

  /** What differs from the recording, empty when the host is as it was (a test can assert that). */
  List<String> differences() {
    List<String> left = new ArrayList<>();
    sysctls.forEach(
        (key, value) ->
            readSysctl(key)
                .filter(now -> !now.equals(value))
                .ifPresent(
                    now -> left.add("sysctl " + key + " = " + now + " (was " + value + ")")));
    for (String binary : IPTABLES) {
      for (String table : TABLES) {
        Set<String> now = chainNames(rules(binary, table));
        now.removeAll(chains.get(binary + "/" + table));
        now.stream()
            .filter(HostState::ownChain)
            .forEach(chain -> left.add(binary + " -t " + table + " chain " + chain));
      }
    }
    if (Files.exists(Path.of("/sys/class/net", bridge))) {
      left.add("bridge " + bridge);
    }
    newMounts().forEach(mount -> left.add("mount " + mount));
    kubepodsCgroups().stream()
        .filter(Files::exists)
        .filter(dir -> !existingCgroups.contains(dir))
        .forEach(dir -> left.add("cgroup " + dir));
    HOST_DIRS.stream()
        .filter(Files::exists)
        .filter(dir -> !existingDirs.contains(dir))
        .forEach(dir -> left.add("directory " + dir));
    return left;
  }

  private static void step(String what, Runnable action) {
    try {
      action.run();
    } catch (RuntimeException e) {
      LOG.warn("could not {}: {}", what, e.toString());
    }
  }

  private List<String> newMounts() {
    List<String> fresh = new ArrayList<>();
    for (String mount : mountPoints()) {
      if (!mounts.contains(mount)
          && (mount.startsWith("/run/netns/")
              || mount.startsWith("/var/lib/kubelet")
              || ownDirs.stream().anyMatch(dir -> mount.startsWith(dir.toString())))) {
        fresh.add(mount);
      }
    }
    return fresh;
  }

  private void unmount() {
    List<String> fresh = newMounts();
    // The deepest (latest) first.
    for (int i = fresh.size() - 1; i >= 0; i--) {
      String mount = fresh.get(i);
      if (!HostCommand.run("umount", mount).ok()) {
        HostCommand.run("umount", "-l", mount).requireOk();
      }
    }
  }

  private void removeBridge() {
    if (Files.exists(Path.of("/sys/class/net", bridge))) {
      HostCommand.run("ip", "link", "delete", bridge).requireOk();
    }
  }

  private void removeChains() {
    for (String binary : IPTABLES) {
      for (String table : TABLES) {
        List<String> rules = rules(binary, table);
        Set<String> fresh = chainNames(rules);
        fresh.removeAll(chains.get(binary + "/" + table));
        fresh.removeIf(chain -> !ownChain(chain));
        if (fresh.isEmpty()) {
          continue;
        }
        // Rules of the other chains that jump to ours first, then ours: flushed, then deleted.
        for (String rule : rules) {
          List<String> words = words(rule);
          if (words.size() > 1
              && words.get(0).equals("-A")
              && !fresh.contains(words.get(1))
              && jumpsTo(words, fresh)) {
            List<String> delete = new ArrayList<>(List.of(binary, "-w", "-t", table, "-D"));
            delete.addAll(words.subList(1, words.size()));
            HostCommand.run(delete);
          }
        }
        fresh.forEach(chain -> HostCommand.run(binary, "-w", "-t", table, "-F", chain));
        fresh.forEach(chain -> HostCommand.run(binary, "-w", "-t", table, "-X", chain));
      }
    }
  }

  private static boolean ownChain(String chain) {
    return OWN_CHAIN_PREFIXES.stream().anyMatch(chain::startsWith);
  }

  private static boolean jumpsTo(List<String> words, Set<String> targets) {
    for (int i = 0; i + 1 < words.size(); i++) {
      if ((words.get(i).equals("-j") || words.get(i).equals("-g"))
          && targets.contains(words.get(i + 1))) {
        return true;
      }
    }
    return false;
  }

  private void restoreSysctls() {
    sysctls.forEach(
        (key, value) -> {
          if (readSysctl(key).filter(value::equals).isEmpty()) {
            try {
              Files.writeString(PROC_SYS.resolve(key), value);
            } catch (IOException e) {
              LOG.warn("could not set {} back to {}: {}", key, value, e.toString());
            }
          }
        });
  }

  private void removeCgroups() {
    for (Path dir : kubepodsCgroups()) {
      if (Files.exists(dir) && !existingCgroups.contains(dir)) {
        // A cgroup directory goes with rmdir once its children are gone; its control files go with
        // it.
        try (Stream<Path> tree = Files.walk(dir)) {
          tree.filter(Files::isDirectory)
              .sorted(Comparator.reverseOrder())
              .forEach(HostState::rmdir);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    }
  }

  private static void rmdir(Path dir) {
    try {
      Files.delete(dir);
    } catch (IOException e) {
      LOG.warn("could not remove cgroup {}: {}", dir, e.toString());
    }
  }

  private void removeDirs() {
    for (Path dir : HOST_DIRS) {
      if (Files.exists(dir) && !existingDirs.contains(dir)) {
        deleteRecursively(dir);
      }
    }
  }

  static void deleteRecursively(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    } catch (IOException | UncheckedIOException e) {
      LOG.warn("could not delete {}: {}", dir, e.toString());
    }
  }

  /**
   * {@code /sys/fs/cgroup/<hierarchy>/kubepods} for every mounted hierarchy (v1 and the unified
   * one).
   */
  private static List<Path> kubepodsCgroups() {
    if (!Files.isDirectory(CGROUPS)) {
      return List.of();
    }
    List<Path> dirs = new ArrayList<>();
    if (Files.exists(CGROUPS.resolve("cgroup.controllers"))) {
      dirs.add(CGROUPS.resolve(KUBEPODS));
      return dirs;
    }
    try (Stream<Path> hierarchies = Files.list(CGROUPS)) {
      hierarchies
          .filter(Files::isDirectory)
          .filter(dir -> !Files.isSymbolicLink(dir))
          .forEach(dir -> dirs.add(dir.resolve(KUBEPODS)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return dirs;
  }

  private static java.util.Optional<String> readSysctl(String key) {
    try {
      return java.util.Optional.of(Files.readString(PROC_SYS.resolve(key)).strip());
    } catch (IOException e) {
      return java.util.Optional.empty();
    }
  }

  private static List<String> rules(String binary, String table) {
    HostCommand.Result result = HostCommand.run(binary, "-w", "-t", table, "-S");
    return result.ok() ? result.output().lines().toList() : List.of();
  }

  private static Set<String> chainNames(List<String> rules) {
    Set<String> names = new HashSet<>();
    for (String rule : rules) {
      if (rule.startsWith("-N ")) {
        names.add(rule.substring(3).strip());
      }
    }
    return names;
  }

  private static List<String> mountPoints() {
    try {
      List<String> points = new ArrayList<>();
      for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
        String[] fields = line.split(" ");
        if (fields.length > 4) {
          points.add(fields[4].replace("\\040", " "));
        }
      }
      return points;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Splits an {@code iptables -S} line into its words, keeping quoted comments together. */
  static List<String> words(String rule) {
    List<String> words = new ArrayList<>();
    StringBuilder word = new StringBuilder();
    boolean quoted = false;
    boolean inWord = false;
    for (int i = 0; i < rule.length(); i++) {
      char c = rule.charAt(i);
      if (c == '"') {
        quoted = !quoted;
        inWord = true;
      } else if (c == '\\' && i + 1 < rule.length() && quoted) {
        word.append(rule.charAt(++i));
      } else if (c == ' ' && !quoted) {
        if (inWord) {
          words.add(word.toString());
          word.setLength(0);
          inWord = false;
        }
      } else {
        word.append(c);
        inWord = true;
      }
    }
    if (inWord) {
      words.add(word.toString());
    }
    return words;
  }
}
