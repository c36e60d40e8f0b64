package datapath

import (
	"encoding/json"
	"net"
	"net/url"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/test/glancestack"
	"github.com/c5c3/glance-hooks/test/netpolicy"
	"github.com/c5c3/glance-hooks/test/services"
)

// reachBehindAPolicy runs the standalone Glance with spec.gateway and
// spec.networkPolicy on the real components: glance-api serves as without
// them, status.endpoint is the gateway's URL, and the NetworkPolicy the
// hooks derived allows every server the running glance-api reaches (the
// database, memcached, Keystone, S3) on its real address and port. A
// store then attached on another spelling of the S3 server (localhost for
// 127.0.0.1: another endpoint to a policy) waits for the policy to allow it
// and then takes an image. No CNI runs here, so nothing filters packets:
// what is proven is that the derived egress names what glance-api really
// dials, and that holding a store for it leaves the data path working.
func reachBehindAPolicy(t *testing.T, svc *glancestack.Services, unstable bool) {
	guide := glancestack.GuideBackends(true)
	o := glancestack.Options{Database: "glance_reach", Standalone: true,
		S3: services.S3Options{Buckets: []string{glancestack.Bucket1, glancestack.Bucket2, archiveBucket}},
		Customize: func(s *api.GlanceSpec) {
			s.Gateway = &api.GatewaySpec{Hostname: "images.example.com", ParentRef: api.GatewayParentRef{Name: "edge"}}
			s.NetworkPolicy = &api.NetworkPolicySpec{Ingress: []api.NetworkPolicySource{{NamespaceSelector: &metav1.LabelSelector{}}}}
		}}
	if unstable {
		o = onUnstable(t, o)
	}
	st := glancestack.New(t, svc, o)
	st.Reconcile(t)
	c := st.Client(t, onlyPod(t, st))
	require.Equal(t, map[string]bool{"primary": true, "secondary": false}, c.Stores(t))
	assert.Equal(t, "https://images.example.com/", st.Status(t).Endpoint)
	np := apiPolicy(t, st)
	ks, err := url.Parse(svc.Keystone.URL)
	require.NoError(t, err)
	for what, addr := range map[string]string{"MariaDB": svc.DB.Addr(), "memcached": svc.Memcached.Addr(), "Keystone": ks.Host, "S3": hostOf(t, st.S3.Endpoint)} {
		host, port := splitHostPort(t, addr)
		assert.True(t, netpolicy.EgressAllows(np, host, port), "the policy allows %s at %s", what, addr)
	}

	u, err := url.Parse(st.S3.Endpoint)
	require.NoError(t, err)
	archive := glancestack.Backend{Name: "archive", Bucket: archiveBucket, Endpoint: "http://localhost:" + u.Port()}
	st.SetBackends(t, append(guide, archive)...)
	st.Reconcile(t)
	c = st.Client(t, onlyPod(t, st))
	require.Equal(t, map[string]bool{"primary": true, "secondary": false, "archive": false}, c.Stores(t))
	port, _ := strconv.Atoi(u.Port())
	assert.True(t, netpolicy.EgressAllows(apiPolicy(t, st), "localhost", port), "the policy allows the new endpoint")
	assert.Equal(t, "True/NetworkPolicyReady", st.Condition(t, "Glance", st.Glance, "NetworkPolicyReady"))
	img := randomBytes(41, 300<<10+7)
	id := c.UploadActive(t, "behind-a-policy", img, "archive", "archive")
	assert.Equal(t, img, c.Download(t, id))
}

// apiPolicy is the glance-api pods' NetworkPolicy the stack holds.
func apiPolicy(t *testing.T, st *glancestack.Stack) networkingv1.NetworkPolicySpec {
	t.Helper()
	raw, err := json.Marshal(st.Get(t, "networking.k8s.io/v1", "NetworkPolicy", st.Glance))
	require.NoError(t, err)
	var np struct {
		Spec networkingv1.NetworkPolicySpec `json:"spec"`
	}
	require.NoError(t, json.Unmarshal(raw, &np))
	return np.Spec
}

func hostOf(t *testing.T, raw string) string {
	u, err := url.Parse(raw)
	require.NoError(t, err)
	return u.Host
}

func splitHostPort(t *testing.T, addr string) (string, int) {
	host, p, err := net.SplitHostPort(addr)
	require.NoError(t, err)
	port, err := strconv.Atoi(p)
	require.NoError(t, err)
	return host, port
}
