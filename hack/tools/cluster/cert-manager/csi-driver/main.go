// A stand-in for cert-manager's CSI driver (csi.cert-manager.io) and the node-driver-registrar beside
// it: neither module is served by the module proxy here ("403 Forbidden: This module version is not
// available" for github.com/cert-manager/csi-driver, github.com/cert-manager/csi-lib and
// github.com/kubernetes-csi/node-driver-registrar), so this program does what they do for the
// volume attributes the chart sets, through the real kubelet CSI and plugin-registration gRPC APIs:
//   - registers csi.cert-manager.io with the kubelet (a socket in <kubelet root>/plugins_registry);
//   - NodePublishVolume of an ephemeral inline volume: a new RSA 2048 key (PKCS#1 PEM, the driver's
//     default encoding), a CSR with the common name, DNS names and key usages of the volume
//     attributes (${POD_NAMESPACE}, ${POD_NAME}, ${POD_UID}, ${SERVICE_ACCOUNT_NAME} expanded as the
//     driver does), a cert-manager CertificateRequest for the issuer they name in the pod's namespace;
//     once cert-manager signed it (approved by cert-manager's own approver), tls.key, tls.crt and
//     ca.crt in the volume, readable by the fs-group attribute's group;
//   - NodeUnpublishVolume removes the volume's files.
//
// The real driver keeps the files on a tmpfs and renews them; the test cluster's pods live shorter
// than any certificate, so files on the kubelet's disk, written once, do.
package main

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	cmapi "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	cmmeta "github.com/cert-manager/cert-manager/pkg/apis/meta/v1"
	cmclient "github.com/cert-manager/cert-manager/pkg/client/clientset/versioned"
	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	registration "k8s.io/kubelet/pkg/apis/pluginregistration/v1"
)

const (
	driverName = "csi.cert-manager.io"
	attr       = "csi.cert-manager.io/"
)

var version = "dev"

func main() {
	kubeletDir := flag.String("kubelet-dir", "/var/lib/kubelet", "the kubelet's --root-dir")
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig file; empty: the pod's service account")
	nodeID := flag.String("node-id", "", "this node's name")
	flag.Parse()
	if *nodeID == "" {
		log.Fatal("--node-id is required")
	}
	config, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		log.Fatalf("kubeconfig: %v", err)
	}
	client, err := cmclient.NewForConfig(config)
	if err != nil {
		log.Fatalf("cert-manager client: %v", err)
	}
	pluginDir := filepath.Join(*kubeletDir, "plugins", driverName)
	csiSocket := filepath.Join(pluginDir, "csi.sock")
	registrationSocket := filepath.Join(*kubeletDir, "plugins_registry", driverName+"-reg.sock")

	csiServer := grpc.NewServer()
	d := &driver{nodeID: *nodeID, client: client}
	csi.RegisterIdentityServer(csiServer, d)
	csi.RegisterNodeServer(csiServer, d)
	regServer := grpc.NewServer()
	registration.RegisterRegistrationServer(regServer, &registrar{endpoint: csiSocket})

	// The CSI socket first: the kubelet calls NodeGetInfo as soon as it sees the registration socket.
	serve(csiServer, csiSocket)
	serve(regServer, registrationSocket)
	log.Printf("%s %s: node %s, CSI on %s, registration on %s", driverName, version, *nodeID, csiSocket, registrationSocket)

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	<-stop
	regServer.Stop()
	csiServer.Stop()
	_ = os.Remove(registrationSocket)
	_ = os.Remove(csiSocket)
}

func serve(server *grpc.Server, socket string) {
	if err := os.MkdirAll(filepath.Dir(socket), 0o750); err != nil {
		log.Fatal(err)
	}
	_ = os.Remove(socket)
	listener, err := net.Listen("unix", socket)
	if err != nil {
		log.Fatalf("listen %s: %v", socket, err)
	}
	go func() {
		if err := server.Serve(listener); err != nil {
			log.Printf("serve %s: %v", socket, err)
		}
	}()
}

// registrar answers the kubelet's plugin watcher, as node-driver-registrar does.
type registrar struct {
	registration.UnimplementedRegistrationServer
	endpoint string
}

func (r *registrar) GetInfo(context.Context, *registration.InfoRequest) (*registration.PluginInfo, error) {
	return &registration.PluginInfo{Type: registration.CSIPlugin, Name: driverName, Endpoint: r.endpoint,
		SupportedVersions: []string{"1.0.0"}}, nil
}

