package io.kubewarden.networkenforcer.cli.ranges;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.common.evaluation.Addresses;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SiblingBlocksTest {

  @Test
  void aHundredConsecutiveNodeBlocksBecomeThreeRangesCoveringExactlyTheSameAddresses() {
    List<String> nodes = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      nodes.add("10.244." + i + ".0/24");
    }
    List<String> joined = SiblingBlocks.joined(nodes);

    // 0-63, 64-95, 96-99.
    assertThat(joined).containsExactly("10.244.0.0/18", "10.244.64.0/19", "10.244.96.0/22");
    for (int third = 0; third < 256; third++) {
      String address = "10.244." + third + ".7";
      assertThat(Addresses.inAny(address, joined))
          .as(address)
          .isEqualTo(Addresses.inAny(address, nodes))
          .isEqualTo(third < 100);
    }
  }

  @Test
  void onlyTwoHalvesOfOneBlockJoinAndTheOrderIsKept() {
    assertThat(
            SiblingBlocks.joined(
                List.of(
                    "10.96.0.0/12",
                    "10.244.1.0/24",
                    "fd00:10:244:1::/64",
                    "10.244.2.0/24",
                    "fd00:10:244::/64",
                    "10.244.3.0/24",
                    "10.244.2.0/24")))
        // 1 and 2 are not halves of one /23 (2 and 3 are); the IPv6 pair is fd00:10:244::/63.
        .containsExactly("10.96.0.0/12", "10.244.1.0/24", "fd00:10:244::/63", "10.244.2.0/23");
    assertThat(SiblingBlocks.joined(List.of("::/1", "8000::/1", "0.0.0.0/1", "128.0.0.0/1")))
        .containsExactly("::/0", "0.0.0.0/0");
    assertThat(SiblingBlocks.joined(List.of("10.1.0.0/16"))).containsExactly("10.1.0.0/16");
  }
}
