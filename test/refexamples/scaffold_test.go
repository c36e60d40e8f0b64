package refexamples

import (
	"encoding/json"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/controlplane"
	"github.com/c5c3/glance-hooks/simulate/chain"
	"github.com/c5c3/glance-hooks/simulate/render"
)

// Scaffold is what an example needs around it and does not publish: the
// Secrets it names (placeholder values), and, for a Glance no example of
// its set attaches a store to, a default GlanceBackend (the reference's
// own GlanceBackend example, pointed at that Glance), since glance-api
// starts only with a default store. Nothing in an example is changed.
func Scaffold(examples []render.Doc) []render.Doc {
	s := scaffold{seen: map[string]bool{}}
	backends := docsOf(examples, api.KindGlanceBackend)
	glances := docsOf(examples, api.KindGlance)
	for _, cp := range docsOf(examples, api.KindControlPlane) {
		s.controlPlane(cp)
	}
	for _, g := range glances {
		s.glance(g, attached(backends, namespaceOf(g), str(g, "metadata", "name")))
	}
	for _, b := range backends {
		ns, glance := namespaceOf(b), str(b, "spec", "glanceRef", "name")
		s.secret(ns, str(b, "spec", "s3", "credentialsSecretRef", "name"), "access-key-id", "secret-access-key")
		if !named(glances, ns, glance) {
			// A backend shown alone: the guide's standalone Glance, named
			// as the backend names it.
			g := standaloneGlance(ns, glance)
			s.add(g)
			s.glance(g, true)
		}
	}
	return s.docs
}

// glance adds what a Glance names: the Secrets of its database and
// service user (by their defaults when unset), the External Secrets store
// it waits for (Ready, as its controller leaves it), and a default store
// unless one of the set is attached.
func (s *scaffold) glance(o chain.Object, hasBackend bool) {
	var g api.Glance
	raw, _ := json.Marshal(o)
	_ = json.Unmarshal(raw, &g) // render.Parse read it already
	ns := namespaceOf(o)
	spec := g.Spec.WithDefaults(ns)
	s.secret(ns, spec.Database.SecretRef.Name, "username", "password")
	s.secret(ns, spec.ServiceUser.SecretRef.Name, or(spec.ServiceUser.SecretRef.Key, "password"))
	if ref := spec.SecretStoreRef; ref != nil {
		s.add(readyStore(ns, or(ref.Kind, "ClusterSecretStore"), ref.Name))
	}
	if !hasBackend {
		s.add(defaultBackend(ns, g.Name))
		s.secret(ns, scaffoldCredentials, "access-key-id", "secret-access-key")
	}
}

// controlPlane adds what a ControlPlane that runs Glance names: the
// Secrets of the Glance it projects, of its stores, and the admin
// credentials it registers the Glance in Keystone with.
func (s *scaffold) controlPlane(o chain.Object) {
	var cp api.ControlPlane
	raw, _ := json.Marshal(o)
	_ = json.Unmarshal(raw, &cp) // render.Parse read it already
	svc := cp.Spec.Services.Glance
	if svc == nil {
		return
	}
	ns := namespaceOf(o)
	cp.Namespace = ns
	spec := controlplane.GlanceSpec(&cp)
	s.secret(ns, spec.Database.SecretRef.Name, "username", spec.Database.SecretRef.Key)
	s.secret(ns, spec.ServiceUser.SecretRef.Name, or(spec.ServiceUser.SecretRef.Key, "password"))
	for _, b := range svc.Backends {
		if b.S3 != nil {
			s.secret(ns, b.S3.CredentialsSecretRef.Name, "access-key-id", "secret-access-key")
		}
	}
	s.add(chain.Object{"apiVersion": "v1", "kind": "Secret",
		"metadata": map[string]any{"name": svc.Registration(cp.Name, ns).AdminCredentialsSecretRef.Name, "namespace": ns},
		"stringData": map[string]any{"OS_AUTH_URL": "http://keystone." + ns + ".svc.cluster.local:5000/v3", "OS_USERNAME": "admin",
			"OS_PASSWORD": "scaffold-password-0001", "OS_PROJECT_NAME": "admin", "OS_USER_DOMAIN_NAME": "Default", "OS_PROJECT_DOMAIN_NAME": "Default"}})
}

