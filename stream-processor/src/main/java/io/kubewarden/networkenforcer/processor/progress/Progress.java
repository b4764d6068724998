package io.kubewarden.networkenforcer.processor.progress;

/**
 * How far the processor has come with what was published to it.
 *
 * @param flowsConsumed flow records the processor's consumer group has committed
 * @param flowsPublished flow records in the flows topic (its end offsets)
 * @param caughtUp every published record has been processed through to the proposals topic: see
 *     {@link CatchUp} for what that means exactly
 */
public record Progress(long flowsConsumed, long flowsPublished, boolean caughtUp) {}
