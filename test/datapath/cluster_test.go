package datapath

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/yaml"

	"github.com/c5c3/glance-hooks/internal/simulate/chain"
)

const namespace = "openstack"

// cluster is the in-process Metacontroller + API server with this service's
// controllers.
type cluster struct {
	t *testing.T
	w *chain.World
}

func newCluster(t *testing.T) *cluster {
	return &cluster{t: t, w: chain.NewWorld(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))}
}

// apply applies one YAML document, as kubectl apply would.
func (c *cluster) apply(doc string) {
	c.t.Helper()
	var o map[string]any
	if err := yaml.Unmarshal([]byte(doc), &o); err != nil {
		c.t.Fatalf("%v in:\n%s", err, doc)
	}
	if err := c.w.Apply(o); err != nil {
		c.t.Fatal(err)
	}
}

// converge runs the three controllers until nothing changes.
func (c *cluster) converge() {
	c.t.Helper()
	res, err := c.w.Run(chain.Controllers(), 30)
	if err != nil {
		c.t.Fatal(err)
	}
	if !res.Converged {
		c.t.Fatalf("the hooks did not converge in %d rounds", res.Rounds)
	}
}

func (c *cluster) get(apiVersion, kind, name string) chain.Object {
	c.t.Helper()
	o, ok := c.w.Get(chain.Ref{APIVersion: apiVersion, Kind: kind, Namespace: namespace, Name: name})
	if !ok {
		c.t.Fatalf("%s %s/%s does not exist", kind, namespace, name)
	}
	return o
}

func (c *cluster) deployment(name string) *appsv1.Deployment {
	c.t.Helper()
	raw, _ := json.Marshal(c.get("apps/v1", "Deployment", name))
	var d appsv1.Deployment
	if err := json.Unmarshal(raw, &d); err != nil {
		c.t.Fatal(err)
	}
	return &d
}

// configMapData and secretData are what a volume of the object holds, file
// name -> bytes.
func (c *cluster) configMapData(name string) map[string][]byte {
	c.t.Helper()
	out := map[string][]byte{}
	data, _ := c.get("v1", "ConfigMap", name)["data"].(map[string]any)
	for k, v := range data {
		out[k] = []byte(v.(string))
	}
	return out
}

func (c *cluster) secretData(name string) map[string][]byte {
	c.t.Helper()
	out := map[string][]byte{}
	data, _ := c.get("v1", "Secret", name)["data"].(map[string]any)
	for k, v := range data {
		b, err := base64.StdEncoding.DecodeString(v.(string))
		if err != nil {
			c.t.Fatalf("Secret %s key %s: %v", name, k, err)
		}
		out[k] = b
	}
	return out
}

// condition is "Status/Reason" of a condition, or "absent".
func (c *cluster) condition(apiVersion, kind, name, typ string) string {
	c.t.Helper()
	st, _ := c.get(apiVersion, kind, name)["status"].(map[string]any)
	conds, _ := st["conditions"].([]any)
	for _, x := range conds {
		m, _ := x.(map[string]any)
		if m["type"] == typ {
			return fmt.Sprintf("%v/%v", m["status"], m["reason"])
		}
	}
	return "absent"
}

// credentialsSecret is a Secret with the two fixed keys a GlanceBackend
// reads. yaml.Marshal quotes the values, so any byte survives.
func credentialsSecret(name, access, secret string) string {
	out, _ := yaml.Marshal(map[string]any{
		"apiVersion": "v1", "kind": "Secret",
		"metadata":   map[string]any{"name": name, "namespace": namespace},
		"stringData": map[string]any{"access-key-id": access, "secret-access-key": secret},
	})
	return string(out)
}

// configMap is a ConfigMap with the data given.
func configMap(name string, data map[string]string) string {
	out, _ := yaml.Marshal(map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": name, "namespace": namespace},
		"data":     data,
	})
	return string(out)
}

// secret is an Opaque Secret; yaml.Marshal quotes the values.
func secret(name string, data map[string]string) string {
	out, _ := yaml.Marshal(map[string]any{
		"apiVersion": "v1", "kind": "Secret",
		"metadata":   map[string]any{"name": name, "namespace": namespace},
		"stringData": data,
	})
	return string(out)
}

// entry is one services.glance.backends[] entry of the guide's ControlPlane.
type entry struct {
	name, bucket, credentials string
	isDefault                 bool
	// caBundle names a ConfigMap holding the entry's CA bundle at ca.crt.
	caBundle string
}

// controlPlane is the guide's Step 2 ControlPlane, pointed at the loopback
// S3 server, with glance holding more of services.glance (YAML at its
// indentation). bucketURLFormat is left out, as in the guide: path style is
// the default the hooks must render.
func controlPlane(endpoint, region, glance string, entries ...entry) string {
	var b strings.Builder
	b.WriteString(`apiVersion: c5c3.io/v1alpha1
kind: ControlPlane
metadata: {name: controlplane, namespace: openstack}
spec:
  services:
    glance:
      ` + glance + `
      backends:
`)
	for _, e := range entries {
		fmt.Fprintf(&b, `        - name: %s
          type: S3
          isDefault: %t
          s3:
            endpoint: %s
            bucket: %s
            region: %s
            credentialsSecretRef:
              name: %s
`, e.name, e.isDefault, endpoint, e.bucket, region, e.credentials)
		if e.caBundle != "" {
			fmt.Fprintf(&b, "            caBundleRef:\n              name: %s\n", e.caBundle)
		}
	}
	return b.String()
}
