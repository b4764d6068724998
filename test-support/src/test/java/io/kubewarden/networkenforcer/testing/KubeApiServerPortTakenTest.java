package io.kubewarden.networkenforcer.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;

/**
 * A port taken between its choice and kube-apiserver's bind (as on a busy CI machine) costs a
 * second start on other ports, not the test class.
 */
class KubeApiServerPortTakenTest {

  @Test
  void startsOnOtherPortsWhenTheApiServersPortIsTakenFirst() throws Exception {
    try (ServerSocket squatter =
        new ServerSocket(LoopbackPorts.free(), 1, InetAddress.getLoopbackAddress())) {
      List<Integer> handedOut = new ArrayList<>();
      IntSupplier ports =
          () -> {
            // etcd's client and peer ports first, then kube-apiserver's: the third is the taken
            // one.
            int port = handedOut.size() == 2 ? squatter.getLocalPort() : LoopbackPorts.free();
            handedOut.add(port);
            return port;
          };
      try (KubeApiServer api = KubeApiServer.builder().ports(ports).start()) {
        assertThat(handedOut).hasSize(6).element(2).isEqualTo(squatter.getLocalPort());
        int servedOn = URI.create(api.url()).getPort();
        assertThat(servedOn).isEqualTo(handedOut.get(5)).isNotEqualTo(squatter.getLocalPort());
        assertThat(api.client().namespaces().withName("default").get()).isNotNull();
      }
    }
  }
}
