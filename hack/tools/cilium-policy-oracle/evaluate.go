// SPDX-License-Identifier: Apache-2.0

package main

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"net/netip"
	"sort"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	sigsjson "sigs.k8s.io/json"

	"github.com/cilium/cilium/pkg/crypto/certificatemanager"
	envoypolicy "github.com/cilium/cilium/pkg/envoy/policy"
	"github.com/cilium/cilium/pkg/identity"
	ipcachetypes "github.com/cilium/cilium/pkg/ipcache/types"
	ciliumv2 "github.com/cilium/cilium/pkg/k8s/apis/cilium.io/v2"
	"github.com/cilium/cilium/pkg/labels"
	"github.com/cilium/cilium/pkg/option"
	"github.com/cilium/cilium/pkg/policy"
	"github.com/cilium/cilium/pkg/policy/api"
	policytypes "github.com/cilium/cilium/pkg/policy/types"
	policyutils "github.com/cilium/cilium/pkg/policy/utils"
	ciliumtypes "github.com/cilium/cilium/pkg/types"
	"github.com/cilium/cilium/pkg/u8proto"
)

const (
	clusterName = "default" // pkg/defaults.ClusterName
	policyName  = "oracle-policy"
	policyUID   = "00000000-0000-0000-0000-00000000cafe"
	endpointID  = 1
)

type query struct {
	ID        json.RawMessage `json:"id,omitempty"`
	Namespace string          `json:"namespace"`
	Policy    json.RawMessage `json:"policy"`
	Direction string          `json:"direction"`
	Subject   *endpointSpec   `json:"subject"`
	Peer      *endpointSpec   `json:"peer"`
	Protocol  string          `json:"protocol"`
	Port      *int            `json:"port"`
	Explain   bool            `json:"explain,omitempty"`
}

// endpointSpec is a pod ({namespace, labels, ...}), or for a peer also an
// address outside the cluster ({ip}) or a reserved entity ({entity}).
type endpointSpec struct {
	Namespace       string               `json:"namespace,omitempty"`
	Labels          map[string]string    `json:"labels,omitempty"`
	NamespaceLabels map[string]string    `json:"namespaceLabels,omitempty"`
	ServiceAccount  *string              `json:"serviceAccount,omitempty"`
	NamedPorts      map[string]namedPort `json:"namedPorts,omitempty"`
	IP              string               `json:"ip,omitempty"`
	Entity          string               `json:"entity,omitempty"`
}

type namedPort struct {
	Port     int    `json:"port"`
	Protocol string `json:"protocol,omitempty"` // default TCP, like a k8s containerPort
}

type identityInfo struct {
	ID     uint32   `json:"id"`
	Labels []string `json:"labels"`
}

type explanation struct {
	Subject         *identityInfo `json:"subject,omitempty"`
	Peer            *identityInfo `json:"peer,omitempty"`
	PolicyEnabled   *bool         `json:"policyEnabled,omitempty"` // subject selected by a rule of that direction
	Key             string        `json:"key,omitempty"`
	Entry           string        `json:"entry,omitempty"`
	EntryFound      *bool         `json:"entryFound,omitempty"`
	ProxyRedirect   bool          `json:"proxyRedirect,omitempty"`
	AuthRequired    bool          `json:"authRequired,omitempty"`
	DerivedFrom     []string      `json:"derivedFrom,omitempty"`
	CIDRIdentities  []string      `json:"cidrIdentities,omitempty"`
	MapStateEntries int           `json:"mapStateEntries,omitempty"`
	MapState        []string      `json:"mapState,omitempty"` // the subject's policy map (this direction), if small
}

type result struct {
	allow   bool
	explain *explanation
}

var (
	l7Translator     envoypolicy.EnvoyL7RulesTranslator
	l7TranslatorOnce sync.Once
)

