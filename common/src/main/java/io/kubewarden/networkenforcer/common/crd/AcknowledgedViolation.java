package io.kubewarden.networkenforcer.common.crd;

import java.util.Objects;

/** An entry of {@code status.acknowledgedViolations}: the record, the reason and when. */
public class AcknowledgedViolation {
  private ViolationRecord violation;
  private String reason;

  /** RFC 3339. */
  private String acknowledgedAt;

  public AcknowledgedViolation() {}

  public AcknowledgedViolation(ViolationRecord violation, String reason, String acknowledgedAt) {
    this.violation = violation;
    this.reason = reason;
    this.acknowledgedAt = acknowledgedAt;
  }

  public ViolationRecord getViolation() {
    return violation;
  }

  public void setViolation(ViolationRecord violation) {
    this.violation = violation;
  }

  public String getReason() {
    return reason;
  }

  public void setReason(String reason) {
    this.reason = reason;
  }

  public String getAcknowledgedAt() {
    return acknowledgedAt;
  }

  public void setAcknowledgedAt(String acknowledgedAt) {
    this.acknowledgedAt = acknowledgedAt;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof AcknowledgedViolation a
        && Objects.equals(violation, a.violation)
        && Objects.equals(reason, a.reason)
        && Objects.equals(acknowledgedAt, a.acknowledgedAt);
  }

  @Override
  public int hashCode() {
    return Objects.hash(violation, reason, acknowledgedAt);
  }
}
