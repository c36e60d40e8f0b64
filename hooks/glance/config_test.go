package glance

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
)

func TestMemcachedServers(t *testing.T) {
	g := &api.Glance{}
	g.Namespace = "openstack"
	type want struct {
		servers string
		err     string
	}
	cases := map[string]struct {
		reason string
		cache  api.CacheSpec
		want   want
	}{
		"Cluster": {"a memcached cluster is its Service in the namespace",
			api.CacheSpec{ClusterRef: &api.LocalObjectReference{Name: "openstack-memcached"}},
			want{servers: "openstack-memcached.openstack.svc.cluster.local:11211"}},
		"Servers": {"explicit servers, in order",
			api.CacheSpec{Servers: []string{"127.0.0.1:11211", "[::1]:11212"}},
			want{servers: "127.0.0.1:11211,[::1]:11212"}},
		"Both": {"both is refused (the webhook and the CRD refuse it too)",
			api.CacheSpec{ClusterRef: &api.LocalObjectReference{Name: "m"}, Servers: []string{"127.0.0.1:11211"}},
			want{err: "spec.cache: exactly one of clusterRef or servers must be set"}},
		"Neither": {"neither is refused, not rendered empty",
			api.CacheSpec{}, want{err: "spec.cache needs clusterRef or servers"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			servers, err := memcachedServers(g, tc.cache)
			got := want{servers: servers}
			if err != nil {
				got.err = err.Error()
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nmemcachedServers(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
