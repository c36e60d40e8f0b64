package glancestack

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/simulate/chain"
)

// Names of the guide's objects.
const (
	Namespace = "openstack"
	// ControlPlaneName is the guide's ControlPlane; its Glance is
	// names.GlanceName(ControlPlaneName), controlplane-glance.
	ControlPlaneName = "controlplane"
	// StandaloneName is the guide's standalone Glance.
	StandaloneName = "glance"
	// S3CredentialsSecret is the guide's credentials Secret for both stores.
	S3CredentialsSecret = "garage-s3-credentials"
	// DBSecret and ServiceUserSecret are the Secrets the Glance names.
	DBSecret          = api.DefaultDatabaseSecret
	ServiceUserSecret = api.DefaultServiceUserSecret
	// Bucket1 and Bucket2 are the devstack's two buckets.
	Bucket1 = "glance-images"
	Bucket2 = "glance-images-2"
	// Region is the guide's S3 region (Garage's SigV4 region).
	Region = "garage"
	// DebianMetadefs is where Debian's glance-common keeps the metadata
	// definitions the image has under /var/lib/openstack/etc/glance/metadefs.
	DebianMetadefs = "/usr/share/glance-common/metadefs"
)

// Backend is one store: a services.glance.backends[] entry of the
// ControlPlane, or a GlanceBackend of the standalone Glance.
type Backend struct {
	// Name is the entry's (or the GlanceBackend's) name, the store id.
	Name   string
	Bucket string
	// Credentials names the Secret with access-key-id and secret-access-key
	// (default S3CredentialsSecret).
	Credentials string
	IsDefault   bool
	// CABundle names a ConfigMap whose ca.crt the store's endpoint is
	// verified with (caBundleRef); "" trusts the system roots.
	CABundle string
	// Endpoint is the store's S3 URL (default the stack's S3 server's):
	// another spelling of the same server is another endpoint to a
	// NetworkPolicy.
	Endpoint string
	// Region is the store's S3 region (default Region).
	Region string
}

// GuideBackends are the guide's two stores: after Step 2 of the ControlPlane
// walkthrough ("default" the default on glance-images, "secondary" on
// glance-images-2), or the standalone section's "primary" and "secondary".
func GuideBackends(standalone bool) []Backend {
	first := "default"
	if standalone {
		first = "primary"
	}
	return []Backend{{Name: first, Bucket: Bucket1, IsDefault: true}, {Name: "secondary", Bucket: Bucket2}}
}

// spec is the part of the spec the stack fills in: the servers' addresses
// and what Debian has elsewhere than the image.
type spec struct {
	release          string
	imageTag         string
	replicas         int32
	preStop          *int64
	dbHost           string
	dbPort           int32
	database         string
	cache            string
	keystoneEndpoint string
	serviceUser      string
	s3Endpoint       string
	backends         []Backend
	dropRetired      []string
	customize        func(*api.GlanceSpec)
}

// objects are the parents to apply: the ControlPlane, or the Glance and
// its GlanceBackends.
func (s spec) objects(standalone bool) ([]chain.Object, error) {
	if standalone {
		return s.standaloneObjects()
	}
	o, err := asObject(s.controlPlane())
	return []chain.Object{o}, err
}

// controlPlane is the guide's ControlPlane with the stack's Glance and a
// backends entry per store.
func (s spec) controlPlane() api.ControlPlane {
	replicas := s.replicas
	g := &api.GlanceService{Image: s.image(), Replicas: &replicas, Database: s.databaseSpec(), Cache: s.cacheSpec(),
		KeystoneEndpoint: s.keystoneEndpoint, ServiceUser: s.serviceUserSpec(), MetadefsPath: DebianMetadefs,
		DropRetiredStores: s.dropRetired}
	if s.preStop != nil {
		g.Deployment = &api.DeploymentSpec{PreStopSleepSeconds: s.preStop}
	}
	for _, b := range s.backends {
		g.Backends = append(g.Backends, api.BackendEntry{
			Name: b.Name, Type: api.BackendTypeS3, IsDefault: b.IsDefault,
			S3: &api.S3EntryStore{Endpoint: cmp.Or(b.Endpoint, s.s3Endpoint), S3Options: storeOptions(b)}})
	}
	cp := api.ControlPlane{Spec: api.ControlPlaneSpec{OpenStackRelease: s.release, Services: api.Services{Glance: g}}}
	cp.APIVersion, cp.Kind = api.ControlPlaneAPIVersion, api.KindControlPlane
	cp.Name, cp.Namespace = ControlPlaneName, Namespace
	return cp
}