// getL7Translator returns the same translator `cilium-dbg policy stage`
// (pkg/policy/commands) uses for offline policy computation. It is only used to
// render HTTP rules for Envoy; it has no influence on the L3/L4 verdict.
func getL7Translator(logger *slog.Logger) envoypolicy.EnvoyL7RulesTranslator {
	l7TranslatorOnce.Do(func() {
		l7Translator = envoypolicy.NewEnvoyL7RulesTranslator(logger, certificatemanager.NewMockSecretManagerSDS())
	})
	return l7Translator
}

func evaluate(logger *slog.Logger, q *query) (*result, error) {
	// ---- validate the query envelope ----
	var ingress bool
	switch lower(q.Direction) {
	case "ingress":
		ingress = true
	case "egress":
		ingress = false
	default:
		return nil, errorf("direction must be \"ingress\" or \"egress\", got %q", q.Direction)
	}
	if q.Namespace == "" {
		return nil, errorf("namespace (of the CiliumNetworkPolicy) is required")
	}
	if errs := validation.IsDNS1123Label(q.Namespace); len(errs) > 0 {
		return nil, errorf("invalid namespace %q: %s", q.Namespace, strings.Join(errs, "; "))
	}
	proto, port, err := parseProtoPort(q.Protocol, q.Port)
	if err != nil {
		return nil, err
	}
	if q.Subject == nil {
		return nil, errorf("subject is required")
	}
	if q.Peer == nil {
		return nil, errorf("peer is required")
	}
	if q.Subject.IP != "" || q.Subject.Entity != "" {
		return nil, errorf("subject must be a pod ({namespace, labels}); ip/entity subjects are not supported")
	}

	// ---- the policy, as the agent's CNP watcher imports it ----
	// pkg/policy/k8s.(*policyWatcher).upsertCiliumNetworkPolicyV2:
	//   rules, err := cnp.Parse(logger, clusterName)   (Sanitize + k8s utils.ParseToCiliumRule)
	//   entries := policyutils.RulesToPolicyEntries(rules)
	//   policyImporter.UpdatePolicy(...) -> ipcache CIDR identities, repo.ReplaceByResource(entries, resourceID)
	cnp, err := decodeCNP(q.Namespace, q.Policy)
	if err != nil {
		return nil, err
	}
	if err := checkUnsupported(cnp, ingress, q.Peer.IP != ""); err != nil {
		return nil, err
	}
	rules, err := cnp.Parse(logger, clusterName)
	if err != nil {
		return nil, errorf("policy rejected by Cilium: %v", err)
	}
	entries := policyutils.RulesToPolicyEntries(rules)

	// ---- identities ----
	alloc := newAllocator()
	subjectLbls, err := podIdentityLabels(q.Subject)
	if err != nil {
		return nil, errorf("subject: %v", err)
	}
	subjectID, err := alloc.allocate(subjectLbls)
	if err != nil {
		return nil, errorf("subject: %v", err)
	}

	// Emulate the policy importer + ipcache: every CIDR prefix referenced by
	// policy gets a local-scope CIDR identity (labels.GetCIDRLabels).
	prefixes := policy.GetCIDRPrefixes(entries)
	sort.Slice(prefixes, func(i, j int) bool { return prefixes[i].String() < prefixes[j].String() })
	cidrIDs := make([]*identity.Identity, 0, len(prefixes))
	for _, pfx := range prefixes {
		if !familyEnabled(pfx.Addr()) {
			continue // the agent cannot have identities of a disabled family either
		}
		id, err := alloc.allocate(labels.GetCIDRLabels(pfx))
		if err != nil {
			return nil, errorf("CIDR %s: %v", pfx, err)
		}
		cidrIDs = append(cidrIDs, id)
	}

	peerID, peerNamedPorts, err := peerIdentity(alloc, q.Peer, prefixes)
	if err != nil {
		return nil, errorf("peer: %v", err)
	}

	// ---- repository, as pkg/policy/cell.newPolicyRepo builds it ----
	repo := policy.NewPolicyRepository(
		logger,
		identity.ListReservedIdentities(), // SelectorCache starts with the reserved identities
		nil,
		getL7Translator(logger),
		nil,
		noopPolicyMetrics{},
	)
	// egress named ports come from the ipcache's NamedPortMultiMap
	npm := ciliumtypes.NewNamedPortMultiMap()
	if peerNamedPorts != nil {
		npm.Update(peerID.ID, nil, peerNamedPorts)
	}
	repo.SetNamedPortsGetter(namedPortsGetter{npm})

	// All identities that exist in our tiny cluster: subject, peer, CIDR identities.
	added := identity.IdentityMap{}
	for _, id := range append([]*identity.Identity{subjectID, peerID}, cidrIDs...) {
		if !id.IsReserved() {
			added[id.ID] = id.LabelArray
		}
	}
	var wg sync.WaitGroup
	repo.GetSelectorCache().UpdateIdentities(added, nil, &wg)
	wg.Wait()
	// subject selector cache (pkg/policy/compute.LocalEndpointIdentityAdded)
	repo.UpdateIdentities(identity.IdentityMap{subjectID.ID: subjectID.LabelArray}, nil)

	resourceID := ipcachetypes.NewResourceID(ipcachetypes.ResourceKindCNP, q.Namespace, policyName)
	repo.ReplaceByResource(entries, resourceID)

	// ---- resolve and look up, like policy.LookupFlow ----
	sp, _, err := repo.ComputeSelectorPolicy(subjectID)
	if err != nil {
		return nil, errorf("policy resolution failed: %v", err)
	}
	subjectPorts, err := namedPortMap(q.Subject.NamedPorts)
	if err != nil {
		return nil, errorf("subject.namedPorts: %v", err)
	}
	owner := &policyOwner{id: endpointID, ingressNamedPorts: subjectPorts}
	redirects := map[string]uint16{policy.FallbackRedirectID: math.MaxUint16}
	epp := sp.DistillPolicy(logger, owner, redirects)
	epp.Ready()

	var key policytypes.Key
	if ingress {
		key = policy.IngressKey()
	} else {
		key = policy.EgressKey()
	}
	// The datapath looks up {identity, direction, proto, dport} with a full
	// (unwildcarded) prefix: bpf/lib/policy.h __policy_can_access(). For ICMP
	// the dport is the ICMP type, which may be 0 (echo reply), hence the
	// explicit /16 port prefix.
	key = key.WithIdentity(peerID.ID).WithPortProtoPrefix(proto, port, 16)
	entry, meta, found := epp.Lookup(key)

	res := &result{allow: !entry.IsDeny()}

	ex := &explanation{
		Subject:         idInfo(subjectID),
		Peer:            idInfo(peerID),
		Key:             key.String(),
		Entry:           entry.String(),
		EntryFound:      &found,
		ProxyRedirect:   !entry.IsDeny() && entry.IsRedirectEntry(),
		AuthRequired:    !entry.IsDeny() && entry.AuthRequirement.AuthType() != policytypes.AuthTypeDisabled,
		MapStateEntries: epp.Len(),
	}
	if epp.Len() <= 64 {
		for k, v := range epp.Entries() {
			if k.TrafficDirection() == key.TrafficDirection() {
				ex.MapState = append(ex.MapState, k.String()+" => "+v.String())
			}
		}
		sort.Strings(ex.MapState)
	}
	if found {
		for _, la := range meta.LabelArray() {
			ex.DerivedFrom = append(ex.DerivedFrom, la.String())
		}
	}
	if selPol := epp.SelectorPolicy; selPol != nil {
		enabled := selPol.EgressPolicyEnabled
		if ingress {
			enabled = selPol.IngressPolicyEnabled
		}
		ex.PolicyEnabled = &enabled
	}
	for _, id := range cidrIDs {
		ex.CIDRIdentities = append(ex.CIDRIdentities, fmt.Sprintf("%d=%s", id.ID, id.LabelArray.String()))
	}
	res.explain = ex

	epp.Detach(logger)
	sp.Supersede()
	return res, nil
}

