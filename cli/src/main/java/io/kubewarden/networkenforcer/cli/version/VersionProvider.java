package io.kubewarden.networkenforcer.cli.version;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

/** {@code --version}: the project version, filtered into a resource at build time. */
public final class VersionProvider implements IVersionProvider {
  private static final String RESOURCE = "/network-enforcer-version.properties";

  public static String version() {
    Properties p = new Properties();
    try (InputStream in = VersionProvider.class.getResourceAsStream(RESOURCE)) {
      if (in != null) {
        p.load(in);
      }
    } catch (IOException e) {
      // fall through to "unknown"
    }
    return p.getProperty("version", "unknown");
  }

  @Override
  public String[] getVersion() {
    return new String[] {
      "network-enforcer " + version(), "Java " + System.getProperty("java.version")
    };
  }
}
