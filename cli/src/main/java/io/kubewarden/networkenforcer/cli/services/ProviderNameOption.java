package io.kubewarden.networkenforcer.cli.services;

import io.kubewarden.networkenforcer.common.config.ConfigException;
import io.kubewarden.networkenforcer.common.flow.Provider;
import picocli.CommandLine.Option;

/** {@code --provider}: the installation's data plane; it decides the backend proposals are learned for. */
public class ProviderNameOption {
  @Option(names = "--provider", paramLabel = "istio|calico|cilium", defaultValue = "istio",
      description = "controller.provider.name: istio (default, backend istio), calico or cilium (backend kubernetes).")
  String provider;

  public Provider provider() {
    validate();
    return Provider.parse(provider.trim());
  }

  public void validate() {
    String p = provider == null ? "" : provider.trim();
    if (!p.equals("istio") && !p.equals("calico") && !p.equals("cilium")) {
      throw new ConfigException("--provider '" + provider + "' must be istio, calico or cilium (NE_PROVIDER, "
          + "controller.provider.name)");
    }
  }
}
