package io.kubewarden.networkenforcer.processor.observation;

import com.fasterxml.jackson.annotation.JsonCreator;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;

/**
 * A flow as seen by one target (the record key, {@code ns/Kind/name/Direction}): the value of the
 * repartition topic.
 *
 * @param fallbackTarget for a deny whose reporter is unknown: the target to pass it on to when this
 *     target has no policy (the source's egress); null otherwise
 * @param records how many flow records this observation stands for: more than one after the {@link
 *     ObservationCombiner} combined repeated flow records, so that a violation still counts every
 *     one of them (api.md counts one per flow record); an observation of older versions (JSON or
 *     binary without the field) stands for one
 */
public record Observation(FlowRecord flow, String fallbackTarget, long records) {

  @JsonCreator // the canonical one: JSON observations of older versions have no records
  public Observation {
    if (records <= 0) {
      records = 1;
    }
  }

  public Observation(FlowRecord flow, String fallbackTarget) {
    this(flow, fallbackTarget, 1);
  }

  public static Observation of(FlowRecord flow) {
    return new Observation(flow, null, 1);
  }
}
