package io.kubewarden.networkenforcer.processor.learning;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.common.flow.Protocol;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The port key is part of stored evidence keys: it must stay exactly what it always was. */
class LearnedPortTest {
  @Test
  void theKeyIsTheProtocolAndTheZeroPaddedPort() {
    assertThat(new LearnedPort(Protocol.UDP, 53).key()).isEqualTo("UDP/00053");
    assertThat(new LearnedPort(Protocol.TCP, 8080).key()).isEqualTo("TCP/08080");
    for (int port :
        List.of(
            0,
            1,
            9,
            10,
            99,
            100,
            999,
            1000,
            9999,
            10000,
            65535,
            99999,
            100000,
            Integer.MAX_VALUE,
            -1,
            -42,
            Integer.MIN_VALUE)) {
      assertThat(new LearnedPort(Protocol.SCTP, port).key())
          .as("port %d", port)
          .isEqualTo("SCTP/" + String.format("%05d", port));
    }
  }
}
