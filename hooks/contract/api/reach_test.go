package api

import "testing"

// TestRegistrationPublicURL: the public URL registered in Keystone, in the
// order of precedence; the internal one stays the Service's.
func TestRegistrationPublicURL(t *testing.T) {
	const service = "http://cp-glance.openstack.svc.cluster.local:9292"
	gw := &GatewaySpec{Hostname: "images.example.com", ParentRef: GatewayParentRef{Name: "edge"}}
	cases := map[string]struct {
		reason string
		svc    GlanceService
		want   string
	}{
		"Default":        {reason: "nothing set: the Service", want: service},
		"Gateway":        {reason: "a gateway: its URL", svc: GlanceService{Gateway: gw}, want: "https://images.example.com/"},
		"GatewayPath":    {reason: "under a path: the path, ending in /", svc: GlanceService{Gateway: &GatewaySpec{Hostname: "c.example.com", Path: "/image"}}, want: "https://c.example.com/image/"},
		"PublicEndpoint": {reason: "publicEndpoint wins over the gateway", svc: GlanceService{Gateway: gw, PublicEndpoint: "https://glance.example.org"}, want: "https://glance.example.org"},
		"KeystoneURL": {reason: "keystone.publicURL wins over everything",
			svc: GlanceService{Gateway: gw, Keystone: &KeystoneRegistration{PublicURL: "https://x.example.org"}}, want: "https://x.example.org"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := tc.svc.Registration("cp", "openstack")
			if r.PublicURL != tc.want {
				t.Errorf("%s: public %q, want %q", tc.reason, r.PublicURL, tc.want)
			}
			if r.InternalURL != service {
				t.Errorf("%s: internal %q, want the Service's", tc.reason, r.InternalURL)
			}
		})
	}
}
