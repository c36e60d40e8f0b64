package datapath

import (
	"bytes"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/test/glancestack"
	"github.com/c5c3/glance-hooks/test/services"
)

// referenceExample runs the Glance of examples/reference/glance.yaml, the
// reference API's own example, on real processes: its spec as written, but
// for where the servers are on this machine (the example names cluster
// Services for the database, memcached and Keystone, and a Secret for a
// Keystone user this machine's Keystone does not have). Its three replicas
// serve: an upload through one lands in the example's one store, and a
// download through another returns it byte for byte.
func referenceExample(t *testing.T, svc *glancestack.Services) {
	example := referenceGlanceSpec(t)
	st := glancestack.New(t, svc, glancestack.Options{
		Standalone: true, Database: "glance_reference", Release: example.OpenStackRelease,
		Backends: []glancestack.Backend{{Name: "primary", Bucket: glancestack.Bucket1, IsDefault: true}},
		Customize: func(s *api.GlanceSpec) {
			here := *s
			*s = example
			s.Database, s.Cache, s.KeystoneEndpoint, s.ServiceUser = here.Database, here.Cache, here.KeystoneEndpoint, here.ServiceUser
			s.MetadefsPath = here.MetadefsPath
		},
	})
	st.Reconcile(t)
	pods := st.Pods()
	require.Len(t, pods, int(*example.Deployment.Replicas), "the example's replicas run")

	data := randomBytes(31, 1<<20+7)
	id := st.Client(t, pods[0]).UploadActive(t, "reference-example", data, "", "primary")
	assert.Equal(t, map[string]services.S3Object{id: services.ObjectOf(data)}, st.S3.Objects(t, glancestack.Bucket1)[glancestack.Bucket1],
		"bucket %s, the example's store, holds the image", glancestack.Bucket1)
	assert.True(t, bytes.Equal(data, st.Client(t, pods[len(pods)-1]).Download(t, id)), "another replica serves the image byte for byte")
}

// referenceGlanceSpec is the spec of the Glance in
// examples/reference/glance.yaml.
func referenceGlanceSpec(t *testing.T) api.GlanceSpec {
	t.Helper()
	raw, err := os.ReadFile("../../examples/reference/glance.yaml")
	require.NoError(t, err)
	for _, doc := range bytes.Split(raw, []byte("\n---\n")) {
		var kind struct{ Kind string }
		require.NoError(t, yaml.Unmarshal(doc, &kind))
		if kind.Kind == api.KindGlance {
			var g api.Glance
			require.NoError(t, yaml.UnmarshalStrict(doc, &g), "the example's Glance has only fields of the API")
			require.NotNil(t, g.Spec.Deployment, "the example sets spec.deployment")
			require.NotNil(t, g.Spec.Deployment.Replicas, "the example sets spec.deployment.replicas")
			return g.Spec
		}
	}
	t.Fatal("examples/reference/glance.yaml holds no Glance")
	return api.GlanceSpec{}
}
