package io.kubewarden.networkenforcer.cli.services;

import io.kubewarden.networkenforcer.common.config.ConfigException;
import io.kubewarden.networkenforcer.common.flow.Provider;
import picocli.CommandLine.Option;

/**
 * {@code --provider}: the installation's data plane; it decides the backend proposals are learned
 * for. It has no default: a processor that silently assumed istio beside a Cilium ingest would
 * learn nothing and say nothing, so every service must be told.
 */
public class ProviderNameOption {
  @Option(
      names = "--provider",
      paramLabel = "istio|calico|cilium",
      description =
          "Required. controller.provider.name: istio (backend istio), calico or cilium (backend "
              + "kubernetes); env NE_PROVIDER.")
  String provider;

  public Provider provider() {
    validate();
    return Provider.parse(provider.trim());
  }

  public void validate() {
    if (provider == null || provider.isBlank()) {
      throw new ConfigException(
          "--provider is required (environment variable NE_PROVIDER; controller.provider.name "
              + "in the chart): set it to istio, calico or cilium, the data plane the flows come from; ingest, "
              + "processor and writer must all name the same one");
    }
    String p = provider.trim();
    if (!p.equals("istio") && !p.equals("calico") && !p.equals("cilium")) {
      throw new ConfigException(
          "--provider '"
              + provider
              + "' must be istio, calico or cilium (NE_PROVIDER, "
              + "controller.provider.name)");
    }
  }
}
