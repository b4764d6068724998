package io.kubewarden.networkenforcer.common.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.kubernetes.api.model.LabelSelector;
import java.util.Objects;

/** One end of a violation record: the workload, its identity (Istio) and its selector. */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public class ViolationEndpoint {
  private String namespace;
  private String ownerKind;
  private String ownerName;
  private String identity;
  private LabelSelector selector;

  public ViolationEndpoint() {}

  public ViolationEndpoint(
      String namespace,
      String ownerKind,
      String ownerName,
      String identity,
      LabelSelector selector) {
    this.namespace = namespace;
    this.ownerKind = ownerKind;
    this.ownerName = ownerName;
    this.identity = identity;
    this.selector = selector;
  }

  public String getNamespace() {
    return namespace;
  }

  public void setNamespace(String namespace) {
    this.namespace = namespace;
  }

  public String getOwnerKind() {
    return ownerKind;
  }

  public void setOwnerKind(String ownerKind) {
    this.ownerKind = ownerKind;
  }

  public String getOwnerName() {
    return ownerName;
  }

  public void setOwnerName(String ownerName) {
    this.ownerName = ownerName;
  }

  public String getIdentity() {
    return identity;
  }

  public void setIdentity(String identity) {
    this.identity = identity;
  }

  public LabelSelector getSelector() {
    return selector;
  }

  public void setSelector(LabelSelector selector) {
    this.selector = selector;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ViolationEndpoint e
        && Objects.equals(namespace, e.namespace)
        && Objects.equals(ownerKind, e.ownerKind)
        && Objects.equals(ownerName, e.ownerName)
        && Objects.equals(identity, e.identity)
        && Objects.equals(selector, e.selector);
  }

  @Override
  public int hashCode() {
    return Objects.hash(namespace, ownerKind, ownerName, identity, selector);
  }
}
