package render

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/simulate/chain"
)

// credentials are the S3 key pair of the stores and the Secrets a Glance
// names for its database and its service user.
const credentials = `apiVersion: v1
kind: Secret
metadata: {name: garage-s3-credentials, namespace: openstack}
stringData: {access-key-id: GKexample0001, secret-access-key: plaintext-secret-0001}
---
apiVersion: v1
kind: Secret
metadata: {name: glance-db, namespace: openstack}
stringData: {username: glance, password: plaintext-db-password-0001}
---
apiVersion: v1
kind: Secret
metadata: {name: glance-service-user, namespace: openstack}
stringData: {password: plaintext-service-password-0001}
`

// keystoneAdmin is the admin exports a ControlPlane registers its Glance
// in Keystone with (the registration Job, simulated, then succeeds).
const keystoneAdmin = `apiVersion: v1
kind: Secret
metadata: {name: keystone-admin, namespace: openstack}
stringData: {OS_AUTH_URL: "http://keystone.openstack.svc.cluster.local:5000/v3", OS_USERNAME: admin, OS_PASSWORD: plaintext-admin-0001, OS_PROJECT_NAME: admin}
`

func controlPlane(defaultEntry string) string {
	entry := func(name, bucket string) string {
		return fmt.Sprintf(`
        - name: %s
          type: S3
          isDefault: %t
          s3:
            endpoint: http://garage.shared-services.svc.cluster.local:3900
            bucket: %s
            region: garage
            credentialsSecretRef: {name: garage-s3-credentials}`, name, name == defaultEntry, bucket)
	}
	return `apiVersion: c5c3.io/v1alpha1
kind: ControlPlane
metadata: {name: controlplane, namespace: openstack}
spec:
  services:
    glance:
      backends:` + entry("default", "glance-images") + entry("secondary", "glance-images-2") + "\n"
}

const glance = `apiVersion: glance.openstack.c5c3.io/v1alpha1
kind: Glance
metadata: {name: glance, namespace: openstack}
spec:
  openStackRelease: "2025.2"
  keystoneEndpoint: http://keystone.openstack.svc.cluster.local:5000/v3
`

func backend(name, glanceName, secret string, isDefault bool) string {
	return fmt.Sprintf(`apiVersion: glance.openstack.c5c3.io/v1alpha1
kind: GlanceBackend
metadata: {name: %s, namespace: openstack}
spec:
  glanceRef: {name: %s}
  type: S3
  isDefault: %t
  s3:
    host: http://garage.shared-services.svc.cluster.local:3900
    bucket: bucket-%s
    region: garage
    credentialsSecretRef: {name: %s}
`, name, glanceName, isDefault, name, secret)
}

func stream(docs ...string) string {
	var b bytes.Buffer
	for _, d := range docs {
		b.WriteString("---\n")
		b.WriteString(d)
	}
	return b.String()
}

func parse(t *testing.T, docs ...string) []Doc {
	t.Helper()
	d, err := Parse([]byte(stream(docs...)), "in.yaml", "default")
	require.NoError(t, err)
	return d
}

func mustRender(t *testing.T, docs ...string) *State {
	t.Helper()
	s, err := Render(parse(t, docs...), Options{})
	require.NoError(t, err)
	require.True(t, s.Converged)
	return s
}

func find(objs []chain.Object, kind, name string) chain.Object {
	for _, o := range objs {
		if r := chain.RefOf(o); r.Kind == kind && r.Name == name {
			return o
		}
	}
	return nil
}

func condition(o chain.Object, typ string) string {
	for _, c := range ConditionsOf(o) {
		if c.Type == typ {
			return c.Status + "/" + c.Reason
		}
	}
	return "absent"
}

func yamlOf(t *testing.T, objs []chain.Object, opts OutputOptions) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, WriteYAML(&b, objs, opts))
	return b.String()
}

func replaceAll(s, old, new string) string { return strings.ReplaceAll(s, old, new) }
