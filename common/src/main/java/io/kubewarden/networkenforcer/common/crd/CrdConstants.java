package io.kubewarden.networkenforcer.common.crd;

/** API group and version of our custom resources. */
public final class CrdConstants {
  public static final String GROUP = "networkenforcer.kubewarden.io";
  public static final String VERSION = "v1alpha1";
  public static final String API_VERSION = GROUP + "/" + VERSION;

  private CrdConstants() {}
}
