package io.kubewarden.networkenforcer.processor.learning;

/**
 * Key of one port's evidence in the evidence store: {@code <target>|<peer>|<port>}. Evidence lives
 * apart from the allow-list so that a flow on a known port updates one small record, whatever the
 * number of peers ('|' appears in no target key, workload key or principal).
 */
public final class EvidenceKey {

  private EvidenceKey() {}

  public static String of(String target, String peerKey, String portKey) {
    return target + "|" + peerKey + "|" + portKey;
  }
}
