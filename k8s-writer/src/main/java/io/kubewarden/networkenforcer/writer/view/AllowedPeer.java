package io.kubewarden.networkenforcer.writer.view;

import io.kubewarden.networkenforcer.common.report.ReportModel.PortCount;
import io.kubewarden.networkenforcer.common.report.ReportModel.Workload;
import java.util.List;

/** A peer a policy's rule allows, as a graph node, with the ports allowed to or from it. */
record AllowedPeer(Workload node, List<PortCount> ports) {}
