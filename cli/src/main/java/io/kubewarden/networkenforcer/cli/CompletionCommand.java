package io.kubewarden.networkenforcer.cli;

import io.kubewarden.networkenforcer.cli.version.VersionProvider;
import io.kubewarden.networkenforcer.common.config.ConfigException;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code network-enforcer completion bash|zsh|fish}: a completion script of every command and
 * option, printed for the shell to load. bash and zsh get picocli's generated script (it runs in
 * zsh through bashcompinit); fish has its own {@code complete} lines, written from the same model.
 */
@Command(
    name = "completion",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = {
      "Prints a shell completion script for network-enforcer's commands and options.",
      "",
      "bash and zsh: source it (in ~/.bashrc or ~/.zshrc), or save the bash one under "
          + "/etc/bash_completion.d; fish: save it under ~/.config/fish/completions."
    })
public final class CompletionCommand implements Callable<Integer> {
  private static final String NAME = "network-enforcer";

  @Spec CommandSpec spec;

  @Parameters(paramLabel = "bash|zsh|fish", description = "The shell.")
  String shell;

  @Override
  public Integer call() {
    CommandLine root = spec.root().commandLine();
    PrintWriter out = spec.commandLine().getOut();
    switch (shell) {
      case "bash" -> out.print(AutoComplete.bash(NAME, root));
      case "zsh" -> {
        // picocli's script detects zsh and loads bashcompinit itself.
        out.print(AutoComplete.bash(NAME, root));
      }
      case "fish" -> fish(out, root);
      default -> throw new ConfigException("completion " + shell + ": name bash, zsh or fish");
    }
    out.flush();
    return 0;
  }

  private static void fish(PrintWriter out, CommandLine root) {
    out.println("# fish completion for " + NAME + " (network-enforcer completion fish)");
    out.println("complete -c " + NAME + " -e");
    out.println("complete -c " + NAME + " -f");
    String commands = String.join(" ", root.getSubcommands().keySet());
    root.getSubcommands()
        .forEach(
            (name, sub) ->
                out.println(
                    "complete -c "
                        + NAME
                        + " -n 'not __fish_seen_subcommand_from "
                        + commands
                        + "' -a "
                        + name
                        + " -d "
                        + quote(summary(sub))));
    root.getCommandSpec()
        .options()
        .forEach(o -> out.println(option(o, "not __fish_seen_subcommand_from " + commands)));
    root.getSubcommands()
        .forEach(
            (name, sub) ->
                sub.getCommandSpec().options().stream()
                    .filter(o -> !o.hidden())
                    .forEach(o -> out.println(option(o, "__fish_seen_subcommand_from " + name))));
  }

  private static String option(OptionSpec o, String condition) {
    StringBuilder line = new StringBuilder("complete -c " + NAME + " -n " + quote(condition));
    for (String n : o.names()) {
      line.append(n.startsWith("--") ? " -l " + n.substring(2) : " -s " + n.substring(1));
    }
    if (o.arity().max() > 0) {
      // Options that name files take any path; the others a value the user types.
      boolean file =
          o.type().getName().equals("java.nio.file.Path")
              || o.paramLabel().contains("FILE")
              || o.paramLabel().contains("DIR");
      line.append(file ? " -r -F" : " -x");
    }
    String description =
        firstSentence(o.description())
            .replace("${DEFAULT-VALUE}", String.valueOf(o.defaultValue()));
    return line.append(" -d ").append(quote(description)).toString();
  }

  private static String summary(CommandLine sub) {
    return firstSentence(sub.getCommandSpec().usageMessage().description());
  }

  private static String firstSentence(String[] description) {
    if (description.length == 0) {
      return "";
    }
    String d = description[0].replace("%n", " ").trim();
    int stop = d.indexOf(". ");
    d = stop < 0 ? d : d.substring(0, stop + 1);
    return d.length() > 100 ? d.substring(0, 97) + "..." : d;
  }

  private static String quote(String s) {
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'";
  }
}
