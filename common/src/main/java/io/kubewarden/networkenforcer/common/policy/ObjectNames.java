package io.kubewarden.networkenforcer.common.policy;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The naming rule of proposals and policies: {@code <kind>-<workload>-<ingress|egress>}.
 *
 * <p>The name is also the value of the {@code promoted-from} label, and label values are limited to
 * 63 characters; a longer name is cut and given a stable hash suffix of the full name, so the same
 * target always gets the same name and two long targets do not collide.
 */
public final class ObjectNames {

  /** Label value limit; the strictest place the name is used. */
  public static final int MAX_LENGTH = 63;

  private static final int HASH_CHARS = 10;

  private ObjectNames() {}

  public static String forTarget(TargetKey target) {
    return shorten(
        target.workload().kind().lowerCase()
            + "-"
            + target.workload().name()
            + "-"
            + target.direction().lowerCase());
  }

  static String shorten(String full) {
    if (full.length() <= MAX_LENGTH) {
      return full;
    }
    String hash = sha256Hex(full).substring(0, HASH_CHARS);
    String head = full.substring(0, MAX_LENGTH - HASH_CHARS - 1);
    // A name must end alphanumeric before the suffix's dash.
    while (!head.isEmpty() && !Character.isLetterOrDigit(head.charAt(head.length() - 1))) {
      head = head.substring(0, head.length() - 1);
    }
    return head + "-" + hash;
  }

  private static String sha256Hex(String s) {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      return HexFormat.of().formatHex(md.digest(s.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JRE", e);
    }
  }
}
