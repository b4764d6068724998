// cert-manager's controller for the test cluster, built from the released module
// github.com/cert-manager/cert-manager. The release's own main (cmd/controller) is a module of its own
// that the module proxy does not serve, so this main wires the release's controllers the same way:
// one ContextFactory, the controllers the chart's CA chain needs (Issuers, the Certificate state
// machine, the default approver and the CA and SelfSigned CertificateRequest signers), the shared
// informers started after every controller registered its own, one worker pool per controller.
// No leader election: the test cluster runs one replica.
package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	controllerpkg "github.com/cert-manager/cert-manager/pkg/controller"
	logf "github.com/cert-manager/cert-manager/pkg/logs"

	// Each import registers its controller (controllerpkg.Register) or issuer type in init().
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificaterequests/approver"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificaterequests/ca"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificaterequests/selfsigned"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/issuing"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/keymanager"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/readiness"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/requestmanager"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/revisionmanager"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/trigger"
	_ "github.com/cert-manager/cert-manager/pkg/controller/clusterissuers"
	_ "github.com/cert-manager/cert-manager/pkg/controller/issuers"
	_ "github.com/cert-manager/cert-manager/pkg/issuer/ca"
	_ "github.com/cert-manager/cert-manager/pkg/issuer/selfsigned"
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig file; empty: the pod's service account")
	clusterResourceNamespace := flag.String("cluster-resource-namespace", "cert-manager", "namespace of ClusterIssuer secrets")
	healthAddress := flag.String("health-address", ":9403", "address of the /livez and /readyz endpoints")
	workers := flag.Int("workers", 5, "workers per controller")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	ctx = logf.NewContext(ctx, logf.Log.WithName("controller"))
	if err := run(ctx, *kubeconfig, *clusterResourceNamespace, *healthAddress, *workers); err != nil {
		fmt.Fprintln(os.Stderr, "cert-manager controller:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, kubeconfig, clusterResourceNamespace, healthAddress string, workers int) error {
	opts := controllerpkg.ContextOptions{
		Kubeconfig:         kubeconfig,
		KubernetesAPIQPS:   20,
		KubernetesAPIBurst: 50,
		IssuerOptions:      controllerpkg.IssuerOptions{ClusterResourceNamespace: clusterResourceNamespace},
		// The release's defaults (its controller configuration's defaulting).
		CertificateOptions: controllerpkg.CertificateOptions{
			CertificateRequestMinimumBackoffDuration: time.Hour,
			CertificateRequestMaximumBackoffDuration: 32 * time.Hour,
		},
		SchedulerOptions: controllerpkg.SchedulerOptions{MaxConcurrentChallenges: 60},
	}
	factory, err := controllerpkg.NewContextFactory(ctx, opts)
	if err != nil {
		return err
	}
	var controllers []controllerpkg.Interface
	var names []string
	for name, construct := range controllerpkg.Known() {
		c, err := construct(factory)
		if err != nil {
			return fmt.Errorf("controller %s: %w", name, err)
		}
		controllers = append(controllers, c)
		names = append(names, name)
	}
	// Informers are shared by every Context of the factory: start them once all controllers asked for theirs.
	shared, err := factory.Build("informers")
	if err != nil {
		return err
	}
	shared.KubeSharedInformerFactory.Start(ctx.Done())
	shared.SharedInformerFactory.Start(ctx.Done())
	shared.HTTP01ResourceMetadataInformersFactory.Start(ctx.Done())

	health := &http.Server{Addr: healthAddress, Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusOK)
	})}
	go func() { _ = health.ListenAndServe() }()
	defer health.Close()

	fmt.Printf("cert-manager controller: running %v\n", names)
	var wg sync.WaitGroup
	errs := make(chan error, len(controllers))
	for i, c := range controllers {
		wg.Add(1)
		go func(name string, c controllerpkg.Interface) {
			defer wg.Done()
			if err := c.Run(workers, ctx); err != nil {
				errs <- fmt.Errorf("controller %s: %w", name, err)
			}
		}(names[i], c)
	}
	wg.Wait()
	close(errs)
	return <-errs
}
