package io.kubewarden.networkenforcer.common.config;

/** A configuration value that is missing or wrong. The message says which one and how to fix it. */
public class ConfigException extends RuntimeException {
  public ConfigException(String message) {
    super(message);
  }
}
