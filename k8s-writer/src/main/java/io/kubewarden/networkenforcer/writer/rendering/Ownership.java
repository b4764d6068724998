package io.kubewarden.networkenforcer.writer.rendering;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.kubewarden.networkenforcer.common.policy.Labels;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/** Controller owner references: who owns a rendered object or a proposal. */
public final class Ownership {
  private Ownership() {}

  public static OwnerReference controllerReferenceTo(HasMetadata owner) {
    return new OwnerReferenceBuilder()
        .withApiVersion(owner.getApiVersion())
        .withKind(owner.getKind())
        .withName(owner.getMetadata().getName())
        .withUid(owner.getMetadata().getUid())
        .withController(true)
        .withBlockOwnerDeletion(true)
        .build();
  }

  /** The controller reference of an object, if it has one. */
  public static Optional<OwnerReference> controllerOf(HasMetadata o) {
    List<OwnerReference> refs = o.getMetadata().getOwnerReferences();
    return refs == null
        ? Optional.empty()
        : refs.stream().filter(r -> Boolean.TRUE.equals(r.getController())).findFirst();
  }

  /**
   * Whether {@code owner} is the controller of {@code o} (same uid, or same kind and name when uids
   * are unknown).
   */
  public static boolean isControlledBy(HasMetadata o, HasMetadata owner) {
    return controllerOf(o)
        .filter(
            r ->
                Objects.equals(r.getKind(), owner.getKind())
                    && Objects.equals(r.getName(), owner.getMetadata().getName())
                    && (r.getUid() == null
                        || owner.getMetadata().getUid() == null
                        || r.getUid().equals(owner.getMetadata().getUid())))
        .isPresent();
  }

  /** The live object has our managed-by label and the desired controller reference. */
  public static boolean carriesOurMetadata(HasMetadata live, HasMetadata desired) {
    Map<String, String> labels = live.getMetadata().getLabels();
    boolean labelled =
        labels != null && Labels.MANAGED_BY_VALUE.equals(labels.get(Labels.MANAGED_BY));
    OwnerReference want = controllerOf(desired).orElse(null);
    OwnerReference have = controllerOf(live).orElse(null);
    boolean owned =
        want == null
            || have != null
                && Objects.equals(want.getUid(), have.getUid())
                && Objects.equals(want.getKind(), have.getKind())
                && Objects.equals(want.getName(), have.getName());
    return labelled && owned;
  }
}
