package io.kubewarden.networkenforcer.processor.learning;

import java.util.List;

/** One ipBlock of a peer outside the cluster: a CIDR and the ranges excepted from it. */
public record LearnedIpBlock(String cidr, List<String> except) {

  public LearnedIpBlock {
    except = except == null ? List.of() : List.copyOf(except);
  }
}