func idInfo(id *identity.Identity) *identityInfo {
	return &identityInfo{ID: id.ID.Uint32(), Labels: id.LabelArray.GetModel()}
}

func familyEnabled(a netip.Addr) bool {
	if a.Is4() {
		return option.Config.EnableIPv4
	}
	return option.Config.EnableIPv6
}

// parseProtoPort validates the connection's protocol and destination port.
// For ICMP/ICMPv6 the "port" is the ICMP type, which is what the datapath puts
// in the policy key's dport (bpf/lib/policy.h, enable_icmp_rule).
func parseProtoPort(protocol string, portp *int) (u8proto.U8proto, uint16, error) {
	p := lower(protocol)
	var proto u8proto.U8proto
	switch p {
	case "tcp":
		proto = u8proto.TCP
	case "udp":
		proto = u8proto.UDP
	case "sctp":
		proto = u8proto.SCTP
	case "icmp":
		proto = u8proto.ICMP
	case "icmpv6":
		proto = u8proto.ICMPv6
	case "", "any":
		return 0, 0, errorf("protocol must be one of TCP, UDP, SCTP, ICMP, ICMPv6 (a connection has a concrete protocol), got %q", protocol)
	default:
		return 0, 0, errorf("unsupported protocol %q (supported: TCP, UDP, SCTP, ICMP, ICMPv6)", protocol)
	}
	if portp == nil {
		return 0, 0, errorf("port is required (for ICMP/ICMPv6: the ICMP type)")
	}
	port := *portp
	if proto == u8proto.ICMP || proto == u8proto.ICMPv6 {
		if port < 0 || port > 255 {
			return 0, 0, errorf("ICMP type (port) must be 0..255, got %d", port)
		}
		return proto, uint16(port), nil
	}
	if port < 1 || port > 65535 {
		return 0, 0, errorf("port must be 1..65535, got %d", port)
	}
	return proto, uint16(port), nil
}

