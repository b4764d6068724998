package io.kubewarden.networkenforcer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Help, version, and configuration errors of every command: clear message, exit 2, no stack trace.
 */
class CommandLineTest {
  @TempDir Path dir;

  @ParameterizedTest
  @CsvSource({
    "ingest, --hubble-endpoint, --provider-tls-mode",
    "processor, --processing-guarantee, --state-dir",
    "writer, --status-sync-interval, --telemetry-collector-strategy",
    "standalone, --data-dir, --hubble-endpoint",
    "learn, --input, --cluster-state"
  })
  void everyCommandHasHelp(String command, String option1, String option2) {
    CliRun run = CliRun.run(command, "--help");

    assertThat(run.exitCode()).isZero();
    assertThat(run.out())
        .startsWith("Usage: network-enforcer " + command)
        .contains(option1)
        .contains(option2)
        .contains("--help")
        .contains("--version")
        .contains("--config");
    if (!command.equals("learn")) {
      assertThat(run.out()).contains("--management-port").contains("--kafka-bootstrap-servers");
    }
  }

  /**
   * Every command, the root and help and completion included, shows examples and its exit codes.
   */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "ingest",
        "processor",
        "writer",
        "standalone",
        "learn",
        "simulate",
        "diff",
        "replay",
        "release-finalizers",
        "completion",
        "help"
      })
  void everyHelpHasExamplesAndExitCodes(String command) {
    CliRun run = command.isEmpty() ? CliRun.run("--help") : CliRun.run(command, "--help");
    assertThat(run.exitCode()).as(run.err()).isZero();
    String out = run.out();
    assertThat(out).contains("\nExit codes:\n  0 ").contains("\n  2 ").contains("\nExamples:\n  ");
    String examples = out.substring(out.indexOf("\nExamples:\n"));
    assertThat(examples).contains("network-enforcer " + (command.isEmpty() ? "learn" : command));
    // Sized for a terminal: no example line is wrapped.
    assertThat(examples.lines()).allSatisfy(l -> assertThat(l.length()).isLessThanOrEqualTo(80));
  }

  @Test
  void helpSubcommandPrintsTheCommandsHelp() {
    CliRun help = CliRun.run("help", "diff");
    assertThat(help.exitCode()).isZero();
    assertThat(help.out()).isEqualTo(CliRun.run("diff", "--help").out());
    CliRun unknown = CliRun.run("help", "nope");
    assertThat(unknown.exitCode()).isEqualTo(2);
  }

  @Test
  void requiredOptionsAreShownAsRequiredAndNamedWhenMissing() {
    assertThat(CliRun.run("learn", "--help").out())
        // Required: not in brackets, wherever the usage line wraps.
        .containsPattern("\\s-f=FILE\\|DIR\\|-\\s")
        .doesNotContain("[-f=FILE|DIR|-]")
        .contains(" --output-dir=DIR")
        .doesNotContain("[--output-dir=DIR]");
    assertThat(CliRun.run("diff", "--help").out())
        .contains(" -f=FILE|DIR|- ")
        .contains("[--policy=FILE|DIR|-]");
    assertThat(CliRun.run("simulate", "--help").out()).contains(" -f=FILE|DIR|- ");
    assertThat(CliRun.run("replay", "--help").out())
        .contains(" --from=TIME")
        .doesNotContain("[--from=TIME]");

    CliRun missing = CliRun.run("simulate", "--input", "x.jsonl");
    assertThat(missing.exitCode()).isEqualTo(2);
    assertThat(missing.err())
        .isEqualTo(
            "error: --policy FILE|DIR|- is required: The candidate policies: a file, "
                + "a directory (read recursively, as learn writes it) or - for standard input.\n"
                + "See 'network-enforcer simulate --help' for usage and examples.\n");

    CliRun typo = CliRun.run("diff", "-f", "x", "--polcy", "y");
    assertThat(typo.exitCode()).isEqualTo(2);
    assertThat(typo.err())
        .startsWith("error: Unknown options: '--polcy', 'y'")
        .contains("--policy")
        .endsWith("See 'network-enforcer diff --help' for usage and examples.\n");
  }

  @Test
  void commandsThatCreateNoTopicDoNotOfferTopicCreationOptions() {
    for (String command : new String[] {"simulate", "replay"}) {
      assertThat(CliRun.run(command, "--help").out())
          .as(command)
          .contains("--kafka-bootstrap-servers")
          .doesNotContain("--kafka-partitions")
          .doesNotContain("--kafka-replication-factor")
          .doesNotContain("--kafka-create-topics")
          .doesNotContain("--kafka-flows-retention-ms=");
    }
    assertThat(CliRun.run("processor", "--help").out())
        .contains("--kafka-partitions")
        .contains("--kafka-replication-factor")
        .contains("--kafka-create-topics")
        .contains("--kafka-flows-retention-ms");
  }

  @Test
  void oneNamePerConcept() {
    // The data plane is --provider everywhere; the policy model (--backend) is chosen only where
    // proposals are learned, and defaults to the provider's.
    for (String command : new String[] {"learn", "replay", "ingest", "processor", "writer"}) {
      assertThat(CliRun.run(command, "--help").out())
          .as(command)
          .contains("--provider=istio|calico|cilium");
    }
    for (String command : new String[] {"learn", "processor", "standalone", "replay"}) {
      assertThat(CliRun.run(command, "--help").out())
          .as(command)
          .contains("--backend=kubernetes|istio|cilium");
    }
    for (String command : new String[] {"ingest", "writer"}) {
      assertThat(CliRun.run(command, "--help").out()).as(command).doesNotContain("--backend");
    }
    // The namespace selection is -n/--namespace where a command has one.
    assertThat(CliRun.run("diff", "--help").out()).contains("-n, --namespace=NS");
    assertThat(CliRun.run("replay", "--help").out()).contains("-n, --namespace=NS");
  }

  @Test
  void completionScriptsForBashZshAndFish() throws Exception {
    CliRun bash = CliRun.run("completion", "bash");
    assertThat(bash.exitCode()).isZero();
    Path script = Files.writeString(dir.resolve("completion.bash"), bash.out());
    // The script in a real bash: what does "network-enforcer learn --ov<TAB>" complete to?
    Process p =
        new ProcessBuilder(
                "bash",
                "-c",
                "source "
                    + script
                    + " && "
                    + "COMP_WORDS=(network-enforcer learn --ov) && COMP_CWORD=2 && COMP_LINE='network-enforcer learn --ov' && "
                    + "COMP_POINT=${#COMP_LINE} && $(complete -p network-enforcer | sed -E 's/.* -F ([^ ]+) .*/\\1/') && "
                    + "echo \"${COMPREPLY[@]}\" && COMP_WORDS=(network-enforcer com) && COMP_CWORD=1 && "
                    + "COMP_LINE='network-enforcer com' && COMP_POINT=${#COMP_LINE} && "
                    + "$(complete -p network-enforcer | sed -E 's/.* -F ([^ ]+) .*/\\1/') && echo \"${COMPREPLY[@]}\"")
            // compopt complains outside a real completion; what matters is COMPREPLY.
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    String completed = new String(p.getInputStream().readAllBytes()).trim();
    assertThat(p.waitFor()).as(completed).isZero();
    assertThat(completed.lines()).containsExactly("--overwrite", "completion");

    CliRun zsh = CliRun.run("completion", "zsh");
    assertThat(zsh.exitCode()).isZero();
    assertThat(zsh.out()).contains("bashcompinit").contains("complete -F");

    CliRun fish = CliRun.run("completion", "fish");
    assertThat(fish.exitCode()).isZero();
    assertThat(fish.out())
        .contains(
            "complete -c network-enforcer -n 'not __fish_seen_subcommand_from ingest "
                + "processor writer standalone learn simulate diff replay release-finalizers "
                + "completion help' -a learn -d 'Learns proposals")
        .contains(
            "complete -c network-enforcer -n '__fish_seen_subcommand_from learn' -l output-dir -r -F -d "
                + "'Where the manifests go; must be empty or new unless --overwrite is given.'")
        .contains(
            "complete -c network-enforcer -n '__fish_seen_subcommand_from diff' -s o -l output -x -d "
                + "'Report format (default: text): text for people, json or yaml for tools.'")
        .contains("complete -c network-enforcer -n '__fish_seen_subcommand_from learn' -l backend");

    CliRun other = CliRun.run("completion", "powershell");
    assertThat(other.exitCode()).isEqualTo(2);
    assertThat(other.err()).contains("name bash, zsh or fish");
  }

  @Test
  void theRootListsTheCommands() {
    CliRun run = CliRun.run("--help");
    assertThat(run.exitCode()).isZero();
    assertThat(run.out())
        .contains("ingest")
        .contains("processor")
        .contains("writer")
        .contains("standalone")
        .contains("learn")
        .contains("NE_FOO_BAR");

    CliRun none = CliRun.run();
    assertThat(none.exitCode()).isEqualTo(2);
    assertThat(none.err()).contains("name a command");
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "ingest", "processor", "writer", "standalone", "learn"})
  void everyCommandPrintsTheVersion(String command) {
    CliRun run = command.isEmpty() ? CliRun.run("--version") : CliRun.run(command, "--version");
    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).containsPattern("network-enforcer \\d+\\.\\d+\\.\\d+");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "processor --kafka-bootstrap-servers kafka --state-dir /tmp/x|kafka bootstrap server 'kafka' is not host:port",
        "processor --state-dir /tmp/x|kafka bootstrap servers are not set",
        "processor --kafka-bootstrap-servers k:9092 --provider istio --processing-guarantee maybe --state-dir /tmp/x|processing guarantee must be exactly_once_v2 or at_least_once",
        "processor --kafka-bootstrap-servers k:9092 --provider istio --kafka-partitions 0 --state-dir /tmp/x|partitions must be at least 1",
        "writer --kafka-bootstrap-servers k:9092 --provider istio --status-sync-interval banana|--status-sync-interval",
        "writer --kafka-bootstrap-servers k:9092 --provider istio --telemetry-collector-strategy external|telemetry strategy external needs an endpoint",
        "writer --kafka-bootstrap-servers k:9092 --provider istio --pod-namespace Not_A_Name|must be a Kubernetes name",
        "ingest --kafka-bootstrap-servers k:9092 --provider linkerd|--provider 'linkerd' must be istio, calico or cilium",
        "ingest --kafka-bootstrap-servers k:9092 --provider calico --provider-tls-mode insecure|Goldmane only accepts mutual TLS",
        "ingest --kafka-bootstrap-servers k:9092 --provider cilium --provider-tls-mode plain|is not a TLS mode",
        "ingest --kafka-bootstrap-servers k:9092 --log-level loud|log level 'loud' is not one of",
        "ingest --kafka-bootstrap-servers k:9092 --provider cilium --provider-tls-mode insecure --aggregation-window 5x|--aggregation-window = '5x' is not a duration",
        "ingest --kafka-bootstrap-servers k:9092 --provider cilium --provider-tls-mode insecure --aggregation-window 2m|ingest aggregation window PT2M must be between 0 (off) and 60s",
        "ingest --kafka-bootstrap-servers k:9092 --provider cilium --hubble-node-local --node-name w1|--node-ip (NE_NODE_IP, the pod's status.hostIP) 'null' is not an address",
        "ingest --kafka-bootstrap-servers k:9092 --provider cilium --hubble-node-local --node-ip 10.0.0.7|--node-name (NE_NODE_NAME, the pod's spec.nodeName) 'null' is not a node name",
        "ingest --kafka-bootstrap-servers k:9092 --provider cilium --hubble-node-local --node-name w1 --node-ip 10.0.0.7 --hubble-endpoint relay:443|--hubble-endpoint relay:443 and --hubble-node-local exclude each other",
        "ingest --kafka-bootstrap-servers k:9092 --provider cilium --hubble-node-local --node-name w1 --node-ip 10.0.0.7 --provider-tls-server-name x|--provider-tls-server-name and --hubble-node-local exclude each other",
        "ingest --kafka-bootstrap-servers k:9092 --provider calico --hubble-node-local --node-name w1 --node-ip 10.0.0.7|--hubble-node-local reads Cilium's Hubble servers",
        "ingest --kafka-bootstrap-servers k:9092 --provider cilium --hubble-node-local --node-name w1 --node-ip fd00::7 --cilium-cluster-name prod-eu|",
        "standalone --provider cilium --data-dir /tmp/x --hubble-node-local --node-name w1 --node-ip 10.0.0.7|the one standalone pod would learn that node's flows only",
        "standalone --kafka-bootstrap-servers k:9092|standalone runs its own Kafka broker",
        // No silent default provider: each service must be told which data plane it serves.
        "processor --kafka-bootstrap-servers k:9092 --state-dir /tmp/x|--provider is required (environment variable NE_PROVIDER",
        "writer --kafka-bootstrap-servers k:9092|--provider is required (environment variable NE_PROVIDER",
        "standalone --data-dir /tmp/x|--provider is required (environment variable NE_PROVIDER",
        "ingest --kafka-bootstrap-servers k:9092|--provider is required (environment variable NE_PROVIDER",
        // Removed: the writer always takes its Lease.
        "writer --kafka-bootstrap-servers k:9092 --provider cilium --leader-election=false|--leader-election (NE_LEADER_ELECTION) was removed",
        "standalone --provider cilium --data-dir /tmp/x --leader-election false|--leader-election (NE_LEADER_ELECTION) was removed",
        "standalone --provider cilium --data-dir /tmp/x --status-sync-interval 1m30s|",
        "writer --kafka-bootstrap-servers k:9092 --provider istio --status-sync-interval 1m30s|",
        "processor --kafka-bootstrap-servers k:9092 --provider istio --kafka-flows-retention-ms 5 --state-dir /tmp/x|"
      })
  void badConfigurationEndsWithExitTwoAndTheSettingToFix(String args, String message) {
    CliRun run = CliRun.run((args + " --check-config").split(" "));

    if (message == null) {
      // Options that only matter once topics are created are accepted by --check-config.
      assertThat(run.exitCode()).as(run.err()).isZero();
      return;
    }
    assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(2);
    assertThat(run.err())
        .startsWith("error: ")
        .contains(message)
        .doesNotContain("\tat ")
        .doesNotContain("Exception");
  }

  @Test
  void aValidConfigurationPassesTheCheck() {
    assertThat(
            CliRun.run(
                    "processor",
                    "--kafka-bootstrap-servers",
                    "kafka:9092",
                    "--provider",
                    "cilium",
                    "--state-dir",
                    dir.toString(),
                    "--check-config")
                .exitCode())
        .isZero();
    assertThat(
            CliRun.run(
                    "writer",
                    "--kafka-bootstrap-servers",
                    "kafka:9092",
                    "--provider",
                    "calico",
                    "--check-config")
                .exitCode())
        .isZero();
    assertThat(
            CliRun.run(
                    "ingest",
                    "--kafka-bootstrap-servers",
                    "kafka:9092",
                    "--provider",
                    "cilium",
                    "--hubble-endpoint",
                    "relay:4245",
                    "--provider-tls-mode",
                    "insecure",
                    "--check-config")
                .exitCode())
        .isZero();
    assertThat(
            CliRun.run(
                    "ingest",
                    "--kafka-bootstrap-servers",
                    "kafka:9092",
                    "--provider",
                    "cilium",
                    "--provider-tls-mode",
                    "insecure",
                    "--aggregation-window",
                    "0",
                    "--check-config")
                .exitCode())
        .isZero();
    assertThat(
            CliRun.run(
                    "standalone",
                    "--provider",
                    "cilium",
                    "--data-dir",
                    dir.toString(),
                    "--check-config")
                .exitCode())
        .isZero();
  }

  @Test
  void theProcessorLearnsTheCiliumBackendOnlyWithTheCiliumProvider() {
    Map<String, String> env = Map.of("NE_BACKEND", "cilium");
    String[] processor = {
      "processor",
      "--kafka-bootstrap-servers",
      "kafka:9092",
      "--state-dir",
      dir.toString(),
      "--provider",
      "cilium",
      "--check-config"
    };
    assertThat(CliRun.run(env, processor).exitCode()).isZero();

    processor[6] = "calico";
    CliRun calico = CliRun.run(env, processor);
    assertThat(calico.exitCode()).isEqualTo(2);
    assertThat(calico.err()).contains("the calico provider learns the kubernetes backend only");

    CliRun unknown = CliRun.run(Map.of("NE_BACKEND", "calico"), processor);
    assertThat(unknown.exitCode()).isEqualTo(2);
    assertThat(unknown.err())
        .contains("--backend (NE_BACKEND): backend must be kubernetes, istio or cilium");

    // Entities (NE_CILIUM_ENTITIES, as the chart sets it) with the cilium backend only.
    processor[6] = "cilium";
    assertThat(
            CliRun.run(Map.of("NE_BACKEND", "cilium", "NE_CILIUM_ENTITIES", "true"), processor)
                .exitCode())
        .isZero();
    CliRun entities = CliRun.run(Map.of("NE_CILIUM_ENTITIES", "true"), processor);
    assertThat(entities.exitCode()).isEqualTo(2);
    assertThat(entities.err())
        .contains("Cilium entities are rules of the cilium backend; backend 'kubernetes' has none");

    // L7 HTTP learning (NE_LEARN_L7_HTTP, as the chart sets it) with the cilium backend only.
    assertThat(
            CliRun.run(Map.of("NE_BACKEND", "cilium", "NE_LEARN_L7_HTTP", "true"), processor)
                .exitCode())
        .isZero();
    CliRun l7 = CliRun.run(Map.of("NE_LEARN_L7_HTTP", "true"), processor);
    assertThat(l7.exitCode()).isEqualTo(2);
    assertThat(l7.err())
        .contains(
            "L7 HTTP rules are rules of the cilium backend; backend 'kubernetes' has none: drop"
                + " --learn-l7-http or choose --backend cilium");
  }

  @Test
  void flagsWinOverEnvironmentWhichWinsOverTheConfigFile() throws Exception {
    Path config = dir.resolve("ne.yaml");
    Files.writeString(
        config, "kafka-bootstrap-servers: fromfile\nprocessing-guarantee: at_least_once\n");
    Map<String, String> env = Map.of("NE_KAFKA_BOOTSTRAP_SERVERS", "fromenv");

    CliRun fromEnv = CliRun.run(env, "processor", "--state-dir", dir.toString(), "--check-config");
    assertThat(fromEnv.err()).contains("'fromenv' is not host:port");

    CliRun fromFlag =
        CliRun.run(
            env,
            "processor",
            "--kafka-bootstrap-servers",
            "fromflag",
            "--state-dir",
            dir.toString(),
            "--check-config");
    assertThat(fromFlag.err()).contains("'fromflag' is not host:port");

    CliRun withFile =
        CliRun.runWithConfigFile(
            Map.of(),
            config,
            "processor",
            "--config",
            config.toString(),
            "--state-dir",
            dir.toString(),
            "--check-config");
    assertThat(withFile.exitCode()).isEqualTo(2);
    assertThat(withFile.err()).contains("'fromfile' is not host:port");

    CliRun envOverFile =
        CliRun.runWithConfigFile(
            env,
            config,
            "processor",
            "--config",
            config.toString(),
            "--state-dir",
            dir.toString(),
            "--check-config");
    assertThat(envOverFile.err()).contains("'fromenv' is not host:port");
  }

  @Test
  void aMissingConfigFileIsNamed() {
    int code =
        NetworkEnforcerCommand.execute(
            "processor", "--config", dir.resolve("nope.yaml").toString());
    assertThat(code).isEqualTo(2);
  }
}
