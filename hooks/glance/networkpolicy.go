package glance

import (
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/glance/decide"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/observe"
	"github.com/c5c3/glance-hooks/hooks/glance/render"
	"github.com/c5c3/glance-hooks/hooks/glance/report"
	"github.com/c5c3/glance-hooks/hooks/glance/storestate"
)

// labelNamespaceName is the label the API server puts on every namespace,
// naming it: the one namespace selector that needs no one's cooperation.
const labelNamespaceName = "kubernetes.io/metadata.name"

// DNSPort is where pods resolve names: the cluster's DNS, or a node-local
// cache on a link-local address, so the rule names no destination.
const DNSPort = 53

// endpoint is one server the glance-api pods connect to, as the spec or a
// backend names it.
type endpoint struct {
	host string
	port int32
}

// egressRule is what a NetworkPolicy needs to let a pod reach e. An IP
// address is reached as itself. A Service's DNS name (<svc>.<ns>.svc...,
// or a bare <svc> but localhost, in the Glance's namespace) is reached in
// its namespace:
// NetworkPolicies see the pod behind the Service, whose labels these hooks
// do not know, so the rule admits that namespace on the port. Any other
// host name resolves to addresses the policy cannot name and may change,
// so it is reached on its port, anywhere.
func egressRule(e endpoint, namespace string) networkingv1.NetworkPolicyEgressRule {
	tcp := corev1.ProtocolTCP
	port := intstr.FromInt32(e.port)
	rule := networkingv1.NetworkPolicyEgressRule{Ports: []networkingv1.NetworkPolicyPort{{Protocol: &tcp, Port: &port}}}
	host := strings.TrimSuffix(e.host, ".")
	if ip := net.ParseIP(host); ip != nil {
		bits := "/32"
		if ip.To4() == nil {
			bits = "/128"
		}
		rule.To = []networkingv1.NetworkPolicyPeer{{IPBlock: &networkingv1.IPBlock{CIDR: ip.String() + bits}}}
		return rule
	}
	labels := strings.Split(host, ".")
	ns := ""
	switch {
	case len(labels) == 1 && host != "" && host != "localhost":
		// A single label resolves through the pod's search domains to a
		// Service of its namespace; localhost is the pod itself (its hosts
		// file), a name like any other here.
		ns = namespace
	case len(labels) >= 3 && labels[2] == "svc":
		ns = labels[1]
	}
	if ns != "" {
		rule.To = []networkingv1.NetworkPolicyPeer{{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{labelNamespaceName: ns}}}}
	}
	return rule
}

// dnsRule lets a pod resolve names.
func dnsRule() networkingv1.NetworkPolicyEgressRule {
	udp, tcp := corev1.ProtocolUDP, corev1.ProtocolTCP
	port := intstr.FromInt32(DNSPort)
	return networkingv1.NetworkPolicyEgressRule{Ports: []networkingv1.NetworkPolicyPort{{Protocol: &udp, Port: &port}, {Protocol: &tcp, Port: &port}}}
}

// urlEndpoint is the endpoint of an http(s) URL: its host, and its port or
// the scheme's.
func urlEndpoint(what, raw string) (endpoint, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return endpoint{}, fmt.Errorf("%s: not a URL with a host", what)
	}
	port := int32(80)
	if u.Scheme == "https" {
		port = 443
	}
	if p := u.Port(); p != "" {
		n, err := strconv.ParseUint(p, 10, 16)
		if err != nil || n == 0 {
			return endpoint{}, fmt.Errorf("%s: the URL's port is not 1 to 65535", what)
		}
		port = int32(n)
	}
	return endpoint{host: u.Hostname(), port: port}, nil
}

// hostPortEndpoint is the endpoint of a host:port.
func hostPortEndpoint(what, hostPort string) (endpoint, error) {
	host, p, err := net.SplitHostPort(hostPort)
	n, perr := strconv.ParseUint(p, 10, 16)
	if err != nil || perr != nil || n == 0 {
		return endpoint{}, fmt.Errorf("%s: not host:port", what)
	}
	return endpoint{host: host, port: int32(n)}, nil
}

