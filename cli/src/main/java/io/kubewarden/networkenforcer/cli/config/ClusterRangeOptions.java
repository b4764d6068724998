package io.kubewarden.networkenforcer.cli.config;

import picocli.CommandLine.Option;

/** Whether the cluster's ranges are read from the API server (processor, standalone, learn). */
public class ClusterRangeOptions {
  @Option(
      names = "--discover-cluster-cidrs",
      description =
          "Read the cluster's service and pod ranges from the API server (ServiceCIDR, Node "
              + "spec.podCIDRs, CiliumNode spec.ipam.podCIDRs, Calico IPPool spec.cidr; list only) "
              + "and add them to --cluster-cidr: never learned as outside peers, and excepted from "
              + "the widened outside rule. Read once at start.")
  boolean discover;

  public boolean discover() {
    return discover;
  }
}
