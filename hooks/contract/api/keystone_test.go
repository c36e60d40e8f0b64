package api

import "testing"

// TestKeystoneRules: the Keystone part refuses an endpoint that is no
// http(s) URL or carries credentials, a region that is no id, and a service
// user set to an empty name; the defaults pass.
func TestKeystoneRules(t *testing.T) {
	cases := map[string]struct {
		reason string
		mod    func(s *GlanceSpec)
		want   string
	}{
		"Default":     {"the namespace's Keystone and the guide's service user", func(*GlanceSpec) {}, ""},
		"NotURL":      {"an endpoint without a scheme", func(s *GlanceSpec) { s.KeystoneEndpoint = "keystone:5000" }, "keystoneEndpoint: scheme must be http or https"},
		"Credentials": {"a public endpoint with user info", func(s *GlanceSpec) { s.KeystonePublicEndpoint = "https://a:b@keystone" }, "keystonePublicEndpoint: must not carry credentials (user:password@); they belong in a Secret"},
		"Region":      {"a region with a space", func(s *GlanceSpec) { s.Region = "Region One" }, "region must be letters, digits, '.', '_' or '-', starting with a letter or digit"},
		"Username": {"a username with a newline", func(s *GlanceSpec) {
			s.ServiceUser = &ServiceUserSpec{Username: "glance\n[DEFAULT]", SecretRef: SecretKeyRef{Name: "u"}}
		}, "serviceUser.username contains a newline"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := GlanceSpec{}
			tc.mod(&s)
			if got := keystoneRules(s.WithDefaults("openstack")).String(); got != tc.want {
				t.Errorf("%s: got %q, want %q", tc.reason, got, tc.want)
			}
		})
	}
}