// decodeCNP builds the CiliumNetworkPolicy object the agent would receive
// from the API server. "policy" is the CNP's spec (an object) or specs (an
// array). Decoding is case-sensitive and strict, like the API server with
// fieldValidation=Strict (kubectl's default).
func decodeCNP(namespace string, raw json.RawMessage) (*ciliumv2.CiliumNetworkPolicy, error) {
	trimmed := strings.TrimSpace(string(raw))
	if trimmed == "" || trimmed == "null" {
		return nil, errorf("policy is required")
	}
	cnp := &ciliumv2.CiliumNetworkPolicy{
		TypeMeta: metav1.TypeMeta{APIVersion: "cilium.io/v2", Kind: "CiliumNetworkPolicy"},
		ObjectMeta: metav1.ObjectMeta{
			Name:      policyName,
			Namespace: namespace,
			UID:       k8stypes.UID(policyUID),
		},
	}
	var strictErrs []error
	var err error
	if trimmed[0] == '[' {
		var specs api.Rules
		strictErrs, err = sigsjson.UnmarshalStrict(raw, &specs, sigsjson.DisallowDuplicateFields, sigsjson.DisallowUnknownFields)
		if err == nil && len(specs) == 0 {
			return nil, errorf("policy: empty specs list")
		}
		cnp.Specs = specs
	} else {
		var spec api.Rule
		strictErrs, err = sigsjson.UnmarshalStrict(raw, &spec, sigsjson.DisallowDuplicateFields, sigsjson.DisallowUnknownFields)
		cnp.Spec = &spec
	}
	if err != nil {
		return nil, errorf("policy: cannot decode CiliumNetworkPolicy spec: %v", err)
	}
	if len(strictErrs) > 0 {
		msgs := make([]string, len(strictErrs))
		for i, e := range strictErrs {
			msgs[i] = e.Error()
		}
		return nil, errorf("policy: %s", strings.Join(msgs, "; "))
	}
	return cnp, nil
}

