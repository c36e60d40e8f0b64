package glancestack

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/glance"
	"github.com/c5c3/glance-hooks/simulate/chain"
	"github.com/c5c3/glance-hooks/test/podrun"
	"github.com/c5c3/glance-hooks/test/proc"
	"github.com/c5c3/glance-hooks/test/services"
)

// Options shape a stack; every field has a default.
type Options struct {
	// Release is openStackRelease (default 2025.2, the eventlet server;
	// from 2026.1 glance-api runs under uWSGI).
	Release string
	// ImageTag overrides the image's tag (default: the release).
	ImageTag string
	// Standalone runs the guide's standalone Glance "glance" and its
	// GlanceBackends instead of the ControlPlane.
	Standalone bool
	// Replicas of glance-api, written into the Glance or ControlPlane
	// (default 1, not the hooks' default: every pod is a real glance-api
	// process, and a test that needs several says so).
	Replicas int32
	// PreStopSleepSeconds is spec.deployment.preStopSleepSeconds of the
	// Glance or the ControlPlane's copy (nil: the rendered default).
	PreStopSleepSeconds *int64
	// Database and DBUser are the stack's database and its user on the
	// shared MariaDB (default glance and glance, as the guide's devstack
	// has them); stacks of one Services need names of their own. DBUser
	// defaults to Database.
	Database, DBUser string
	// DBPassword is the user's password in Secret glance-db (default
	// Password()).
	DBPassword string
	// ServiceUser is glance's Keystone user (default glance), made once
	// per Services with a Password().
	ServiceUser string
	// Backends are the stores (default GuideBackends(Standalone)).
	Backends []Backend
	// S3 configures the stack's S3 server. Buckets default to Bucket1 and
	// Bucket2; the region to S3Region(); the key pair to a random access
	// key and a secret key holding '$' and '%'.
	S3 services.S3Options
	// Customize edits the standalone Glance's spec after the stack filled
	// it in: the feature blocks a proof turns on (only with Standalone).
	Customize func(*api.GlanceSpec)
	// Controllers are the hooks the stack's World calls (default
	// chain.Controllers(): the service's hooks, checking no store).
	Controllers []chain.Controller
	// Pods are podrun's options for every pod the stack runs (PATH and
	// timeouts). MaxGracePeriod defaults to a minute, so the rendered
	// terminationGracePeriodSeconds is what a stop gets.
	Pods podrun.Options
	// ImageRoots are the systems the pods of some images run in
	// (podrun.Options.Root), by the glance container's image, as a
	// kubelet runs each image's own file system: a release that moves to
	// another image then moves to another Glance. The pods of an image
	// not listed run in Pods.Root.
	ImageRoots map[string]string
}

// Stack is one Glance with its own database, S3 server and in-process
// hooks, on shared Services.
type Stack struct {
	Services *Services
	S3       *services.S3
	World    *chain.World
	// Glance is the name of the Glance the stack runs.
	Glance string
	// Database, DBUser and DBPassword are what Secret glance-db holds and
	// the database they open.
	Database, DBUser, DBPassword string
	// ServiceUser is glance's Keystone user, its password in Secret
	// glance-service-user.
	ServiceUser services.Credentials
	// Versions are Debian's glance and glance_store (in Pods.Root).
	Versions Versions

	owner       testing.TB
	controllers []chain.Controller
	standalone  bool
	podOpts     podrun.Options
	imageRoots  map[string]string
	spec        spec

	mu     sync.Mutex
	pods   []*Pod
	jobs   []JobRun
	events []Event
	// proxy is the stand-in Service, when one runs (StartServiceProxy).
	proxy *ServiceProxy
	// podArgs are added to every pod started from now on (AddPodArgs).
	podArgs []string
}