func (r *registrar) NotifyRegistrationStatus(_ context.Context, s *registration.RegistrationStatus) (*registration.RegistrationStatusResponse, error) {
	if !s.PluginRegistered {
		log.Printf("the kubelet refused the registration: %s", s.Error)
	} else {
		log.Printf("registered with the kubelet")
	}
	return &registration.RegistrationStatusResponse{}, nil
}

type driver struct {
	csi.UnimplementedIdentityServer
	csi.UnimplementedNodeServer
	nodeID string
	client cmclient.Interface
	// One call at a time per target path: the kubelet retries a call it gave up on while the first
	// may still be running, and two writers would leave one's key beside the other's certificate.
	targets sync.Map
}

func (d *driver) lock(target string) func() {
	m, _ := d.targets.LoadOrStore(target, &sync.Mutex{})
	m.(*sync.Mutex).Lock()
	return m.(*sync.Mutex).Unlock
}

// published reports whether an earlier call already wrote the volume: NodePublishVolume must be
// idempotent (CSI spec), and a second key would replace a certificate a container may have read.
func published(dir string) bool {
	crt, crtErr := os.ReadFile(filepath.Join(dir, "tls.crt"))
	key, keyErr := os.ReadFile(filepath.Join(dir, "tls.key"))
	_, caErr := os.Stat(filepath.Join(dir, "ca.crt"))
	if crtErr != nil || keyErr != nil || caErr != nil {
		return false
	}
	_, err := tls.X509KeyPair(crt, key)
	return err == nil
}

func (d *driver) GetPluginInfo(context.Context, *csi.GetPluginInfoRequest) (*csi.GetPluginInfoResponse, error) {
	return &csi.GetPluginInfoResponse{Name: driverName, VendorVersion: version}, nil
}

func (d *driver) GetPluginCapabilities(context.Context, *csi.GetPluginCapabilitiesRequest) (*csi.GetPluginCapabilitiesResponse, error) {
	return &csi.GetPluginCapabilitiesResponse{}, nil
}

func (d *driver) Probe(context.Context, *csi.ProbeRequest) (*csi.ProbeResponse, error) {
	return &csi.ProbeResponse{}, nil
}

func (d *driver) NodeGetInfo(context.Context, *csi.NodeGetInfoRequest) (*csi.NodeGetInfoResponse, error) {
	return &csi.NodeGetInfoResponse{NodeId: d.nodeID}, nil
}

func (d *driver) NodeGetCapabilities(context.Context, *csi.NodeGetCapabilitiesRequest) (*csi.NodeGetCapabilitiesResponse, error) {
	return &csi.NodeGetCapabilitiesResponse{}, nil
}

