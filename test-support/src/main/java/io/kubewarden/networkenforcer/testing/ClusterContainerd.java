package io.kubewarden.networkenforcer.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A containerd of the cluster's own, beside Docker's: its own root, state, socket and runc root,
 * the CRI plugin with the local pause image as sandbox image and the CNI plugins of {@code
 * /usr/lib/cni}, pod network namespaces under its state directory (not {@code /run/netns}). {@code
 * restrict_oom_score_adj}: without CAP_SYS_RESOURCE runc cannot give a sandbox the -998 containerd
 * asks for, and every sandbox would fail.
 */
final class ClusterContainerd implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ClusterContainerd.class);
  static final String NAMESPACE = "k8s.io";
  static final Path CNI_BIN_DIR = Path.of("/usr/lib/cni");
  private static final Duration STARTUP = Duration.ofSeconds(60);

  private final Path root;
  private final Path state;
  private final Path cniConfDir;
  private final Path workDir;
  private ManagedProcess process;

  /**
   * @param workDir where its root, config and log go
   * @param state its state directory (sockets: keep the path short, a unix socket path has 108
   *     bytes)
   */
  ClusterContainerd(Path workDir, Path state, Path cniConfDir) {
    this.workDir = workDir;
    this.root = workDir.resolve("containerd");
    this.state = state;
    this.cniConfDir = cniConfDir;
  }

  /** The CRI endpoint for the kubelet. */
  String endpoint() {
    return "unix://" + socket();
  }

  Path socket() {
    return state.resolve("containerd.sock");
  }

  void start(String sandboxImage) {
    Path config = workDir.resolve("containerd.toml");
    try {
      Files.createDirectories(root);
      Files.createDirectories(state);
      Files.writeString(config, config(sandboxImage), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    process =
        ManagedProcess.start(
            "containerd", List.of("containerd", "--config", config.toString()), workDir, false);
    Instant deadline = Instant.now().plus(STARTUP);
    while (!ctr("version").ok()) {
      process.requireAlive();
      if (Instant.now().isAfter(deadline)) {
        throw new IllegalStateException(
            "containerd did not answer on "
                + socket()
                + " within "
                + STARTUP
                + ":\n"
                + process.logTail());
      }
      LockSupport.parkNanos(Duration.ofMillis(200).toNanos());
    }
  }

  private String config(String sandboxImage) {
    String cri = "plugins.\"io.containerd.grpc.v1.cri\"";
    return """
        version = 2
        root = "%s"
        state = "%s"
        disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", \
        "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper"]

        [grpc]
          address = "%s"

        [plugins."io.containerd.internal.v1.opt"]
          path = "%s"

        [%s]
          sandbox_image = "%s"
          restrict_oom_score_adj = true
          netns_mounts_under_state_dir = true
          [%s.containerd]
            snapshotter = "overlayfs"
            default_runtime_name = "runc"
            [%s.containerd.runtimes.runc]
              runtime_type = "io.containerd.runc.v2"
              [%s.containerd.runtimes.runc.options]
                SystemdCgroup = false
                Root = "%s"
          [%s.cni]
            bin_dir = "%s"
            conf_dir = "%s"
        """
        .formatted(
            root,
            state,
            socket(),
            root.resolve("opt"),
            cri,
            sandboxImage,
            cri,
            cri,
            cri,
            state.resolve("runc"),
            cri,
            CNI_BIN_DIR,
            cniConfDir);
  }

  /** Imports a Docker-archive or OCI tarball into the namespace the kubelet's pods use. */
  void importImage(Path tarball) {
    ctr("images", "import", tarball.toString()).requireOk();
  }

  /** The ids of the tasks (running containers, sandboxes included). */
  List<String> tasks() {
    HostCommand.Result result = ctr("tasks", "list", "--quiet");
    return result.ok()
        ? result.output().lines().map(String::strip).filter(line -> !line.isEmpty()).toList()
        : List.of();
  }

  /**
   * Kills and deletes every task and container left (after the kubelet stopped): their shims exit
   * with them.
   */
  void removeAllContainers() {
    for (String task : tasks()) {
      ctr("tasks", "kill", "--signal", "SIGKILL", task);
    }
    Instant deadline = Instant.now().plusSeconds(20);
    for (String task : tasks()) {
      while (!ctr("tasks", "delete", task).ok() && Instant.now().isBefore(deadline)) {
        LockSupport.parkNanos(Duration.ofMillis(200).toNanos());
      }
    }
    HostCommand.Result containers = ctr("containers", "list", "--quiet");
    if (containers.ok()) {
      containers
          .output()
          .lines()
          .map(String::strip)
          .filter(id -> !id.isEmpty())
          .forEach(id -> ctr("containers", "delete", id));
    }
  }

  HostCommand.Result ctr(String... args) {
    List<String> command =
        new ArrayList<>(List.of("ctr", "--address", socket().toString(), "--namespace", NAMESPACE));
    command.addAll(List.of(args));
    return HostCommand.run(command);
  }

  /**
   * The shims of this containerd (they outlive it): the processes whose command line names its
   * socket.
   */
  List<Long> shimPids() {
    List<Long> pids = new ArrayList<>();
    String address = socket().toString();
    try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
      procs
          .filter(dir -> dir.getFileName().toString().chars().allMatch(Character::isDigit))
          .forEach(
              dir -> {
                try {
                  String cmdline = Files.readString(dir.resolve("cmdline"), StandardCharsets.UTF_8);
                  if (cmdline.contains("containerd-shim") && cmdline.contains(address)) {
                    pids.add(Long.parseLong(dir.getFileName().toString()));
                  }
                } catch (IOException | UncheckedIOException gone) {
                  // The process exited meanwhile.
                }
              });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return pids;
  }

  String logTail() {
    return process == null ? "" : process.logTail();
  }

  @Override
  public void close() {
    if (process != null) {
      process.close();
      process = null;
    }
    for (long pid : shimPids()) {
      LOG.warn("containerd shim {} outlived its containers; killing it", pid);
      ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
    }
  }
}
