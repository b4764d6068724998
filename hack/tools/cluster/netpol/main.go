// The NetworkPolicy enforcer of the test cluster: the controller of the released module
// sigs.k8s.io/kube-network-policies (nftables rules that queue the packets of every pod a policy
// selects to this process over nfqueue, which accepts or drops each new connection as the policies
// say), run on the host beside the kubelet. The release's own main reads only the in-cluster
// service account; this one takes a kubeconfig and the node name, as the other node processes do.
// NRI is off (containerd 1.6 has none): pod addresses come from the API server. The DNS workaround
// for kernels before 6.12 is off by default (the test host runs a newer kernel).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	"sigs.k8s.io/kube-network-policies/pkg/networkpolicy"
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig of a user that may read pods, namespaces and NetworkPolicies and write Events")
	nodeName := flag.String("node-name", "", "the node whose pods this process enforces for")
	queueID := flag.Int("nfqueue-id", 100, "the nfqueue the rules send packets to")
	dnsWorkaround := flag.Bool("netfilter-bug-1766-fix", false, "queue DNS packets on PREROUTING (kernels before 6.12)")
	klog.InitFlags(nil)
	flag.Parse()
	if *kubeconfig == "" || *nodeName == "" {
		fmt.Fprintln(os.Stderr, "--kubeconfig and --node-name are required")
		os.Exit(2)
	}
	config, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		klog.Fatalf("kubeconfig %s: %v", *kubeconfig, err)
	}
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		klog.Fatalf("client: %v", err)
	}
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer cancel()

	factory := informers.NewSharedInformerFactory(client, 0)
	controller, err := networkpolicy.NewController(
		client,
		factory.Networking().V1().NetworkPolicies(),
		factory.Core().V1().Namespaces(),
		factory.Core().V1().Pods(),
		nil, nil, nil, nil,
		networkpolicy.Config{
			QueueID:             *queueID,
			NodeName:            *nodeName,
			NetfilterBug1766Fix: *dnsWorkaround,
			NRIdisabled:         true,
		})
	if err != nil {
		klog.Fatalf("controller: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- controller.Run(ctx) }()
	factory.Start(ctx.Done())
	select {
	case err = <-done: // Run removes its nftables table before it returns
	case <-ctx.Done():
		select {
		case err = <-done:
		case <-time.After(10 * time.Second):
			err = fmt.Errorf("the controller did not stop within 10s")
		}
	}
	if err != nil && ctx.Err() == nil {
		klog.Errorf("controller stopped: %v", err)
		os.Exit(1)
	}
}