// checkUnsupported rejects policy features whose verdict depends on cluster
// state the oracle does not have. Only rules of the queried direction matter:
// rules of the other direction cannot change the verdict.
func checkUnsupported(cnp *ciliumv2.CiliumNetworkPolicy, ingress, peerIsIP bool) error {
	specs := cnp.Specs
	if cnp.Spec != nil {
		specs = append(api.Rules{cnp.Spec}, specs...)
	}
	cidrGroup := func(set api.CIDRRuleSlice) bool {
		for _, c := range set {
			if c.CIDRGroupRef != "" || c.CIDRGroupSelector.LabelSelector != nil {
				return true
			}
		}
		return false
	}
	for _, r := range specs {
		if r == nil {
			continue
		}
		if ingress {
			commons := make([]api.IngressCommonRule, 0, len(r.Ingress)+len(r.IngressDeny))
			for _, i := range r.Ingress {
				commons = append(commons, i.IngressCommonRule)
			}
			for _, i := range r.IngressDeny {
				commons = append(commons, i.IngressCommonRule)
			}
			for _, c := range commons {
				if len(c.FromGroups) > 0 {
					return errorf("unsupported: fromGroups needs a cloud provider integration (AWS security groups) to be resolved")
				}
				if len(c.FromRequires) > 0 {
					return errorf("unsupported: fromRequires is deprecated and rejected by the v1.20 CRD (maxItems=0)")
				}
				if cidrGroup(c.FromCIDRSet) {
					return errorf("unsupported: fromCIDRSet cidrGroupRef/cidrGroupSelector needs CiliumCIDRGroup objects")
				}
			}
		} else {
			commons := make([]api.EgressCommonRule, 0, len(r.Egress)+len(r.EgressDeny))
			for _, e := range r.Egress {
				commons = append(commons, e.EgressCommonRule)
				if len(e.ToFQDNs) > 0 && peerIsIP {
					return errorf("unsupported: toFQDNs: whether an IP is selected depends on DNS responses seen by the DNS proxy")
				}
			}
			for _, e := range r.EgressDeny {
				commons = append(commons, e.EgressCommonRule)
			}
			for _, c := range commons {
				if len(c.ToServices) > 0 {
					return errorf("unsupported: toServices needs Service/EndpointSlice state (the agent rewrites it into generated toEndpoints/toCIDRSet)")
				}
				if len(c.ToGroups) > 0 {
					return errorf("unsupported: toGroups needs a cloud provider integration (AWS security groups) to be resolved")
				}
				if len(c.ToRequires) > 0 {
					return errorf("unsupported: toRequires is deprecated and rejected by the v1.20 CRD (maxItems=0)")
				}
				if cidrGroup(c.ToCIDRSet) {
					return errorf("unsupported: toCIDRSet cidrGroupRef/cidrGroupSelector needs CiliumCIDRGroup objects")
				}
			}
		}
	}
	return nil
}

// peerIdentity returns the security identity the datapath would see for the peer.
func peerIdentity(alloc *allocator, p *endpointSpec, prefixes []netip.Prefix) (*identity.Identity, ciliumtypes.NamedPortMap, error) {
	kinds := 0
	if p.IP != "" {
		kinds++
	}
	if p.Entity != "" {
		kinds++
	}
	isPod := p.Namespace != "" || p.Labels != nil || p.NamespaceLabels != nil || p.ServiceAccount != nil || p.NamedPorts != nil
	if isPod {
		kinds++
	}
	if kinds != 1 {
		return nil, nil, errorf("must be exactly one of a pod {namespace, labels}, {ip} or {entity}")
	}

	switch {
	case p.IP != "":
		addr, err := netip.ParseAddr(p.IP)
		if err != nil {
			return nil, nil, errorf("invalid ip %q: %v", p.IP, err)
		}
		addr = addr.Unmap()
		if addr.Zone() != "" {
			return nil, nil, errorf("invalid ip %q: zones are not supported", p.IP)
		}
		if !familyEnabled(addr) {
			return nil, nil, errorf("IPv6 address %s but the emulated cluster is IPv4-only (run with -dual-stack)", addr)
		}
		// ipcache longest-prefix match: the most specific policy CIDR
		// containing the address, else the world identity (0.0.0.0/0, ::/0).
		best := netip.PrefixFrom(addr, 0).Masked()
		for _, pfx := range prefixes {
			if pfx.Addr().Is4() == addr.Is4() && pfx.Contains(addr) && pfx.Bits() > best.Bits() {
				best = pfx
			}
		}
		id, err := alloc.allocate(labels.GetCIDRLabels(best))
		return id, nil, err

	case p.Entity != "":
		nid, err := entityIdentity(p.Entity)
		if err != nil {
			return nil, nil, err
		}
		id := identity.LookupReservedIdentity(nid)
		if id == nil {
			return nil, nil, errorf("no reserved identity for entity %q", p.Entity)
		}
		return id, nil, nil

	default:
		lbls, err := podIdentityLabels(p)
		if err != nil {
			return nil, nil, err
		}
		id, err := alloc.allocate(lbls)
		if err != nil {
			return nil, nil, err
		}
		npm, err := namedPortMap(p.NamedPorts)
		if err != nil {
			return nil, nil, errorf("namedPorts: %v", err)
		}
		return id, npm, nil
	}
}

