package io.kubewarden.networkenforcer.common.evaluation;

import io.fabric8.kubernetes.api.model.networking.v1.IPBlock;
import java.util.List;

/**
 * {@code ipBlock}: inside {@code cidr} and outside every {@code except}; invalid CIDRs match
 * nothing.
 */
final class IpBlockMatcher {
  private IpBlockMatcher() {}

  static boolean matches(IPBlock block, IpAddress address) {
    if (address == null) {
      return false;
    }
    CidrBlock cidr = CidrBlock.parse(block.getCidr());
    if (cidr == null || !cidr.contains(address)) {
      return false;
    }
    List<String> except = block.getExcept();
    for (int i = 0, n = except == null ? 0 : except.size(); i < n; i++) {
      CidrBlock excluded = CidrBlock.parse(except.get(i));
      // An unreadable except could exclude anything: do not let the block allow through it.
      if (excluded == null || excluded.contains(address)) {
        return false;
      }
    }
    return true;
  }
}
