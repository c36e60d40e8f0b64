package api

import "testing"

// TestCacheRules: the token cache's part names a memcached one way, with
// servers a client can dial and a backend oslo.cache can import.
func TestCacheRules(t *testing.T) {
	cases := map[string]struct {
		reason string
		cache  *CacheSpec
		want   string
	}{
		"Default":    {"the conventional memcached passes", nil, ""},
		"Servers":    {"servers with ports, IPv6 in brackets", &CacheSpec{Servers: []string{"memcached:11211", "[::1]:11212"}}, ""},
		"Both":       {"a cluster and servers at once", &CacheSpec{ClusterRef: &LocalObjectReference{Name: "m"}, Servers: []string{"memcached:11211"}}, "cache: exactly one of clusterRef or servers must be set"},
		"EmptyRef":   {"a cluster without a name", &CacheSpec{ClusterRef: &LocalObjectReference{}}, "cache.clusterRef.name is required"},
		"NoPort":     {"a server without its port", &CacheSpec{Servers: []string{"memcached"}}, "cache.servers[0] must be host:port (an IPv6 address in brackets)"},
		"BadPort":    {"a port that is no number", &CacheSpec{Servers: []string{"memcached:1x"}}, "cache.servers[0] must be host:port (an IPv6 address in brackets)"},
		"PortZero":   {"port 0 is no port", &CacheSpec{Servers: []string{"memcached:0"}}, "cache.servers[0] must be host:port (an IPv6 address in brackets)"},
		"ServerLine": {"a newline after the port, in the reference's words", &CacheSpec{Servers: []string{"memcached:11211\n"}}, "cache.servers[0]: " + cacheLineBreak},
		"RefLine":    {"a newline in the cluster's name, in the reference's words", &CacheSpec{ClusterRef: &LocalObjectReference{Name: "m\r"}}, "cache.clusterRef.name: " + cacheLineBreak},
		"RefTab":     {"another control character, in this project's words", &CacheSpec{ClusterRef: &LocalObjectReference{Name: "m\tx"}}, "cache.clusterRef.name contains a tab"},
		"BadBackend": {"a backend that is no dotted name", &CacheSpec{Backend: "dogpile cache", Servers: []string{"memcached:11211"}}, "cache.backend must be an oslo.cache backend's dotted name, e.g. dogpile.cache.pymemcache"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := GlanceSpec{Cache: tc.cache}.WithDefaults("openstack")
			if got := cacheRules(s).String(); got != tc.want {
				t.Errorf("%s: got %q, want %q", tc.reason, got, tc.want)
			}
		})
	}
}
