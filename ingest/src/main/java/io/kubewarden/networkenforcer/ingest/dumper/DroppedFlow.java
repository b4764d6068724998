package io.kubewarden.networkenforcer.ingest.dumper;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;

/**
 * A provider record the ingest dropped, as {@code GET /flow?dropped=true} shows it: when, from
 * which source, why ({@link io.kubewarden.networkenforcer.ingest.parsing.DropReason#tag()}, the tag
 * of the {@code network_enforcer_ingest_flows_dropped} metric) and the record itself.
 *
 * @param input the provider record: a JSON object when it is JSON, else its text
 */
public record DroppedFlow(Instant droppedAt, String source, String reason, JsonNode input) {}
