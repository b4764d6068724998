package io.kubewarden.networkenforcer.writer.view;

import io.kubewarden.networkenforcer.common.policy.Labels;
import io.kubewarden.networkenforcer.common.policy.Mode;
import io.kubewarden.networkenforcer.common.report.ReportModel.Command;
import java.util.List;

/**
 * The {@code kubectl} lines the live view shows next to what they act on. The page never runs them:
 * a person with the RBAC to change policies does. Names are Kubernetes names, which need no shell
 * quoting.
 */
final class KubectlCommands {
  /** What a person writes as the acknowledgement's reason. */
  static final String REASON_PLACEHOLDER = "<reason>";

  private KubectlCommands() {}

  /** Promotion of a proposal to a policy, in either mode. */
  static List<Command> forProposal(String namespace, String name) {
    return List.of(promote(namespace, name, Mode.monitor), promote(namespace, name, Mode.protect));
  }

  /** Switching a policy to the other mode. */
  static List<Command> forPolicy(String namespace, String name, Mode mode) {
    Mode other = mode == Mode.protect ? Mode.monitor : Mode.protect;
    return List.of(
        new Command(
            "switch to " + other,
            "kubectl patch wnp "
                + name
                + " -n "
                + namespace
                + " --type merge -p '{\"spec\":{\"mode\":\""
                + other
                + "\"}}'"));
  }

  /** Acknowledging one active violation record of a policy. */
  static Command acknowledge(String namespace, String name, long id) {
    return new Command(
        "acknowledge #" + id,
        "kubectl annotate wnp "
            + name
            + " -n "
            + namespace
            + " "
            + Labels.ACKNOWLEDGE_PREFIX
            + id
            + "=\""
            + REASON_PLACEHOLDER
            + "\"");
  }

  private static Command promote(String namespace, String name, Mode mode) {
    return new Command(
        "promote to " + mode,
        "kubectl label wnpp " + name + " -n " + namespace + " " + Labels.PROMOTE + "=" + mode);
  }
}
