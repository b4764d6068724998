package io.kubewarden.networkenforcer.testing;

import java.nio.file.Path;

/** The kubelet's and kube-proxy's configuration files for the test node. */
final class NodeConfig {

  private NodeConfig() {}

  /**
   * cgroup v1 with the cgroupfs driver (these hosts have no systemd), no swap check, eviction only
   * when a disk or memory is really full (a build machine's disk is often fuller than the defaults
   * allow) and image garbage collection off: the images are imported once and never pulled again.
   * The API server reaches the kubelet with a client certificate of the cluster CA; the kubelet
   * asks the API server whether that user may (webhook), as in a kubeadm cluster.
   */
  static String kubelet(
      String runtimeEndpoint,
      String address,
      int port,
      int healthzPort,
      Path clientCa,
      String dnsServiceIp,
      String podSubnet,
      Path podLogsDir) {
    return """
        apiVersion: kubelet.config.k8s.io/v1beta1
        kind: KubeletConfiguration
        containerRuntimeEndpoint: %s
        failCgroupV1: false
        cgroupDriver: cgroupfs
        failSwapOn: false
        address: %s
        port: %d
        readOnlyPort: 0
        healthzBindAddress: 127.0.0.1
        healthzPort: %d
        authentication:
          anonymous: {enabled: false}
          webhook: {enabled: true}
          x509: {clientCAFile: %s}
        authorization:
          mode: Webhook
        clusterDomain: cluster.local
        clusterDNS: [%s]
        podCIDR: %s
        podLogsDir: %s
        resolvConf: /etc/resolv.conf
        evictionHard:
          memory.available: 50Mi
          nodefs.available: 1%%
          nodefs.inodesFree: 1%%
          imagefs.available: 1%%
          imagefs.inodesFree: 1%%
        imageGCHighThresholdPercent: 100
        imageGCLowThresholdPercent: 99
        serializeImagePulls: false
        syncFrequency: 10s
        nodeStatusUpdateFrequency: 5s
        """
        .formatted(
            runtimeEndpoint,
            address,
            port,
            healthzPort,
            clientCa,
            dnsServiceIp,
            podSubnet,
            podLogsDir);
  }

  /**
   * iptables mode; conntrack sysctls left alone (0 = keep the host's values) and NodePorts only on
   * the node's address, so kube-proxy changes fewer host settings (no route_localnet).
   */
  static String kubeProxy(
      Path kubeconfig, String nodeName, String clusterCidr, int healthzPort, int metricsPort) {
    return """
        apiVersion: kubeproxy.config.k8s.io/v1alpha1
        kind: KubeProxyConfiguration
        clientConnection:
          kubeconfig: %s
        mode: iptables
        hostnameOverride: %s
        clusterCIDR: %s
        healthzBindAddress: 127.0.0.1:%d
        metricsBindAddress: 127.0.0.1:%d
        nodePortAddresses: [primary]
        conntrack:
          maxPerCore: 0
          min: 0
          tcpEstablishedTimeout: 0s
          tcpCloseWaitTimeout: 0s
        """
        .formatted(kubeconfig, nodeName, clusterCidr, healthzPort, metricsPort);
  }
}
