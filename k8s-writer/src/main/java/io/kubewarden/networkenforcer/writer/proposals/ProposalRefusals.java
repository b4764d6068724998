package io.kubewarden.networkenforcer.writer.proposals;

import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kubewarden.networkenforcer.writer.apply.ApiRefusals;
import io.kubewarden.networkenforcer.writer.conditions.ProposalConditions;
import io.kubewarden.networkenforcer.writer.reconcile.PermanentError;
import java.util.function.Supplier;

/**
 * A proposal write the API server refused, as the proposal's {@code Ready} reason: the codes are
 * read by {@link ApiRefusals}, this names what a reviewer sees. A refusal the API server will
 * repeat (an admission policy's 403, 400, 422, too large) is a {@link PermanentError}; the
 * authorizer's 403 and everything else is thrown as it is, so the key is retried with back-off.
 */
final class ProposalRefusals {
  static final String TOO_LARGE_ADVICE =
      "the proposal is too large for the API server to store: a target with "
          + "thousands of peers (the cluster DNS, a monitoring system) learns a rule per peer, and Kubernetes keeps an "
          + "object in at most 1.5 MiB (etcd's limit), about 3,000 peers with their evidence. Write a "
          + "WorkloadNetworkPolicy for this workload by hand (for example one rule for all namespaces); once it "
          + "exists, learning of the target stops and this proposal is deleted";

  private ProposalRefusals() {}

  /** Runs a write; a refusal the API server will repeat becomes a {@link PermanentError}. */
  static <T> T refused(Supplier<T> write) {
    try {
      return write.get();
    } catch (KubernetesClientException e) {
      if (e.getCode() == 403 && !ApiRefusals.authorizationDenial(e)) {
        throw new PermanentError(
            ProposalConditions.REASON_FORBIDDEN,
            "the API server forbids the write: " + ApiRefusals.said(e),
            e);
      }
      if (ApiRefusals.tooLarge(e)) {
        throw tooLarge(e);
      }
      if (e.getCode() == 400 || e.getCode() == 422) {
        throw new PermanentError(
            ProposalConditions.REASON_INVALID,
            "the API server rejects the proposal as invalid: " + ApiRefusals.said(e),
            e);
      }
      throw e;
    }
  }

  /**
   * A status write: only too large is final here (the spec fitted, the spec and its evidence do
   * not).
   */
  static void statusRefused(KubernetesClientException e) {
    if (ApiRefusals.tooLarge(e)) {
      throw tooLarge(e);
    }
    throw e;
  }

  private static PermanentError tooLarge(KubernetesClientException e) {
    return new PermanentError(
        ProposalConditions.REASON_TOO_LARGE,
        TOO_LARGE_ADVICE + " (" + ApiRefusals.said(e) + ")",
        e);
  }
}