func (d *driver) NodePublishVolume(ctx context.Context, req *csi.NodePublishVolumeRequest) (*csi.NodePublishVolumeResponse, error) {
	attrs := req.GetVolumeContext()
	namespace := attrs["csi.storage.k8s.io/pod.namespace"]
	if namespace == "" || req.GetTargetPath() == "" {
		return nil, status.Error(codes.InvalidArgument, "pod namespace (podInfoOnMount) and target path are required")
	}
	if attrs[attr+"issuer-name"] == "" {
		return nil, status.Error(codes.InvalidArgument, attr+"issuer-name is required")
	}
	defer d.lock(req.GetTargetPath())()
	if published(req.GetTargetPath()) {
		log.Printf("already published to %s", req.GetTargetPath())
		return &csi.NodePublishVolumeResponse{}, nil
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	// The driver's variables in the names, from the pod (podInfoOnMount).
	expand := strings.NewReplacer("${POD_NAMESPACE}", namespace, "${POD_NAME}", attrs["csi.storage.k8s.io/pod.name"],
		"${POD_UID}", attrs["csi.storage.k8s.io/pod.uid"],
		"${SERVICE_ACCOUNT_NAME}", attrs["csi.storage.k8s.io/serviceAccount.name"]).Replace
	commonName := expand(attrs[attr+"common-name"])
	csr, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{
		Subject:  pkix.Name{CommonName: commonName},
		DNSNames: list(expand(attrs[attr+"dns-names"])),
	}, key)
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	request := &cmapi.CertificateRequest{
		ObjectMeta: metav1.ObjectMeta{
			GenerateName: "csi-",
			Namespace:    namespace,
			Labels: map[string]string{"csi.cert-manager.io/volume-id": req.GetVolumeId()[:min(len(req.GetVolumeId()), 63)],
				"csi.cert-manager.io/pod-name": attrs["csi.storage.k8s.io/pod.name"]},
		},
		Spec: cmapi.CertificateRequestSpec{
			Request: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: csr}),
			IssuerRef: cmmeta.IssuerReference{Name: attrs[attr+"issuer-name"], Kind: or(attrs[attr+"issuer-kind"], "Issuer"),
				Group: or(attrs[attr+"issuer-group"], "cert-manager.io")},
			Usages: usages(attrs[attr+"key-usages"]),
		},
	}
	created, err := d.client.CertmanagerV1().CertificateRequests(namespace).Create(ctx, request, metav1.CreateOptions{})
	if err != nil {
		return nil, status.Error(codes.Unavailable, "create CertificateRequest: "+err.Error())
	}
	signed, err := d.awaitSigned(ctx, namespace, created.Name)
	if err != nil {
		return nil, err
	}
	if err := write(req.GetTargetPath(), attrs[attr+"fs-group"], map[string][]byte{
		"tls.key": pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}),
		"tls.crt": signed.Status.Certificate,
		"ca.crt":  signed.Status.CA,
	}); err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	log.Printf("published %s/%s (%s) to %s", namespace, created.Name, commonName, req.GetTargetPath())
	return &csi.NodePublishVolumeResponse{}, nil
}

// awaitSigned polls the request until cert-manager issued it (or refused, or the kubelet gave up).
func (d *driver) awaitSigned(ctx context.Context, namespace, name string) (*cmapi.CertificateRequest, error) {
	for {
		cr, err := d.client.CertmanagerV1().CertificateRequests(namespace).Get(ctx, name, metav1.GetOptions{})
		if err == nil {
			for _, c := range cr.Status.Conditions {
				if c.Type == cmapi.CertificateRequestConditionReady && c.Status == cmmeta.ConditionTrue && len(cr.Status.Certificate) > 0 {
					return cr, nil
				}
				if (c.Type == cmapi.CertificateRequestConditionDenied || c.Type == cmapi.CertificateRequestConditionInvalidRequest) && c.Status == cmmeta.ConditionTrue {
					return nil, status.Errorf(codes.FailedPrecondition, "CertificateRequest %s/%s: %s", namespace, name, c.Message)
				}
			}
		}
		select {
		case <-ctx.Done():
			return nil, status.Errorf(codes.DeadlineExceeded, "CertificateRequest %s/%s not signed in time", namespace, name)
		case <-time.After(500 * time.Millisecond):
		}
	}
}

func (d *driver) NodeUnpublishVolume(_ context.Context, req *csi.NodeUnpublishVolumeRequest) (*csi.NodeUnpublishVolumeResponse, error) {
	defer d.lock(req.GetTargetPath())()
	if err := os.RemoveAll(req.GetTargetPath()); err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return &csi.NodeUnpublishVolumeResponse{}, nil
}

// write puts the files into the volume: the key readable by the owner and the fs group only.
func write(dir, fsGroup string, files map[string][]byte) error {
	gid := -1
	if fsGroup != "" {
		g, err := strconv.Atoi(fsGroup)
		if err != nil {
			return fmt.Errorf("fs-group %q: %w", fsGroup, err)
		}
		gid = g
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, data := range files {
		mode := os.FileMode(0o644)
		if name == "tls.key" {
			mode = 0o640
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path+".tmp", data, mode); err != nil {
			return err
		}
		if err := os.Chown(path+".tmp", 0, gid); err != nil {
			return err
		}
		if err := os.Chmod(path+".tmp", mode); err != nil {
			return err
		}
		if err := os.Rename(path+".tmp", path); err != nil {
			return err
		}
	}
	return nil
}

func usages(value string) []cmapi.KeyUsage {
	var out []cmapi.KeyUsage
	for _, u := range list(value) {
		out = append(out, cmapi.KeyUsage(u))
	}
	return out
}

func list(value string) []string {
	var out []string
	for _, s := range strings.Split(value, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func or(value, fallback string) string {
	if value == "" {
		return fallback
	}
	return value
}
