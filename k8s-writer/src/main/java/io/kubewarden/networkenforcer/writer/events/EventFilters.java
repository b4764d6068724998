package io.kubewarden.networkenforcer.writer.events;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.Objects;
import java.util.function.BiPredicate;
import java.util.function.Predicate;

/**
 * Named predicates on informer events: which events are worth a reconcile. Each says why in its
 * name, so a handler reads as a list of reasons.
 */
public final class EventFilters {
  private EventFilters() {}

  public static <T extends HasMetadata> Predicate<T> always() {
    return o -> true;
  }

  public static <T extends HasMetadata> Predicate<T> never() {
    return o -> false;
  }

  public static <T extends HasMetadata> BiPredicate<T, T> anyUpdate() {
    return (old, now) -> true;
  }

  /** The informer's periodic resync: the same object again, so drift is looked at. */
  public static <T extends HasMetadata> BiPredicate<T, T> resync() {
    return (old, now) ->
        Objects.equals(
            old.getMetadata().getResourceVersion(), now.getMetadata().getResourceVersion());
  }

  /** A new generation: the spec changed. */
  public static <T extends HasMetadata> BiPredicate<T, T> generationChanged() {
    return (old, now) ->
        !Objects.equals(old.getMetadata().getGeneration(), now.getMetadata().getGeneration());
  }

  public static <T extends HasMetadata> BiPredicate<T, T> labelsChanged() {
    return (old, now) ->
        !Objects.equals(old.getMetadata().getLabels(), now.getMetadata().getLabels());
  }

  public static <T extends HasMetadata> BiPredicate<T, T> annotationsChanged() {
    return (old, now) ->
        !Objects.equals(old.getMetadata().getAnnotations(), now.getMetadata().getAnnotations());
  }

  /**
   * What the user or the processor changed, or a resync. A status write of our own changes neither
   * spec, labels nor annotations: no reconcile for it.
   */
  public static <T extends HasMetadata> BiPredicate<T, T> specOrMetadataChangedOrResync() {
    return EventFilters.<T>resync()
        .or(generationChanged())
        .or(labelsChanged())
        .or(annotationsChanged());
  }
}
