/**
 * Policy evaluation: does a proposal or policy allow one observed flow? Used per flow by the stream
 * processor (monitor mode) and by the writer (clearing records a changed spec now allows), so
 * everything here is allocation-light and never throws on odd policy content.
 *
 * <p>Entry points: {@link io.kubewarden.networkenforcer.common.evaluation.PolicyEvaluation} (a
 * whole spec, any backend), {@link
 * io.kubewarden.networkenforcer.common.evaluation.NetworkPolicyEvaluator}, {@link
 * io.kubewarden.networkenforcer.common.evaluation.IstioPolicyEvaluator} and the reusable {@link
 * io.kubewarden.networkenforcer.common.evaluation.LabelSelectorMatcher}.
 *
 * <p>Choices where Kubernetes or Istio leave room, or the record lacks data:
 *
 * <ul>
 *   <li>ipBlock is a plain CIDR match on the peer's IP, pods included (Kubernetes intends it for
 *       external addresses; Calico matches pod IPs, Cilium by default does not). IPv4-mapped IPv6
 *       addresses count as IPv4. Unknown IP, unparsable IP or invalid CIDR/except: no match.
 *   <li>Named ports resolve by name and protocol on the destination endpoint. A destination outside
 *       the cluster has none (no match). Otherwise the endpoint says whether its list is complete
 *       ({@code namedPortsKnown}, or a non-empty list): complete means a name it lacks matches
 *       nothing; unknown means UNDETERMINED.
 *   <li>Port 0 is unknown: a rule whose ports would decide is UNKNOWN, and the policy is
 *       UNDETERMINED unless another rule allows the flow outright (three-valued logic).
 *   <li>Specs Kubernetes would reject are evaluated conservatively: an empty peer, an unknown
 *       operator or protocol name (protocols are case-sensitive) select nothing; endPort below port
 *       is an empty range; a digit-only string port reads as a number.
 *   <li>Istio sees TCP only: other protocols are NOT_SELECTED. Port entries may be ranges {@code
 *       a-b} (ours); an unreadable entry matches nothing.
 * </ul>
 */
package io.kubewarden.networkenforcer.common.evaluation;