// entityIdentity maps a policy entity name to the reserved identity a peer of
// that kind carries. Entities that stand for a set of identities (all,
// cluster, cluster-mesh) or none are not a peer.
func entityIdentity(e string) (identity.NumericIdentity, error) {
	switch api.Entity(lower(e)) {
	case api.EntityHost:
		return identity.ReservedIdentityHost, nil
	case api.EntityRemoteNode:
		return identity.ReservedIdentityRemoteNode, nil
	case api.EntityKubeAPIServer:
		return identity.ReservedIdentityKubeAPIServer, nil
	case api.EntityHealth:
		return identity.ReservedIdentityHealth, nil
	case api.EntityInit:
		return identity.ReservedIdentityInit, nil
	case api.EntityIngress:
		return identity.ReservedIdentityIngress, nil
	case api.EntityUnmanaged:
		return identity.ReservedIdentityUnmanaged, nil
	case api.EntityWorld:
		if option.Config.IsDualStack() {
			return 0, errorf("entity \"world\" is ambiguous in a dual-stack cluster: use world-ipv4 or world-ipv6")
		}
		return identity.ReservedIdentityWorld, nil
	case api.EntityWorldIPv4:
		if !option.Config.IsDualStack() {
			return 0, errorf("entity world-ipv4 only exists in a dual-stack cluster (run with -dual-stack); use \"world\"")
		}
		return identity.ReservedIdentityWorldIPv4, nil
	case api.EntityWorldIPv6:
		if !option.Config.IsDualStack() {
			return 0, errorf("entity world-ipv6 only exists in a dual-stack cluster (run with -dual-stack)")
		}
		return identity.ReservedIdentityWorldIPv6, nil
	case api.EntityAll, api.EntityCluster, api.EntityClusterMesh, api.EntityNone:
		return 0, errorf("entity %q is a set of identities, not a single peer: give a concrete peer (pod, ip or host/remote-node/... entity)", e)
	}
	return 0, errorf("unknown entity %q", e)
}

func namedPortMap(in map[string]namedPort) (ciliumtypes.NamedPortMap, error) {
	if len(in) == 0 {
		return nil, nil
	}
	npm := make(ciliumtypes.NamedPortMap, len(in))
	for name, np := range in {
		proto := np.Protocol
		if proto == "" {
			proto = "TCP"
		}
		// same call the agent makes for each container port (pkg/k8s.GetPodMetadata)
		if err := npm.AddPort(name, np.Port, proto); err != nil {
			return nil, fmt.Errorf("%q: %w", name, err)
		}
	}
	return npm, nil
}

type namedPortsGetter struct {
	npm ciliumtypes.NamedPortMultiMap
}

func (g namedPortsGetter) GetNamedPorts() ciliumtypes.NamedPortMultiMap { return g.npm }

type noopPolicyMetrics struct{}

func (noopPolicyMetrics) AddRule(policytypes.PolicyEntry) {}
func (noopPolicyMetrics) DelRule(policytypes.PolicyEntry) {}
