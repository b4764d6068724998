package io.kubewarden.networkenforcer.cli.config;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * {@code --config FILE}: a YAML file of option values keyed by long option name. It is read by
 * {@link EnvironmentDefaults} before parsing; declaring it here makes every command accept it.
 */
public class ConfigFileOption {
  @Option(
      names = "--config",
      paramLabel = "FILE",
      description =
          "YAML file of option values, keyed by long option name (env NE_CONFIG). "
              + "Flags win over NE_* environment variables, which win over the file.")
  Path file;
}