// serviceEndpoints are the servers every glance-api pod reaches whatever
// its stores: the database, memcached and Keystone.
func serviceEndpoints(g *api.Glance, spec api.GlanceSpec) ([]endpoint, error) {
	host, port := spec.Database.Address(g.Namespace)
	out := []endpoint{{host: host, port: port}}
	c := spec.Cache
	if c.ClusterRef != nil {
		out = append(out, endpoint{host: fmt.Sprintf("%s.%s.svc", c.ClusterRef.Name, g.Namespace), port: render.MemcachedPort})
	}
	for i, s := range c.Servers {
		e, err := hostPortEndpoint(fmt.Sprintf("spec.cache.servers[%d]", i), s)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	ks, err := urlEndpoint("spec.keystoneEndpoint", spec.KeystoneEndpoint)
	if err != nil {
		return nil, err
	}
	return append(out, ks), nil
}

// storeEndpoints finds the S3 endpoint of a store: its backend's s3.host,
// or, for a retired store, the host its running section names. ok is false
// when there is none to reach: a backend without S3 settings, or one with
// a host admission let through unusable, which is its own fault, reported
// by the backend (so no message is made here for it, a store at a time).
// Each host is parsed once: stores share a few S3 endpoints, and parsing
// every store's URL, twice a sync, was the policy's largest allocation.
type storeEndpoints map[string]hostEndpoint

type hostEndpoint struct {
	e  endpoint
	ok bool
}

func (h storeEndpoints) of(s *model.Store) (endpoint, bool) {
	host := ""
	if s.Backend.Spec.S3 != nil {
		host = s.Backend.Spec.S3.Host
	} else if s.Retired {
		host = sectionHost(s.Section)
	}
	if host == "" {
		return endpoint{}, false
	}
	r, seen := h[host]
	if !seen {
		e, err := urlEndpoint("store", host)
		r = hostEndpoint{e: e, ok: err == nil}
		h[host] = r
	}
	return r.e, r.ok
}

// sectionHost is the s3_store_host a rendered store section names.
func sectionHost(section string) string {
	for _, line := range strings.Split(section, "\n") {
		if k, v, ok := strings.Cut(line, "="); ok && strings.TrimSpace(k) == "s3_store_host" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// derivedEgress is the egress the glance-api pods need: DNS, the database,
// memcached, Keystone, and the S3 endpoint of every store the Glance
// holds, attached in any state or retiring, so a store's endpoint is
// allowed before the config names it. Duplicates are merged and the rules
// sorted, so the policy does not change with the order stores are seen.
func derivedEgress(g *api.Glance, spec api.GlanceSpec, stores []*model.Store) ([]networkingv1.NetworkPolicyEgressRule, error) {
	eps, err := serviceEndpoints(g, spec)
	if err != nil {
		return nil, err
	}
	// Each distinct endpoint once: stores share a few, and sortedRules
	// would otherwise set aside a slot for every store's.
	found, seen := storeEndpoints{}, map[endpoint]bool{}
	for _, s := range stores {
		if e, ok := found.of(s); ok && !seen[e] {
			seen[e] = true
			eps = append(eps, e)
		}
	}
	return append([]networkingv1.NetworkPolicyEgressRule{dnsRule()}, sortedRules(eps, g.Namespace)...), nil
}

// sortedRules are the rules of eps, one per distinct rule, sorted by port,
// then by their JSON (an address, then a namespace, then anywhere). A rule
// depends on its endpoint's host and port alone, so an endpoint seen before
// is not made into a rule again: with a thousand stores on a few S3
// endpoints, encoding each store's rule for its key was most of the cost.
func sortedRules(eps []endpoint, namespace string) []networkingv1.NetworkPolicyEgressRule {
	byKey := map[string]networkingv1.NetworkPolicyEgressRule{}
	seen := make(map[endpoint]bool, len(eps))
	for _, e := range eps {
		if seen[e] {
			continue
		}
		seen[e] = true
		r := egressRule(e, namespace)
		byKey[fmt.Sprintf("%05d %s", e.port, ruleKey(r))] = r
	}
	keys := make([]string, 0, len(byKey))
	for k := range byKey {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]networkingv1.NetworkPolicyEgressRule, 0, len(keys))
	for _, k := range keys {
		out = append(out, byKey[k])
	}
	return out
}

// ruleKey is a rule's JSON: two rules allow the same when their keys match.
func ruleKey(r networkingv1.NetworkPolicyEgressRule) string {
	b, _ := json.Marshal(r)
	return string(b)
}

// networkPolicyChild is what the hook returns for a NetworkPolicy.
type networkPolicyChild struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              networkingv1.NetworkPolicySpec `json:"spec"`
}

// apiNetworkPolicy admits TCP 9292 from the spec's sources only and lets
// the glance-api pods reach the derived endpoints and additionalEgress.
func apiNetworkPolicy(g *api.Glance, np api.NetworkPolicySpec, derived []networkingv1.NetworkPolicyEgressRule) *networkPolicyChild {
	tcp := corev1.ProtocolTCP
	port := intstr.FromInt32(render.APIPort)
	from := make([]networkingv1.NetworkPolicyPeer, 0, len(np.Ingress))
	for _, src := range np.Ingress {
		from = append(from, networkingv1.NetworkPolicyPeer{NamespaceSelector: src.NamespaceSelector, PodSelector: src.PodSelector})
	}
	return &networkPolicyChild{
		TypeMeta:   metav1.TypeMeta{APIVersion: names.NetworkPolicyAPIVersion, Kind: "NetworkPolicy"},
		ObjectMeta: metav1.ObjectMeta{Name: g.Name, Namespace: g.Namespace, Labels: model.ObjectLabels(g)},
		Spec: networkingv1.NetworkPolicySpec{
			PodSelector: metav1.LabelSelector{MatchLabels: model.SelectorLabels(g)},
			Ingress:     []networkingv1.NetworkPolicyIngressRule{{From: from, Ports: []networkingv1.NetworkPolicyPort{{Protocol: &tcp, Port: &port}}}},
			Egress:      append(derived, np.AdditionalEgress...),
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress},
		},
	}
}

