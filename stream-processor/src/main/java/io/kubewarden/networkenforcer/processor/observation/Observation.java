package io.kubewarden.networkenforcer.processor.observation;

import io.kubewarden.networkenforcer.common.flow.FlowRecord;

/**
 * A flow as seen by one target (the record key, {@code ns/Kind/name/Direction}): the value of the
 * repartition topic.
 *
 * @param fallbackTarget for a deny whose reporter is unknown: the target to pass it on to when this
 *     target has no policy (the source's egress); null otherwise
 */
public record Observation(FlowRecord flow, String fallbackTarget) {

  public static Observation of(FlowRecord flow) {
    return new Observation(flow, null);
  }
}
