package glance

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/render"
	"github.com/c5c3/glance-hooks/hooks/glance/storestate"
)

// ruleText is a rule as a reader says it: "TCP 3306 to namespace db",
// "TCP 443 anywhere", "TCP 9000 to 10.0.0.5/32".
func ruleText(r networkingv1.NetworkPolicyEgressRule) string {
	var ports []string
	for _, p := range r.Ports {
		ports = append(ports, fmt.Sprintf("%s %s", *p.Protocol, p.Port.String()))
	}
	to := "anywhere"
	if len(r.To) > 0 {
		var peers []string
		for _, p := range r.To {
			switch {
			case p.IPBlock != nil:
				peers = append(peers, p.IPBlock.CIDR)
			case p.NamespaceSelector != nil:
				peers = append(peers, "namespace "+p.NamespaceSelector.MatchLabels[labelNamespaceName])
			}
		}
		to = "to " + strings.Join(peers, ", ")
	}
	return strings.Join(ports, ", ") + " " + to
}

func rulesText(rules []networkingv1.NetworkPolicyEgressRule) []string {
	out := make([]string, 0, len(rules))
	for _, r := range rules {
		out = append(out, ruleText(r))
	}
	return out
}

func endpointStore(id, host string) *model.Store {
	s := &model.Store{ID: id, State: storestate.Rendered}
	s.Backend.Spec.S3 = &api.S3Store{Host: host}
	return s
}