// readyStore is an External Secrets store as its controller leaves a
// working one.
func readyStore(ns, kind, name string) chain.Object {
	md := map[string]any{"name": name}
	if kind == "SecretStore" {
		md["namespace"] = ns
	}
	return chain.Object{"apiVersion": "external-secrets.io/v1", "kind": kind, "metadata": md,
		"spec":   map[string]any{"provider": map[string]any{"fake": map[string]any{"data": []any{}}}},
		"status": map[string]any{"capabilities": "ReadWrite", "conditions": []any{map[string]any{"type": "Ready", "status": "True", "reason": "Valid", "message": "store validated", "lastTransitionTime": "2026-01-01T00:00:00Z"}}}}
}

// standaloneGlance is the guide's standalone Glance under another name.
func standaloneGlance(ns, name string) chain.Object {
	return chain.Object{"apiVersion": api.GlanceAPIVersion, "kind": api.KindGlance,
		"metadata": map[string]any{"name": name, "namespace": ns},
		"spec": map[string]any{
			"openStackRelease": "2025.2",
			"image":            map[string]any{"repository": "ghcr.io/c5c3/glance", "tag": "2025.2"},
			"database":         map[string]any{"clusterRef": map[string]any{"name": "openstack-db"}, "database": "glance", "secretRef": map[string]any{"name": "glance-db"}},
			"cache":            map[string]any{"clusterRef": map[string]any{"name": "openstack-memcached"}},
			"keystoneEndpoint": "http://keystone.openstack.svc.cluster.local:5000/v3",
			"serviceUser":      map[string]any{"secretRef": map[string]any{"name": "glance-service-user", "key": "password"}},
		}}
}

// named reports whether the set holds the Glance.
func named(glances []chain.Object, ns, name string) bool {
	for _, g := range glances {
		if namespaceOf(g) == ns && str(g, "metadata", "name") == name {
			return true
		}
	}
	return false
}

// scaffoldCredentials is the S3 Secret of a scaffolded default store.
const scaffoldCredentials = "scaffold-s3-credentials"

type scaffold struct {
	docs []render.Doc
	seen map[string]bool
}

func (s *scaffold) add(o chain.Object) {
	key := str(o, "kind") + "/" + namespaceOf(o) + "/" + str(o, "metadata", "name")
	if s.seen[key] {
		return
	}
	s.seen[key] = true
	s.docs = append(s.docs, render.Doc{Object: o, Source: "scaffold"})
}

// secret adds a Secret holding placeholder values under keys.
func (s *scaffold) secret(ns, name string, keys ...string) {
	if name == "" {
		return
	}
	data := map[string]any{}
	for _, k := range keys {
		data[k] = "scaffold-" + k + "-0001"
	}
	s.add(chain.Object{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": name, "namespace": ns}, "stringData": data})
}

// defaultBackend is the reference's GlanceBackend example (garage-a),
// attached to the Glance named glance.
func defaultBackend(ns, glance string) chain.Object {
	return chain.Object{
		"apiVersion": api.GlanceAPIVersion, "kind": api.KindGlanceBackend,
		"metadata": map[string]any{"name": glance + "-scaffold", "namespace": ns},
		"spec": map[string]any{
			"glanceRef": map[string]any{"name": glance}, "type": "S3", "isDefault": true,
			"s3": map[string]any{
				"host": "http://garage.shared-services.svc.cluster.local:3900", "bucket": "glance-images", "region": "garage",
				"credentialsSecretRef": map[string]any{"name": scaffoldCredentials},
			},
		},
	}
}

// attached reports whether a backend of the set points at the Glance.
func attached(backends []chain.Object, ns, glance string) bool {
	for _, b := range backends {
		if namespaceOf(b) == ns && str(b, "spec", "glanceRef", "name") == glance {
			return true
		}
	}
	return false
}

func namespaceOf(o chain.Object) string { return or(str(o, "metadata", "namespace"), Namespace) }

func or(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// str is the string at path in o, "" when there is none.
func str(o chain.Object, path ...string) string {
	var v any = o
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return ""
		}
		v = m[p]
	}
	s, _ := v.(string)
	return s
}
