package io.kubewarden.networkenforcer.ingest.ztunnel;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.InvalidProtocolBufferException;
import io.kubewarden.networkenforcer.ingest.parsing.DropReason;
import io.kubewarden.networkenforcer.ingest.parsing.ParseOutcome;
import io.kubewarden.networkenforcer.ingest.proto.otlp.collector.ExportLogsPartialSuccess;
import io.kubewarden.networkenforcer.ingest.proto.otlp.collector.ExportLogsServiceRequest;
import io.kubewarden.networkenforcer.ingest.proto.otlp.collector.ExportLogsServiceResponse;
import io.kubewarden.networkenforcer.ingest.proto.otlp.logs.LogRecord;
import io.kubewarden.networkenforcer.ingest.proto.otlp.logs.ResourceLogs;
import io.kubewarden.networkenforcer.ingest.proto.otlp.logs.ScopeLogs;
import io.kubewarden.networkenforcer.ingest.publishing.FlowIntake;

/**
 * Handles one OTLP logs export (from gRPC or HTTP): every log record that is a ztunnel line is
 * parsed and handed to the intake; other records are counted as not-a-flow. A request that does not
 * decode is dead-lettered and refused. The answer waits for Kafka's acknowledgement of the flows;
 * without it the export fails with {@link NotPublishedException}, which the sender retries.
 */
public final class OtlpLogIngestor {
  public static final String SOURCE = "ztunnel";

  private final ZtunnelLogParser parser;
  private final FlowIntake intake;

  public OtlpLogIngestor(ZtunnelLogParser parser, FlowIntake intake) {
    this.parser = parser;
    this.intake = intake;
  }

  /**
   * Decodes and ingests; throws when the bytes are not an export request (already dead-lettered).
   */
  public ExportLogsServiceResponse export(byte[] body) throws InvalidProtocolBufferException {
    ExportLogsServiceRequest request;
    try {
      request = ExportLogsServiceRequest.parseFrom(body);
    } catch (InvalidProtocolBufferException e) {
      rejected(body, "not an OTLP ExportLogsServiceRequest: " + e.getMessage(), e);
      throw e;
    }
    return export(request);
  }

  /** A request body we could not decode: counted and dead-lettered as it came. */
  public void rejected(byte[] body, String reason, Throwable error) {
    intake.invalid(SOURCE, reason, body, error);
  }

  public ExportLogsServiceResponse export(ExportLogsServiceRequest request) {
    long rejected = 0;
    for (ResourceLogs resource : request.getResourceLogsList()) {
      for (ScopeLogs scope : resource.getScopeLogsList()) {
        for (LogRecord record : scope.getLogRecordsList()) {
          if (!ingest(record)) {
            rejected++;
          }
        }
      }
    }
    // Answered only once Kafka has the flows: a sender told "done" drops its copy (fluent-bit's
    // own disk buffer included), so an answer before the acknowledgement could lose them.
    if (!intake.settle()) {
      throw new NotPublishedException(
          "the flows of this export could not all be written to Kafka; send it again");
    }
    if (rejected == 0) {
      return ExportLogsServiceResponse.getDefaultInstance();
    }
    return ExportLogsServiceResponse.newBuilder()
        .setPartialSuccess(
            ExportLogsPartialSuccess.newBuilder()
                .setRejectedLogRecords(rejected)
                .setErrorMessage(
                    rejected
                        + " log records could not be read; "
                        + "they are in the dead-letter topic"))
        .build();
  }

  private boolean ingest(LogRecord record) {
    try {
      ObjectNode line = OtlpLogRecords.toLine(record);
      ParseOutcome outcome =
          line == null
              ? ParseOutcome.dropped(DropReason.NOT_A_FLOW)
              : parser.parse(line, OtlpLogRecords.time(record));
      intake.accept(
          SOURCE, outcome, () -> line == null ? record.getBody().toString() : line.toString());
      return true;
    } catch (RuntimeException e) {
      intake.invalid(SOURCE, "cannot read log record: " + e.getMessage(), record.toByteArray(), e);
      return false;
    }
  }
}