// TestDerivedEgress: the egress derived for every shape of database,
// memcached, Keystone and S3 endpoint.
func TestDerivedEgress(t *testing.T) {
	g := &api.Glance{ObjectMeta: metav1.ObjectMeta{Name: "glance", Namespace: "openstack"}}
	base := func(change func(*api.GlanceSpec)) api.GlanceSpec {
		s := api.GlanceSpec{KeystoneEndpoint: "http://keystone.identity.svc.cluster.local:5000/v3"}.WithDefaults("openstack")
		s.Cache = &api.CacheSpec{ClusterRef: &api.LocalObjectReference{Name: "memcached"}}
		if change != nil {
			change(&s)
		}
		return s
	}
	// The rules every case shares, in their sorted place.
	const (
		dns       = "UDP 53, TCP 53 anywhere"
		keystone  = "TCP 5000 to namespace identity"
		cache     = "TCP 11211 to namespace openstack"
		clusterDB = "TCP 3306 to namespace openstack"
	)
	cases := map[string]struct {
		reason string
		spec   api.GlanceSpec
		stores []*model.Store
		want   []string
	}{
		"DatabaseCluster": {
			reason: "a database clusterRef is a Service in the Glance's namespace: that namespace on 3306",
			spec:   base(nil),
			want:   []string{dns, clusterDB, keystone, cache},
		},
		"DatabaseHostName": {
			reason: "an external database by name: its port, anywhere, since a name's addresses cannot be named",
			spec: base(func(s *api.GlanceSpec) {
				s.Database.ClusterRef, s.Database.Host = nil, "db.example.com"
			}),
			want: []string{dns, "TCP 3306 anywhere", keystone, cache},
		},
		"DatabaseIPv4OtherPort": {
			reason: "an external database by IPv4 address and port: that address alone",
			spec: base(func(s *api.GlanceSpec) {
				s.Database.ClusterRef, s.Database.Host, s.Database.Port = nil, "192.0.2.10", ptr(int32(3307))
			}),
			want: []string{dns, "TCP 3307 to 192.0.2.10/32", keystone, cache},
		},
		"DatabaseIPv6": {
			reason: "an IPv6 address is a /128",
			spec: base(func(s *api.GlanceSpec) {
				s.Database.ClusterRef, s.Database.Host = nil, "2001:db8::10"
			}),
			want: []string{dns, "TCP 3306 to 2001:db8::10/128", keystone, cache},
		},
		"DatabaseServiceInAnotherNamespace": {
			reason: "a host that is a Service's DNS name: its namespace",
			spec: base(func(s *api.GlanceSpec) {
				s.Database.ClusterRef, s.Database.Host = nil, "mariadb.databases.svc.cluster.local"
			}),
			want: []string{dns, "TCP 3306 to namespace databases", keystone, cache},
		},
		"MemcachedServers": {
			reason: "memcached servers by name and address, each on its port; a bare name is a Service of the namespace, localhost is not",
			spec: base(func(s *api.GlanceSpec) {
				s.Cache = &api.CacheSpec{Servers: []string{"cache-0.example.com:11211", "[2001:db8::5]:11212", "memcached:11213", "localhost:11214"}}
			}),
			want: []string{dns, clusterDB, keystone, "TCP 11211 anywhere", "TCP 11212 to 2001:db8::5/128", "TCP 11213 to namespace openstack", "TCP 11214 anywhere"},
		},
		"KeystoneHTTPSNoPort": {
			reason: "a URL without a port: the scheme's",
			spec:   base(func(s *api.GlanceSpec) { s.KeystoneEndpoint = "https://identity.example.com/v3" }),
			want:   []string{dns, "TCP 443 anywhere", clusterDB, cache},
		},
		"S3EveryShape": {
			reason: "each store's S3 endpoint: a Service, an address, a name with and without a port; one rule for two stores on one endpoint",
			spec:   base(nil),
			stores: []*model.Store{
				endpointStore("a", "http://garage.shared-services.svc.cluster.local:3900"),
				endpointStore("b", "http://garage.shared-services.svc.cluster.local:3900"),
				endpointStore("c", "https://198.51.100.7:9000"),
				endpointStore("d", "https://s3.example.com"),
				endpointStore("e", "http://minio:9000"),
			},
			want: []string{dns, "TCP 443 anywhere", clusterDB, "TCP 3900 to namespace shared-services", keystone, "TCP 9000 to 198.51.100.7/32", "TCP 9000 to namespace openstack", cache},
		},
		"StoresInAnyState": {
			reason: "a pending or skipped store's endpoint is allowed too, and a retired store's from its running section",
			spec:   base(nil),
			stores: []*model.Store{
				func() *model.Store {
					s := endpointStore("p", "http://10.1.2.3:7480")
					s.State = storestate.Pending
					return s
				}(),
				func() *model.Store {
					s := endpointStore("s", "http://10.1.2.4:7480")
					s.State = storestate.Skipped
					return s
				}(),
				{ID: "old", Retired: true, State: storestate.Retiring, Section: "[old]\ns3_store_host = http://10.1.2.5:7480\n"},
			},
			want: []string{dns, clusterDB, keystone, "TCP 7480 to 10.1.2.3/32", "TCP 7480 to 10.1.2.4/32", "TCP 7480 to 10.1.2.5/32", cache},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := derivedEgress(g, tc.spec, tc.stores)
			if err != nil {
				t.Fatalf("%s: %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.want, rulesText(got)); diff != "" {
				t.Errorf("%s: -want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestDerivedEgressIsOrderFree: the policy does not change with the order
// the stores come in.
func TestDerivedEgressIsOrderFree(t *testing.T) {
	g := &api.Glance{ObjectMeta: metav1.ObjectMeta{Name: "glance", Namespace: "openstack"}}
	spec := api.GlanceSpec{}.WithDefaults("openstack")
	a, b := endpointStore("a", "http://10.0.0.1:80"), endpointStore("b", "https://s3.example.com:8443")
	one, err := derivedEgress(g, spec, []*model.Store{a, b})
	if err != nil {
		t.Fatal(err)
	}
	two, err := derivedEgress(g, spec, []*model.Store{b, a})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(rulesText(one), rulesText(two)); diff != "" {
		t.Errorf("-one +two:\n%s", diff)
	}
}

// TestAwaitEgress: a store the observed policy does not allow yet waits,
// one it allows is rendered, and nothing waits without a policy block.
func TestAwaitEgress(t *testing.T) {
	g := &api.Glance{ObjectMeta: metav1.ObjectMeta{Name: "glance", Namespace: "openstack"}}
	withPolicy := api.GlanceSpec{NetworkPolicy: &api.NetworkPolicySpec{}}
	allowedA := map[string]bool{ruleKey(egressRule(endpoint{host: "10.0.0.1", port: 80}, "openstack")): true}
	held := func() *model.Store {
		s := endpointStore("h", "http://10.0.0.9:80")
		s.State = storestate.Held
		return s
	}
	cases := map[string]struct {
		reason  string
		spec    api.GlanceSpec
		allowed map[string]bool
		want    map[string]storestate.State
	}{
		"NoPolicy": {
			reason: "without spec.networkPolicy nothing waits",
			spec:   api.GlanceSpec{}, want: map[string]storestate.State{"a": storestate.Rendered, "b": storestate.Rendered, "h": storestate.Held},
		},
		"NoObservedPolicy": {
			reason: "before the policy exists every new store waits; the running config's held store stays",
			spec:   withPolicy, want: map[string]storestate.State{"a": storestate.Pending, "b": storestate.Pending, "h": storestate.Held},
		},
		"OneAllowed": {
			reason: "the store the policy allows renders, the other waits",
			spec:   withPolicy, allowed: allowedA, want: map[string]storestate.State{"a": storestate.Rendered, "b": storestate.Pending, "h": storestate.Held},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			stores := []*model.Store{endpointStore("a", "http://10.0.0.1"), endpointStore("b", "https://s3.example.com"), held()}
			awaitEgress(g, tc.spec, stores, tc.allowed)
			got := map[string]storestate.State{}
			for _, s := range stores {
				got[s.ID] = s.State
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s: -want +got:\n%s", tc.reason, diff)
			}
			for _, s := range stores {
				if s.State == storestate.Pending && !strings.Contains(s.Skipped, `waiting for NetworkPolicy "glance"`) {
					t.Errorf("%s: store %s waits without saying why: %q", tc.reason, s.ID, s.Skipped)
				}
			}
		})
	}
}

// TestNetworkPolicies: the glance-api pods' policy admits 9292 from the
// sources only and appends additionalEgress; the Jobs' pods reach DNS
// and the database, and nothing reaches them.
func TestNetworkPolicies(t *testing.T) {
	g := &api.Glance{ObjectMeta: metav1.ObjectMeta{Name: "glance", Namespace: "openstack"}}
	spec := api.GlanceSpec{}.WithDefaults("openstack")
	extra := networkingv1.NetworkPolicyEgressRule{To: []networkingv1.NetworkPolicyPeer{{IPBlock: &networkingv1.IPBlock{CIDR: "203.0.113.0/24"}}}}
	spec.NetworkPolicy = &api.NetworkPolicySpec{
		Ingress:          []api.NetworkPolicySource{{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"gateway": "true"}}}},
		AdditionalEgress: []networkingv1.NetworkPolicyEgressRule{extra},
	}
	children, cond, err := networkPolicyChildren(g, spec, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(children) != 2 {
		t.Fatalf("want the api and the jobs policies, got %d", len(children))
	}
	apiNP, jobs := children[0].(*networkPolicyChild), children[1].(*networkPolicyChild)
	if cond.Status || cond.Reason != model.ReasonWaitingForNetworkPolicy {
		t.Errorf("nothing observed: want False/%s, got %+v", model.ReasonWaitingForNetworkPolicy, cond)
	}
	if diff := cmp.Diff(model.SelectorLabels(g), apiNP.Spec.PodSelector.MatchLabels); diff != "" {
		t.Errorf("the api policy selects the glance-api pods: %s", diff)
	}
	in := apiNP.Spec.Ingress
	if len(in) != 1 || len(in[0].Ports) != 1 || in[0].Ports[0].Port.IntVal != render.APIPort || in[0].From[0].NamespaceSelector.MatchLabels["gateway"] != "true" {
		t.Errorf("ingress: want TCP %d from the one source, got %+v", render.APIPort, in)
	}
	eg := apiNP.Spec.Egress
	if diff := cmp.Diff(extra, eg[len(eg)-1]); diff != "" {
		t.Errorf("additionalEgress comes last, as written: %s", diff)
	}
	if diff := cmp.Diff([]string{"UDP 53, TCP 53 anywhere", "TCP 3306 to namespace openstack"}, rulesText(jobs.Spec.Egress)); diff != "" {
		t.Errorf("the Jobs' egress: %s", diff)
	}
	if len(jobs.Spec.Ingress) != 0 || len(jobs.Spec.PolicyTypes) != 2 {
		t.Errorf("the Jobs' pods admit nothing: %+v", jobs.Spec)
	}
	sel := jobs.Spec.PodSelector
	if sel.MatchLabels[names.LabelInstance] != "glance" || len(sel.MatchExpressions) != 1 || sel.MatchExpressions[0].Values[0] != "api" {
		t.Errorf("the Jobs' policy selects the Glance's pods but the api's: %+v", sel)
	}

	// Observed as returned: True.
	allowed := map[string]bool{}
	for _, r := range apiNP.Spec.Egress {
		allowed[ruleKey(r)] = true
	}
	_, cond, err = networkPolicyChildren(g, spec, nil, allowed)
	if err != nil {
		t.Fatal(err)
	}
	if !cond.Status || cond.Reason != model.ReasonNetworkPolicyApplied {
		t.Errorf("observed as returned: want True/%s, got %+v", model.ReasonNetworkPolicyApplied, cond)
	}

	// A Keystone URL the derivation cannot read is a spec error, saying
	// which field, never its value.
	bad := spec
	bad.KeystoneEndpoint = "::secret-looking::"
	_, _, err = networkPolicyChildren(g, bad, nil, nil)
	if !model.IsSpecError(err) || strings.Contains(err.Error(), "secret-looking") || !strings.Contains(err.Error(), "spec.keystoneEndpoint") {
		t.Errorf("want a spec error naming the field only, got %v", err)
	}
}