// New makes a stack's database and user, its S3 server with the buckets,
// and the World holding the Secrets the Glance names and the parents
// (the ControlPlane, or the Glance and its GlanceBackends). Nothing runs
// until Reconcile. What the stack starts lives as long as t.
func New(t testing.TB, svc *Services, o Options) *Stack {
	t.Helper()
	v := VersionsIn(t, o.Pods.Root)
	o = o.withDefaults(v)
	svc.claimDatabase(t, o.Database, o.DBUser)
	svc.DB.CreateDatabase(t, o.Database)
	svc.DB.CreateUser(t, o.DBUser, o.DBPassword, o.Database)
	s := &Stack{
		Services: svc, Glance: glanceName(o.Standalone), Database: o.Database, DBUser: o.DBUser, DBPassword: o.DBPassword,
		ServiceUser: svc.ServiceUser(t, o.ServiceUser), Versions: v,
		owner: t, standalone: o.Standalone, podOpts: o.Pods, imageRoots: o.ImageRoots, controllers: o.Controllers,
		S3:    services.StartS3(t, o.S3),
		World: chain.NewWorld(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)),
	}
	// The stack is the Job and Deployment controllers.
	s.World.Rollouts = false
	s.World.JobResult = chain.JobsRunUntilFinished
	s.podOpts.Redact = append(s.podOpts.Redact, o.DBPassword, s.ServiceUser.Password, o.S3.SecretKey)
	s.spec = spec{
		release: o.Release, imageTag: o.ImageTag, replicas: o.Replicas, preStop: o.PreStopSleepSeconds,
		dbHost: svc.DB.Host, dbPort: port(svc.DB.Port), database: o.Database,
		cache: svc.Memcached.Addr(), keystoneEndpoint: svc.Keystone.URL, serviceUser: o.ServiceUser,
		s3Endpoint: s.S3.Endpoint, backends: o.Backends, customize: o.Customize,
	}
	if o.Customize != nil && !o.Standalone {
		t.Fatal("glancestack: Customize edits the standalone Glance; set Standalone")
	}
	s.Apply(t, secretObject(S3CredentialsSecret, map[string]string{"access-key-id": o.S3.AccessKey, "secret-access-key": o.S3.SecretKey}))
	s.Apply(t, secretObject(DBSecret, map[string]string{api.DatabaseUsernameKey: o.DBUser, api.DatabasePasswordKey: o.DBPassword}))
	s.Apply(t, secretObject(ServiceUserSecret, map[string]string{api.DefaultServiceUserPassKey: s.ServiceUser.Password}))
	s.applySpec(t)
	return s
}

// withDefaults fills in what o leaves unset; v gives the S3 region the
// installed glance_store signs with.
func (o Options) withDefaults(v Versions) Options {
	if o.Release == "" {
		o.Release = api.DefaultOpenStackRelease
	}
	if o.Replicas == 0 {
		o.Replicas = 1
	}
	if o.Database == "" {
		o.Database = api.DefaultDatabaseName
	}
	if o.DBUser == "" {
		o.DBUser = o.Database
	}
	if o.DBPassword == "" {
		o.DBPassword = Password()
	}
	if o.ServiceUser == "" {
		o.ServiceUser = api.DefaultServiceUsername
	}
	if o.Backends == nil {
		o.Backends = GuideBackends(o.Standalone)
	}
	if o.Pods.MaxGracePeriod == 0 {
		o.Pods.MaxGracePeriod = time.Minute
	}
	if o.Controllers == nil {
		o.Controllers = chain.Controllers()
	}
	o.S3 = S3Defaults(o.S3, v)
	return o
}

// S3Defaults are the stack's S3 server's: the devstack's buckets, the
// region glance_store v signs with, and keys that are hard to quote. A
// test that starts a second S3 server for a stack's store gives both the
// same keys from here.
func S3Defaults(o services.S3Options, v Versions) services.S3Options {
	if o.Buckets == nil {
		o.Buckets = []string{Bucket1, Bucket2}
	}
	if o.Region == "" {
		o.Region = v.S3Region()
	}
	if o.AccessKey == "" {
		o.AccessKey = "GK" + strings.ToLower(services.RandomSecret()[:16])
	}
	if o.SecretKey == "" {
		// "$host" would be oslo.config's interpolation of [DEFAULT] host,
		// "%2F" a '/' to anything that URL-decodes it.
		o.SecretKey = services.RandomSecret()[:12] + "$host%2F$$x%%y$"
	}
	return o
}

// Apply writes an object into the World as kubectl apply would.
func (s *Stack) Apply(t testing.TB, o chain.Object) {
	t.Helper()
	if err := s.World.Apply(o); err != nil {
		t.Fatal(err)
	}
}

// ApplySecret writes an Opaque Secret with string data.
func (s *Stack) ApplySecret(t testing.TB, name string, data map[string]string) {
	t.Helper()
	s.Apply(t, secretObject(name, data))
}

// ApplyConfigMap writes a ConfigMap with string data.
func (s *Stack) ApplyConfigMap(t testing.TB, name string, data map[string]string) {
	t.Helper()
	s.Apply(t, configMapObject(name, data))
}

func (s *Stack) applySpec(t testing.TB) {
	t.Helper()
	objs, err := s.spec.objects(s.standalone)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		s.Apply(t, o)
	}
}

// SetBackends replaces the stores in one edit: the ControlPlane's
// backends[] list (the guide's Step 3 is one such edit), or each
// standalone GlanceBackend applied in the order given (the standalone
// switch is two edits: release the old default first). Backends no longer
// listed are not deleted from a standalone Glance.
func (s *Stack) SetBackends(t testing.TB, backends ...Backend) {
	t.Helper()
	s.spec.backends = backends
	s.applySpec(t)
}