// standaloneObjects are the guide's standalone Glance, edited by customize,
// and a GlanceBackend per store.
func (s spec) standaloneObjects() ([]chain.Object, error) {
	replicas := s.replicas
	g := api.Glance{Spec: api.GlanceSpec{OpenStackRelease: s.release, Image: s.image(), Deployment: &api.DeploymentSpec{Replicas: &replicas},
		Database: s.databaseSpec(), Cache: s.cacheSpec(), KeystoneEndpoint: s.keystoneEndpoint, ServiceUser: s.serviceUserSpec(),
		MetadefsPath: DebianMetadefs, DropRetiredStores: s.dropRetired}}
	g.Spec.Deployment.PreStopSleepSeconds = s.preStop
	if s.customize != nil {
		s.customize(&g.Spec)
	}
	g.APIVersion, g.Kind, g.Name, g.Namespace = api.GlanceAPIVersion, api.KindGlance, StandaloneName, Namespace
	o, err := asObject(g)
	if err != nil {
		return nil, err
	}
	out := []chain.Object{o}
	for _, b := range s.backends {
		gb := api.GlanceBackend{Spec: api.GlanceBackendSpec{GlanceRef: api.LocalObjectReference{Name: StandaloneName},
			Type: api.BackendTypeS3, IsDefault: b.IsDefault, S3: &api.S3Store{Host: cmp.Or(b.Endpoint, s.s3Endpoint), S3Options: storeOptions(b)}}}
		gb.APIVersion, gb.Kind, gb.Name, gb.Namespace = api.GlanceAPIVersion, api.KindGlanceBackend, b.Name, Namespace
		o, err := asObject(gb)
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, nil
}

// image overrides the image's tag only when the stack was given one.
func (s spec) image() *api.ImageSpec {
	if s.imageTag == "" {
		return nil
	}
	return &api.ImageSpec{Tag: s.imageTag}
}

func (s spec) databaseSpec() *api.DatabaseSpec {
	port := s.dbPort
	return &api.DatabaseSpec{Host: s.dbHost, Port: &port, Database: s.database,
		SecretRef: api.SecretKeyRef{Name: DBSecret}}
}

func (s spec) cacheSpec() *api.CacheSpec { return &api.CacheSpec{Servers: []string{s.cache}} }

func (s spec) serviceUserSpec() *api.ServiceUserSpec {
	return &api.ServiceUserSpec{Username: s.serviceUser, ProjectName: api.DefaultServiceProject,
		UserDomainName: api.DefaultServiceDomain, ProjectDomainName: api.DefaultServiceDomain,
		SecretRef: api.SecretKeyRef{Name: ServiceUserSecret, Key: api.DefaultServiceUserPassKey}}
}

// storeOptions are a store's bucket, region, credentials and CA bundle.
func storeOptions(b Backend) api.S3Options {
	cred := b.Credentials
	if cred == "" {
		cred = S3CredentialsSecret
	}
	region := b.Region
	if region == "" {
		region = Region
	}
	o := api.S3Options{Bucket: b.Bucket, Region: region, CredentialsSecretRef: api.LocalObjectReference{Name: cred}}
	if b.CABundle != "" {
		o.CABundleRef = &api.CABundleRef{Name: b.CABundle}
	}
	return o
}

// glanceName is the Glance the stack runs.
func glanceName(standalone bool) string {
	if standalone {
		return StandaloneName
	}
	return names.GlanceName(ControlPlaneName)
}

// secretObject is an Opaque Secret with string data.
func secretObject(name string, data map[string]string) chain.Object {
	return chain.Object{"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
		"metadata": map[string]any{"name": name, "namespace": Namespace}, "stringData": anyValues(data)}
}

// configMapObject is a ConfigMap with string data.
func configMapObject(name string, data map[string]string) chain.Object {
	return chain.Object{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": name, "namespace": Namespace}, "data": anyValues(data)}
}

// anyValues is data in the JSON shape the World keeps.
func anyValues(data map[string]string) map[string]any {
	out := make(map[string]any, len(data))
	for k, v := range data {
		out[k] = v
	}
	return out
}

// conditionOf is "Status/Reason" of an object's condition, or "absent".
func conditionOf(o chain.Object, typ string) string {
	if m, ok := chain.Condition(o, typ); ok {
		return fmt.Sprintf("%v/%v", m["status"], m["reason"])
	}
	return "absent"
}

// asObject turns a typed object into the JSON shape the World keeps, without
// an empty status (the API server would not store one from a client).
func asObject(v any) (chain.Object, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var o chain.Object
	if err := json.Unmarshal(raw, &o); err != nil {
		return nil, err
	}
	delete(o, "status")
	meta, _ := o["metadata"].(map[string]any)
	delete(meta, "creationTimestamp")
	return o, nil
}

func port(p int) int32 {
	if p <= 0 || p > 65535 {
		panic("glancestack: port " + strconv.Itoa(p))
	}
	return int32(p)
}
