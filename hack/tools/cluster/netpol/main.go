// The NetworkPolicy enforcer of the test cluster: the controller of the released module
// sigs.k8s.io/kube-network-policies, run on the host beside the kubelet. The controller reads
// pods, namespaces and NetworkPolicies, takes the first packet of every connection from an nfqueue
// and accepts or drops it as the policies say (egress of the source pod, ingress of the
// destination pod).
//
// What differs from the release's own main, and why:
//   - a kubeconfig and the node name as flags: the release's main reads only an in-cluster service
//     account;
//   - NRI as in the release's main (on): containerd 1.6 has no NRI socket, so the plugin's
//     connection fails (logged) and pod addresses come from the API server. Not NRIdisabled: then
//     v0.8.0 dereferences its absent plugin for an address no pod has (a nil-pointer panic);
//   - which packets reach the queue: the release does it with nftables rules using the nftables
//     queue expression, which the test host's kernel lacks (`nft add rule ... queue num 100`:
//     "No such file or directory"), so every sync of its table fails and is retried (logged, no
//     effect). This main queues instead with iptables' NFQUEUE target (xt, present), the same
//     selection as the release's postrouting chain: not the node's root (the kubelet's probes),
//     not established or related connections, every other packet from or to the pod subnet (the
//     release narrows that to the pods some policy selects; the controller allows the others
//     anyway). The chain NE-NETWORK-POLICIES hangs off mangle POSTROUTING, before any SNAT, and is
//     added only once the queue is bound and removed before the controller stops, so no packet is
//     queued to nobody.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	"sigs.k8s.io/kube-network-policies/pkg/networkpolicy"
)

const chain = "NE-NETWORK-POLICIES"

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig of a user that may read pods, namespaces and NetworkPolicies and write Events")
	nodeName := flag.String("node-name", "", "the node whose pods this process enforces for")
	podCIDR := flag.String("pod-cidr", "", "the node's pod subnet: connections from or to it are checked")
	queueID := flag.Int("nfqueue-id", 100, "the nfqueue the packets go to")
	klog.InitFlags(nil)
	flag.Parse()
	if *kubeconfig == "" || *nodeName == "" || *podCIDR == "" {
		fmt.Fprintln(os.Stderr, "--kubeconfig, --node-name and --pod-cidr are required")
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
	signals, stopSignals := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stopSignals()
	ctx, stop := context.WithCancel(context.Background())
	defer stop()

	factory := informers.NewSharedInformerFactory(client, 0)
	controller, err := networkpolicy.NewController(
		client,
		factory.Networking().V1().NetworkPolicies(),
		factory.Core().V1().Namespaces(),
		factory.Core().V1().Pods(),
		nil, nil, nil, nil,
		networkpolicy.Config{QueueID: *queueID, NodeName: *nodeName})
	if err != nil {
		klog.Fatalf("controller: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- controller.Run(ctx) }()
	factory.Start(ctx.Done())

	removeRules()
	for !queueBound(*queueID) {
		select {
		case err := <-done:
			klog.Fatalf("controller stopped before binding nfqueue %d: %v", *queueID, err)
		case <-signals.Done():
			stop()
			<-done
			return
		case <-time.After(200 * time.Millisecond):
		}
	}
	if err := addRules(*podCIDR, *queueID); err != nil {
		removeRules()
		stop()
		klog.Fatalf("queueing rules: %v", err)
	}
	klog.Infof("enforcing NetworkPolicies for pods in %s (nfqueue %d, chain mangle %s)", *podCIDR, *queueID, chain)

	select {
	case <-signals.Done():
	case err = <-done:
		removeRules()
		klog.Fatalf("controller stopped: %v", err)
	}
	removeRules()
	stop()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		klog.Errorf("the controller did not stop within 10s")
		os.Exit(1)
	}
}

// queueBound tells whether a process listens on the queue (the kernel's list of bound queues).
func queueBound(id int) bool {
	data, err := os.ReadFile("/proc/net/netfilter/nfnetlink_queue")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(data), "\n") {
		fields := strings.Fields(line)
		if len(fields) > 0 && fields[0] == fmt.Sprint(id) {
			return true
		}
	}
	return false
}

func addRules(podCIDR string, queueID int) error {
	queue := []string{"-j", "NFQUEUE", "--queue-num", fmt.Sprint(queueID)}
	rules := [][]string{
		{"-N", chain},
		{"-A", chain, "-m", "owner", "--uid-owner", "0", "-j", "RETURN"},
		{"-A", chain, "-m", "conntrack", "--ctstate", "ESTABLISHED,RELATED", "-j", "RETURN"},
		append([]string{"-A", chain, "-s", podCIDR}, queue...),
		append([]string{"-A", chain, "-d", podCIDR}, queue...),
		{"-I", "POSTROUTING", "-j", chain},
	}
	for _, rule := range rules {
		if err := iptables(rule...); err != nil {
			return err
		}
	}
	return nil
}

func removeRules() {
	for iptables("-D", "POSTROUTING", "-j", chain) == nil {
	}
	_ = iptables("-F", chain)
	_ = iptables("-X", chain)
}

func iptables(args ...string) error {
	out, err := exec.Command("iptables", append([]string{"-w", "-t", "mangle"}, args...)...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("iptables -t mangle %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}