// DropRetiredStores sets the store ids whose retired section may go:
// spec.dropRetiredStores, services.glance.dropRetiredStores on the
// ControlPlane.
func (s *Stack) DropRetiredStores(t testing.TB, ids ...string) {
	t.Helper()
	s.spec.dropRetired = ids
	s.applySpec(t)
}

// SetRelease moves openStackRelease, and the image tag with it unless
// imageTag is given.
func (s *Stack) SetRelease(t testing.TB, release, imageTag string) {
	t.Helper()
	s.spec.release, s.spec.imageTag = release, imageTag
	s.applySpec(t)
}

// Get returns an object of the stack's namespace, failing when it does
// not exist.
func (s *Stack) Get(t testing.TB, apiVersion, kind, name string) chain.Object {
	t.Helper()
	o, ok := s.World.Get(chain.Ref{APIVersion: apiVersion, Kind: kind, Namespace: Namespace, Name: name})
	if !ok {
		t.Fatalf("%s %s/%s does not exist", kind, Namespace, name)
	}
	return o
}

// Exists tells whether an object of the stack's namespace exists.
func (s *Stack) Exists(apiVersion, kind, name string) bool {
	_, ok := s.World.Get(chain.Ref{APIVersion: apiVersion, Kind: kind, Namespace: Namespace, Name: name})
	return ok
}

// Deployment is the Glance's Deployment.
func (s *Stack) Deployment(t testing.TB) *appsv1.Deployment {
	t.Helper()
	var d appsv1.Deployment
	decode(t, s.Get(t, "apps/v1", "Deployment", s.Glance), &d)
	return &d
}

// Status is the Glance's status.
func (s *Stack) Status(t testing.TB) api.GlanceStatus {
	t.Helper()
	var g api.Glance
	decode(t, s.Get(t, api.GlanceAPIVersion, api.KindGlance, s.Glance), &g)
	return g.Status
}

// Condition is "Status/Reason" of a condition of an object of the
// glance.openstack.c5c3.io group (kind Glance or GlanceBackend), or
// "absent".
func (s *Stack) Condition(t testing.TB, kind, name, typ string) string {
	t.Helper()
	return conditionOf(s.Get(t, api.GlanceAPIVersion, kind, name), typ)
}

// Mounts are the ConfigMap and backends Secret the Deployment mounts, as
// the guide reads them with kubectl.
func (s *Stack) Mounts(t testing.TB) (configMap, backendsSecret string) {
	t.Helper()
	return glance.PodMounts(s.Deployment(t).Spec.Template.Spec.Volumes)
}

// ConfigMapData is a ConfigMap's data.
func (s *Stack) ConfigMapData(t testing.TB, name string) map[string]string {
	t.Helper()
	out := map[string]string{}
	data, _ := s.Get(t, "v1", "ConfigMap", name)["data"].(map[string]any)
	for k, v := range data {
		out[k], _ = v.(string)
	}
	return out
}

// SecretData is a Secret's data, decoded.
func (s *Stack) SecretData(t testing.TB, name string) map[string]string {
	t.Helper()
	out := map[string]string{}
	data, _ := s.Get(t, "v1", "Secret", name)["data"].(map[string]any)
	for k, v := range data {
		str, _ := v.(string)
		b, err := base64.StdEncoding.DecodeString(str)
		if err != nil {
			t.Fatalf("Secret %s key %s: %v", name, k, err)
		}
		out[k] = string(b)
	}
	return out
}

// Token is a Keystone token of the guide's admin, the token the guide's
// probe pod reads the stores with.
func (s *Stack) Token(t testing.TB) string {
	t.Helper()
	return s.Services.Keystone.AdminToken(t)
}

// Client calls the Glance API of a pod with Token.
func (s *Stack) Client(t testing.TB, p *Pod) *Client {
	t.Helper()
	return &Client{URL: p.URL("api"), Token: s.Token(t), Logs: func() string { return p.Logs(p.Container) }}
}

// Redactor masks the stack's passwords and keys.
func (s *Stack) Redactor() *proc.Redactor {
	r := &proc.Redactor{}
	r.Add(s.podOpts.Redact...)
	return r
}

func decode(t testing.TB, o chain.Object, into any) {
	t.Helper()
	raw, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, into); err != nil {
		t.Fatal(err)
	}
}

// Schema reads the stack's database.
func (s *Stack) Schema(t testing.TB) Schema {
	t.Helper()
	return ReadSchema(t, s.Services.DB, s.Database)
}
