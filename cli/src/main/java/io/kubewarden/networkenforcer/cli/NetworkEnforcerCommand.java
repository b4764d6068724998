package io.kubewarden.networkenforcer.cli;

import io.kubewarden.networkenforcer.cli.config.EnvironmentDefaults;
import io.kubewarden.networkenforcer.cli.diff.DiffCommand;
import io.kubewarden.networkenforcer.cli.learn.LearnCommand;
import io.kubewarden.networkenforcer.cli.learn.LearnInputException;
import io.kubewarden.networkenforcer.cli.replay.ReplayCommand;
import io.kubewarden.networkenforcer.cli.services.IngestCommand;
import io.kubewarden.networkenforcer.cli.services.ProcessorCommand;
import io.kubewarden.networkenforcer.cli.services.ReleaseFinalizersCommand;
import io.kubewarden.networkenforcer.cli.services.WriterCommand;
import io.kubewarden.networkenforcer.cli.simulate.SimulateCommand;
import io.kubewarden.networkenforcer.cli.standalone.StandaloneCommand;
import io.kubewarden.networkenforcer.cli.version.VersionProvider;
import io.kubewarden.networkenforcer.common.config.ConfigException;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParseResult;

/**
 * The {@code network-enforcer} executable: one subcommand per service, plus standalone and learn.
 */
@Command(
    name = "network-enforcer",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = {
      "Learns per-workload network policies from the flows your data plane already records, "
          + "over Kafka Streams.",
      "",
      "Every option can also be set as an environment variable (--foo-bar reads NE_FOO_BAR) or in the file "
          + "named by --config (key foo-bar)."
    },
    subcommands = {
      IngestCommand.class,
      ProcessorCommand.class,
      WriterCommand.class,
      StandaloneCommand.class,
      LearnCommand.class,
      SimulateCommand.class,
      DiffCommand.class,
      ReplayCommand.class,
      ReleaseFinalizersCommand.class,
      CompletionCommand.class,
      CommandLine.HelpCommand.class
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:success",
      "1:runtime failure",
      "2:bad configuration or input (the message says what to fix)"
    })
public final class NetworkEnforcerCommand implements Runnable {
  /** Bad configuration or unusable input: the message says what to fix. */
  public static final int EXIT_CONFIG = 2;

  public static final int EXIT_FAILURE = 1;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(
        spec.commandLine(),
        "name a command: ingest, processor, writer, "
            + "standalone, learn, simulate, diff, replay, completion or help (see --help)");
  }

  /** The command line with its defaults provider (environment, config file) and error handling. */
  public static CommandLine commandLine(EnvironmentDefaults defaults) {
    CommandLine cl = new CommandLine(new NetworkEnforcerCommand());
    cl.setDefaultValueProvider(defaults);
    cl.setCaseInsensitiveEnumValuesAllowed(true);
    cl.setExecutionExceptionHandler(NetworkEnforcerCommand::handle);
    cl.setParameterExceptionHandler(NetworkEnforcerCommand::handleUsage);
    cl.setExecutionStrategy(
        parsed -> {
          ParseResult command = parsed;
          while (command.hasSubcommand()) {
            command = command.subcommand();
          }
          if (!command.isUsageHelpRequested() && !command.isVersionHelpRequested()) {
            try {
              defaults.checkFileKeys(command.commandSpec());
            } catch (ConfigException e) {
              throw new CommandLine.ParameterException(
                  command.commandSpec().commandLine(), e.getMessage(), e);
            }
          }
          return new CommandLine.RunLast().execute(parsed);
        });
    CommandHelp.apply(cl);
    return cl;
  }

  /** Runs with the process's environment and config file; returns the exit code. */
  public static int execute(String... args) {
    EnvironmentDefaults defaults;
    try {
      defaults = EnvironmentDefaults.fromProcess(args);
    } catch (ConfigException e) {
      System.err.println("error: " + e.getMessage());
      return EXIT_CONFIG;
    }
    return commandLine(defaults).execute(args);
  }

  public static void main(String[] args) {
    System.exit(execute(args));
  }

  private static int handle(Exception e, CommandLine cl, ParseResult parsed) {
    PrintWriter err = cl.getErr();
    if (isConfigProblem(e)) {
      err.println("error: " + e.getMessage());
      err.flush();
      return EXIT_CONFIG;
    }
    err.println("error: " + (e.getMessage() == null ? e.toString() : e.getMessage()));
    if (Boolean.getBoolean("network-enforcer.debug") || System.getenv("NE_DEBUG") != null) {
      e.printStackTrace(err);
    }
    err.flush();
    return EXIT_FAILURE;
  }

  /**
   * A command line picocli could not parse: one line that says what, and where the help is (as
   * kubectl).
   */
  private static int handleUsage(CommandLine.ParameterException e, String[] args) {
    CommandLine cl = e.getCommandLine();
    PrintWriter err = cl.getErr();
    if (e instanceof CommandLine.MissingParameterException missing
        && !missing.getMissing().isEmpty()) {
      for (CommandLine.Model.ArgSpec arg : missing.getMissing()) {
        err.println("error: " + required(arg));
      }
    } else {
      err.println("error: " + e.getMessage());
      CommandLine.UnmatchedArgumentException.printSuggestions(e, err);
    }
    err.println("See '" + cl.getCommandSpec().qualifiedName() + " --help' for usage and examples.");
    err.flush();
    return EXIT_CONFIG;
  }

  /** {@code --input FILE|DIR|- is required: <its description>}. */
  private static String required(CommandLine.Model.ArgSpec arg) {
    String name =
        arg instanceof CommandLine.Model.OptionSpec o
            ? o.longestName() + " " + o.paramLabel()
            : arg.paramLabel();
    String[] description = arg.description();
    return name + " is required" + (description.length == 0 ? "" : ": " + description[0]);
  }

  static boolean isConfigProblem(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ConfigException || t instanceof LearnInputException) {
        return true;
      }
    }
    return false;
  }
}