// jobsNetworkPolicy covers the Glance's other pods, its Jobs' (the schema
// Jobs, and any later Job of the Glance): they serve nothing, so no
// ingress, and reach DNS and the database only.
func jobsNetworkPolicy(g *api.Glance, spec api.GlanceSpec) *networkPolicyChild {
	host, port := spec.Database.Address(g.Namespace)
	return &networkPolicyChild{
		TypeMeta:   metav1.TypeMeta{APIVersion: names.NetworkPolicyAPIVersion, Kind: "NetworkPolicy"},
		ObjectMeta: metav1.ObjectMeta{Name: names.JobsNetworkPolicyName(g.Name), Namespace: g.Namespace, Labels: model.ObjectLabels(g)},
		Spec: networkingv1.NetworkPolicySpec{
			PodSelector: metav1.LabelSelector{
				MatchLabels: map[string]string{names.LabelName: "glance", names.LabelInstance: g.Name},
				MatchExpressions: []metav1.LabelSelectorRequirement{
					{Key: names.LabelComponent, Operator: metav1.LabelSelectorOpNotIn, Values: []string{"api"}}},
			},
			Egress:      []networkingv1.NetworkPolicyEgressRule{dnsRule(), egressRule(endpoint{host: host, port: port}, g.Namespace)},
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress},
		},
	}
}

// observedPolicy is the egress of the observed glance-api NetworkPolicy,
// by rule key; nil when there is none.
func observedPolicy(children metacontroller.ObjectMap, glance string) (map[string]bool, error) {
	np, found, err := metacontroller.DecodeOne[struct {
		Spec networkingv1.NetworkPolicySpec `json:"spec"`
	}](children, names.NetworkPoliciesKey, glance)
	if err != nil {
		return nil, hook.Invalid("observed NetworkPolicy: %v", err)
	}
	if !found {
		return nil, nil
	}
	allowed := map[string]bool{}
	for _, r := range np.Spec.Egress {
		allowed[ruleKey(r)] = true
	}
	return allowed, nil
}

// observeEgress is the network policy feature's observation: the egress
// the observed glance-api NetworkPolicy allows.
func observeEgress(o *observe.Observed, children metacontroller.ObjectMap) error {
	var err error
	o.AllowedEgress, err = observedPolicy(children, o.Glance.Name)
	return err
}

