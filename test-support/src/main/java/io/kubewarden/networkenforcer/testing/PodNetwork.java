package io.kubewarden.networkenforcer.testing;

import java.nio.file.Path;

/**
 * The node's CNI configuration: a bridge of its own with host-local addresses from the pod subnet,
 * then {@code firewall} (Docker sets the FORWARD policy to DROP: without it pod traffic through the
 * bridge is dropped) and {@code portmap} for hostPorts.
 */
final class PodNetwork {

  private PodNetwork() {}

  static String conflist(String bridge, String subnet, Path ipamDataDir) {
    return """
        {
          "cniVersion": "1.0.0",
          "name": "ne-test",
          "plugins": [
            {
              "type": "bridge",
              "bridge": "%s",
              "isGateway": true,
              "ipMasq": true,
              "hairpinMode": true,
              "ipam": {
                "type": "host-local",
                "ranges": [[{"subnet": "%s"}]],
                "routes": [{"dst": "0.0.0.0/0"}],
                "dataDir": "%s"
              }
            },
            {"type": "firewall"},
            {"type": "portmap", "capabilities": {"portMappings": true}}
          ]
        }
        """
        .formatted(bridge, subnet, ipamDataDir);
  }
}
