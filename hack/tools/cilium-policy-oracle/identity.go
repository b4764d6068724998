// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/cilium/cilium/pkg/endpoint/regeneration"
	"github.com/cilium/cilium/pkg/identity"
	k8sUtils "github.com/cilium/cilium/pkg/k8s/utils"
	"github.com/cilium/cilium/pkg/labels"
	"github.com/cilium/cilium/pkg/labelsfilter"
	"github.com/cilium/cilium/pkg/policy"
	ciliumtypes "github.com/cilium/cilium/pkg/types"
	"github.com/cilium/cilium/pkg/u8proto"
)

// k8s sets this label on every namespace (NamespaceDefaultLabelName, GA in 1.22).
const nsNameLabel = "kubernetes.io/metadata.name"

type namespaceObj struct {
	name   string
	labels map[string]string
}

func (n namespaceObj) GetName() string              { return n.name }
func (n namespaceObj) GetLabels() map[string]string { return n.labels }

// podIdentityLabels computes a pod's security-identity labels exactly as the
// agent does in pkg/endpoint/metadata.FetchK8sMetadataForEndpointFromPod:
//
//	lbls := k8sUtils.SanitizePodLabels(pod.Labels, namespace, serviceAccount, clusterName) // via k8s.GetPodMetadata
//	identityLabels, _ := labelsfilter.Filter(labels.Map2Labels(lbls, labels.LabelSourceK8s))
//
// i.e. k8s:<pod labels>, k8s:io.kubernetes.pod.namespace=<ns>,
// k8s:io.cilium.k8s.namespace.labels.<k>=<v> for every namespace label,
// k8s:io.cilium.k8s.policy.serviceaccount=<sa>, k8s:io.cilium.k8s.policy.cluster=default,
// minus what the default label filter drops (pod-template-hash, ...).
func podIdentityLabels(p *endpointSpec) (labels.Labels, error) {
	if p.Namespace == "" {
		return nil, errorf("pod namespace is required")
	}
	if errs := validation.IsDNS1123Label(p.Namespace); len(errs) > 0 {
		return nil, errorf("invalid namespace %q: %s", p.Namespace, strings.Join(errs, "; "))
	}
	if err := validateLabels("labels", p.Labels); err != nil {
		return nil, err
	}
	nsLabels := map[string]string{}
	for k, v := range p.NamespaceLabels {
		nsLabels[k] = v
	}
	if err := validateLabels("namespaceLabels", nsLabels); err != nil {
		return nil, err
	}
	if v, ok := nsLabels[nsNameLabel]; ok && v != p.Namespace {
		return nil, errorf("namespaceLabels: %s=%q but the namespace is %q (Kubernetes always sets it to the name)", nsNameLabel, v, p.Namespace)
	}
	nsLabels[nsNameLabel] = p.Namespace

	sa := "default" // every pod runs with a service account; "default" unless set
	if p.ServiceAccount != nil {
		sa = *p.ServiceAccount
		if sa != "" {
			if errs := validation.IsDNS1123Subdomain(sa); len(errs) > 0 {
				return nil, errorf("invalid serviceAccount %q: %s", sa, strings.Join(errs, "; "))
			}
		}
	}

	podLabels := make(map[string]string, len(p.Labels))
	for k, v := range p.Labels {
		podLabels[k] = v
	}
	sanitized := k8sUtils.SanitizePodLabels(podLabels, namespaceObj{name: p.Namespace, labels: nsLabels}, sa, clusterName)
	idLabels, _ := labelsfilter.Filter(labels.Map2Labels(sanitized, labels.LabelSourceK8s))
	return idLabels, nil
}

func validateLabels(what string, m map[string]string) error {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if errs := validation.IsQualifiedName(k); len(errs) > 0 {
			return errorf("%s: invalid label key %q: %s", what, k, strings.Join(errs, "; "))
		}
		if errs := validation.IsValidLabelValue(m[k]); len(errs) > 0 {
			return errorf("%s: invalid value %q for label %q: %s", what, m[k], k, strings.Join(errs, "; "))
		}
	}
	return nil
}

// allocator hands out numeric identities the way the agent's allocators lay
// them out, because the numbers matter to the policy engine: the datapath
// (and policy.mapState.lookup) aggregates a global-scope identity of the
// local cluster into reserved:aggregate-cluster and a local-scope (CIDR)
// identity into reserved:aggregate-world (pkg/policy/aggregate.go).
//   - reserved label sets -> their fixed reserved identity (identity.LookupReservedIdentityByLabels)
//   - pod labels          -> global scope, cluster-id 0: 256, 257, ...
//   - CIDR labels         -> local scope: 1<<24 | 1, 1<<24 | 2, ...
//
// The exact numbers within a scope are arbitrary in Cilium as well.
type allocator struct {
	byKey      map[string]*identity.Identity
	nextGlobal identity.NumericIdentity
	nextLocal  identity.NumericIdentity
}

func newAllocator() *allocator {
	return &allocator{
		byKey:      map[string]*identity.Identity{},
		nextGlobal: identity.GetMinimalAllocationIdentity(0),
		nextLocal:  identity.MinLocalIdentity,
	}
}

func (a *allocator) allocate(lbls labels.Labels) (*identity.Identity, error) {
	if id := identity.LookupReservedIdentityByLabels(lbls); id != nil {
		return id, nil
	}
	key := string(lbls.SortedList())
	if id, ok := a.byKey[key]; ok {
		return id, nil
	}
	var nid identity.NumericIdentity
	switch scope := identity.ScopeForLabels(lbls); scope {
	case identity.IdentityScopeGlobal:
		nid = a.nextGlobal
		a.nextGlobal++
	case identity.IdentityScopeLocal:
		nid = a.nextLocal
		a.nextLocal++
	default:
		return nil, fmt.Errorf("labels %s need identity scope %#x, which the oracle does not emulate", lbls, uint32(scope))
	}
	id := identity.NewIdentity(nid, lbls)
	a.byKey[key] = id
	return id, nil
}

// policyOwner stands in for the subject endpoint (pkg/endpoint.Endpoint) when
// distilling the selector policy into the endpoint's policy map state, like
// the endpointInfo of policy.LookupFlow.
type policyOwner struct {
	id                uint64
	ingressNamedPorts ciliumtypes.NamedPortMap
}

var _ policy.PolicyOwner = (*policyOwner)(nil)

func (o *policyOwner) GetID() uint64 { return o.id }

func (o *policyOwner) GetIngressNamedPort(name string, proto u8proto.U8proto) uint16 {
	// same lookup as pkg/endpoint.(*Endpoint).GetIngressNamedPort
	port, err := o.ingressNamedPorts.GetNamedPort(name, proto)
	if err != nil {
		return 0
	}
	return port
}

func (o *policyOwner) PolicyDebug(msg string, attrs ...any) {}

func (o *policyOwner) IsHost() bool { return false }

func (o *policyOwner) PreviousMapStateSizes() policy.MapStateSizes { return policy.MapStateSizes{} }

func (o *policyOwner) RegenerateIfAlive(*regeneration.ExternalRegenerationMetadata) <-chan bool {
	ch := make(chan bool)
	close(ch)
	return ch
}