// awaitEgress holds back a store whose S3 endpoint the observed
// NetworkPolicy does not allow yet: the policy this sync returns allows
// it, and the next sync, which Metacontroller runs once the policy
// changed, renders the store. So no glance-api pod is given a store it
// cannot reach. Stores the running config holds already (held, retiring)
// stay. A store held back is a copy put in its place in stores (Own).
func awaitEgress(g *api.Glance, spec api.GlanceSpec, stores []*model.Store, allowed map[string]bool) {
	if spec.NetworkPolicy == nil {
		return
	}
	// Whether an endpoint is allowed, once per endpoint: stores share a
	// few, and a rule's key is its JSON encoding.
	allows := map[endpoint]bool{}
	found := storeEndpoints{}
	for i, s := range stores {
		if s.State != storestate.Rendered {
			continue
		}
		e, ok := found.of(s)
		if !ok {
			continue
		}
		allow, known := allows[e]
		if !known {
			allow = allowed[ruleKey(egressRule(e, g.Namespace))]
			allows[e] = allow
		}
		if !allow {
			decide.Own(stores, i).Move(storestate.EgressAwaited, fmt.Sprintf("waiting for NetworkPolicy %q to allow its endpoint (%s port %d)", g.Name, e.host, e.port))
		}
	}
}

// networkPolicyChildren are the NetworkPolicies of spec.networkPolicy and
// their condition: True once the observed policy allows every derived
// endpoint.
func networkPolicyChildren(g *api.Glance, spec api.GlanceSpec, stores []*model.Store, allowed map[string]bool) ([]any, *hook.Condition, error) {
	np := spec.NetworkPolicy
	if np == nil {
		return nil, nil, nil
	}
	derived, err := derivedEgress(g, spec, stores)
	if err != nil {
		return nil, nil, model.InvalidSpec("%w", err)
	}
	c := hook.Condition{Type: model.CondNetworkPolicyReady, Status: true, Reason: model.ReasonNetworkPolicyApplied,
		Message: fmt.Sprintf("NetworkPolicy %q admits TCP %d from %d sources and allows %d egress rules; NetworkPolicy %q covers the Jobs' pods",
			g.Name, render.APIPort, len(np.Ingress), len(derived)+len(np.AdditionalEgress), names.JobsNetworkPolicyName(g.Name))}
	for _, r := range derived {
		if !allowed[ruleKey(r)] {
			c.Status, c.Reason = false, model.ReasonWaitingForNetworkPolicy
			c.Message = fmt.Sprintf("NetworkPolicy %q does not allow every derived endpoint yet; the stores it does not allow wait for it", g.Name)
			break
		}
	}
	return []any{apiNetworkPolicy(g, *np, derived), jobsNetworkPolicy(g, spec)}, &c, nil
}

// networkPolicyReady is NetworkPolicyReady: the policies', or, without
// spec.networkPolicy, True under the reference's NetworkPolicyNotRequired.
func networkPolicyReady(in report.StatusInput) (hook.Condition, error) {
	if c, ok := report.FindCondition(in.Out.Reach, model.CondNetworkPolicyReady); ok {
		return c, nil
	}
	return hook.Condition{Type: model.CondNetworkPolicyReady, Status: true, Reason: model.ReasonNetworkPolicyNotRequired,
		Message: "spec.networkPolicy is not set: no NetworkPolicy of the Glance restricts what reaches its pods or what they reach"}, nil
}

// awaitStoreEgress is the network policy feature's decision: a store
// waits for the NetworkPolicy to allow its endpoint (awaitEgress).
func awaitStoreEgress(o *observe.Observed, d *decide.Decision) {
	awaitEgress(o.Glance, o.Spec, d.Stores, o.AllowedEgress)
}

// networkPolicyReach is spec.networkPolicy's NetworkPolicies and their
// condition. A spec they cannot be rendered from keeps the observed ones
// as last applied.
func networkPolicyReach(o *observe.Observed, stores []*model.Store) ([]any, *hook.Condition, error) {
	if len(o.Invalid) > 0 {
		return render.KeptWhileInvalid(o.Applied, names.NetworkPoliciesKey, o.Spec.NetworkPolicy != nil, model.CondNetworkPolicyReady, "the NetworkPolicies are")
	}
	policies, c, err := networkPolicyChildren(o.Glance, o.Spec, stores, o.AllowedEgress)
	if !model.IsSpecError(err) {
		return policies, c, err
	}
	kept, kerr := o.Applied.Keep(names.NetworkPoliciesKey)
	if kerr != nil {
		return nil, nil, kerr
	}
	return kept, &hook.Condition{Type: model.CondNetworkPolicyReady, Reason: model.ReasonInvalidSpec,
		Message: "the NetworkPolicies are kept as last applied: " + err.Error()}, nil
}
