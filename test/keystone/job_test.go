package keystone

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	reg "github.com/c5c3/glance-hooks/hooks/contract/registration"
	"github.com/c5c3/glance-hooks/hooks/controlplane"
	"github.com/c5c3/glance-hooks/simulate/chain"
	"github.com/c5c3/glance-hooks/test/guide"
	"github.com/c5c3/glance-hooks/test/podrun"
	"github.com/c5c3/glance-hooks/test/services"
	"github.com/c5c3/glance-hooks/test/testbin"
)

// jobImage is what the ControlPlane hook renders the registration Jobs
// with; the binary built as the image builds it stands in for it, found on
// PATH as the image's entrypoint (podrun's one difference from the image).
const jobImage = "ghcr.io/c5c3/glance-hooks:0.0.0-test"

// cluster is the guide's ControlPlane in an in-process Metacontroller whose
// Job controller runs the ControlPlane's registration Jobs for real, as
// the kubelet would run their pods, against a real Keystone.
type cluster struct {
	t    *testing.T
	w    *chain.World
	ks   *services.Keystone
	path string
	// ran lists the registration Jobs run, in order, with their logs.
	ran []ranJob
	// runSchemaJobs runs the Glance's schema Jobs' pods for real too
	// (against the database the ControlPlane names); otherwise they are
	// taken as done (test/datapath runs them).
	runSchemaJobs bool
}

type ranJob struct {
	name string
	log  string
	code int
}

func newCluster(t *testing.T, ks *services.Keystone) *cluster {
	bin, err := testbin.Path()
	require.NoError(t, err)
	// The pod runs as the image's non-root user: the binary must be
	// reachable for it, which the build's private temp dir is not.
	dir, err := os.MkdirTemp("", "glance-hooks-image-")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	require.NoError(t, os.Chmod(dir, 0o755))
	raw, err := os.ReadFile(bin)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "glance-hooks"), raw, 0o755))
	c := &cluster{t: t, w: chain.NewWorld(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)), ks: ks, path: dir + ":" + podrun.DebianPATH}
	c.w.JobResult = c.runJob
	return c
}

// runJob is the Job controller: a registration Job's pod runs for real,
// and a schema Job's when runSchemaJobs is set.
func (c *cluster) runJob(w *chain.World, job chain.Object) (chain.JobOutcome, error) {
	meta, _ := job["metadata"].(map[string]any)
	labels, _ := meta["labels"].(map[string]any)
	if component := labels[names.LabelComponent]; component != names.ComponentRegistration && component != names.ComponentDeregistration {
		if !c.runSchemaJobs {
			return chain.JobSucceeds, nil
		}
		done := podrun.Run(c.t, podrun.MustPodOf(c.t, job), podrun.ObjectsOf(c.t, w.Objects()), podrun.Options{Timeout: 5 * time.Minute})
		if !done.Succeeded() {
			for _, r := range append(done.Init, done.Containers...) {
				c.t.Logf("schema Job %s, container %s: exit %d\n%s", meta["name"], r.Name, r.ExitCode, r.Log)
			}
			return chain.JobFails, nil
		}
		return chain.JobSucceeds, nil
	}
	pod := podrun.MustPodOf(c.t, job)
	done := podrun.Run(c.t, pod, podrun.ObjectsOf(c.t, w.Objects()), podrun.Options{
		PATH: c.path, Entrypoint: []string{"glance-hooks"}, ImageUser: ptr(int64(65532)), Timeout: 3 * time.Minute,
	})
	res := done.Containers[0]
	c.ran = append(c.ran, ranJob{name: meta["name"].(string), log: res.Log, code: res.ExitCode})
	// The pod as the kubelet reports it, for the hook's termination message.
	status := corev1.PodStatus{Phase: corev1.PodSucceeded, ContainerStatuses: []corev1.ContainerStatus{{
		Name: res.Name, State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
			ExitCode: int32(res.ExitCode), Message: res.FallbackMessage()}}}}}
	if !done.Succeeded() {
		status.Phase = corev1.PodFailed
	}
	podLabels := map[string]string{}
	for k, v := range pod.Labels {
		podLabels[k] = v
	}
	p := corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: pod.Name, Namespace: pod.Namespace, Labels: podLabels,
			CreationTimestamp: metav1.NewTime(w.Now)}, Status: status}
	obj := toObject(c.t, p)
	require.NoError(c.t, w.Apply(obj))
	w.SetStatus(chain.RefOf(obj), obj["status"])
	if !done.Succeeded() {
		return chain.JobFails, nil
	}
	return chain.JobSucceeds, nil
}

func ptr[T any](v T) *T { return &v }

func toObject(t *testing.T, v any) chain.Object {
	raw, err := json.Marshal(v)
	require.NoError(t, err)
	var o chain.Object
	require.NoError(t, json.Unmarshal(raw, &o))
	return o
}

func (c *cluster) apply(doc string) {
	c.t.Helper()
	var o map[string]any
	require.NoError(c.t, yaml.Unmarshal([]byte(doc), &o))
	require.NoError(c.t, c.w.Apply(o))
}

func (c *cluster) secret(name string, data map[string]string) {
	c.t.Helper()
	s := corev1.Secret{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "openstack"}, StringData: data}
	require.NoError(c.t, c.w.Apply(toObject(c.t, s)))
}

func (c *cluster) converge() {
	c.t.Helper()
	res, err := c.w.Run(chain.ControllersWith(jobImage), 30)
	require.NoError(c.t, err)
	require.True(c.t, res.Converged, "the hooks did not converge in %d rounds", res.Rounds)
}

// condition is the ControlPlane's condition of a type.
func (c *cluster) condition(typ string) metav1.Condition {
	c.t.Helper()
	o, ok := c.w.Get(chain.Ref{APIVersion: api.ControlPlaneAPIVersion, Kind: api.KindControlPlane, Namespace: "openstack", Name: "controlplane"})
	require.True(c.t, ok, "the ControlPlane is gone")
	var cp api.ControlPlane
	raw, _ := json.Marshal(o)
	require.NoError(c.t, json.Unmarshal(raw, &cp))
	for _, cond := range cp.Status.Conditions {
		if cond.Type == typ {
			return cond
		}
	}
	c.t.Fatalf("the ControlPlane has no %s condition", typ)
	return metav1.Condition{}
}

// adminSecret is the admin exports of the Keystone, as an operator would
// put them into the admin credentials Secret.
func adminSecret(ks *services.Keystone, password string) map[string]string {
	return map[string]string{reg.EnvAuthURL: ks.URL, reg.EnvUsername: ks.Admin.User, reg.EnvPassword: password,
		reg.EnvProjectName: ks.Admin.Project, reg.EnvUserDomainName: "Default", reg.EnvProjectDomainName: "Default",
		"OS_REGION_NAME": ks.Region, "OS_IDENTITY_API_VERSION": "3"}
}

// TestControlPlaneRegistersItsGlance runs what the ControlPlane hook
// projects: its registration Job's container as rendered, as the kubelet
// would run it, against a real Keystone; then the finalize path.
func TestControlPlaneRegistersItsGlance(t *testing.T) {
	db := services.StartMariaDB(t)
	ks := services.StartKeystone(t, db)
	c := newCluster(t, ks)
	password := services.RandomSecret()
	c.secret("keystone-admin", adminSecret(ks, ks.Admin.Password))
	c.secret("glance-service-user", map[string]string{"password": password})
	c.secret("glance-db", map[string]string{"username": "glance", "password": services.RandomSecret()})
	c.secret("garage-s3-credentials", map[string]string{"access-key-id": "GKexample", "secret-access-key": services.RandomSecret()})
	c.apply(guide.ControlPlane)
	c.converge()

	require.Len(t, c.ran, 1, "one registration Job ran")
	require.Equal(t, 0, c.ran[0].code, c.ran[0].log)
	registered := c.condition(controlplane.CondKeystoneRegistered)
	assert.Equal(t, metav1.ConditionTrue, registered.Status, registered.Message)
	assert.Equal(t, controlplane.ReasonRegistered, registered.Reason)
	assert.Contains(t, registered.Message, "Job \""+c.ran[0].name+"\"")
	assert.Equal(t, metav1.ConditionTrue, c.condition("Ready").Status, c.condition("Ready").Message)
	url := "http://controlplane-glance.openstack.svc.cluster.local:9292"
	assert.Equal(t, []string{"internal " + url, "public " + url}, imageEndpoints(t, ks, "RegionOne"), "openstack catalog list")
	glance := services.Credentials{User: "glance", Password: password, Project: "service"}
	info := tokenWorks(t, ks, glance)
	assert.Contains(t, info.Roles, "service")
	// The Glance's own Secret authenticates the user the ControlPlane registered.

	// Nothing changed: no Job runs again, Keystone stays as it is.
	before := catalog(t, ks)
	c.apply(guide.ControlPlane)
	c.converge()
	assert.Len(t, c.ran, 1, "an unchanged ControlPlane ran its registration again")
	assert.Equal(t, before, catalog(t, ks))

	// Rotation: a new password in the Secret runs a new Job, which sets it.
	rotated := services.RandomSecret()
	c.secret("glance-service-user", map[string]string{"password": rotated})
	c.converge()
	require.Len(t, c.ran, 2, "the rotated password ran no new Job")
	assert.NotEqual(t, c.ran[0].name, c.ran[1].name)
	require.Equal(t, 0, c.ran[1].code, c.ran[1].log)
	assert.Contains(t, c.ran[1].log, `set the password of user "glance" from Secret "glance-service-user"`)
	glance.Password = rotated
	assert.Contains(t, tokenWorks(t, ks, glance).Roles, "service")
	_, jobGone := c.w.Get(chain.Ref{APIVersion: "batch/v1", Kind: "Job", Namespace: "openstack", Name: c.ran[0].name})
	assert.False(t, jobGone, "the superseded Job is still there")

	// Bad admin credentials: the Job fails at once, the status says why.
	wrong := services.RandomSecret()
	c.secret("keystone-admin", adminSecret(ks, wrong))
	c.converge()
	require.Len(t, c.ran, 3)
	assert.Equal(t, reg.ExitRefused, c.ran[2].code, c.ran[2].log)
	failed := c.condition(controlplane.CondKeystoneRegistered)
	assert.Equal(t, controlplane.ReasonRegistrationFailed, failed.Reason)
	assert.Contains(t, failed.Message, `Job "`+c.ran[2].name+`" failed`)
	// The harness masks every value of the Secrets a pod reads in the logs
	// it keeps (here also "admin" and the auth URL), and the termination
	// message is made from that log; test/keystone's command tests read the
	// unmasked output.
	assert.Contains(t, failed.Message, "credentials (check OS_USERNAME, OS_PASSWORD, OS_PROJECT_NAME and the domains)")
	statusJSON, _ := json.Marshal(c.condition(controlplane.CondKeystoneRegistered))
	for _, secret := range []string{password, rotated, wrong, ks.Admin.Password} {
		assert.NotContains(t, string(statusJSON), secret)
		for _, r := range c.ran {
			assert.NotContains(t, r.log, secret)
		}
	}

	// Deleting the ControlPlane deregisters first: the finalize hook runs
	// the deregistration Job, then lets the ControlPlane go.
	c.secret("keystone-admin", adminSecret(ks, ks.Admin.Password))
	c.converge()
	require.Equal(t, controlplane.ReasonRegistered, c.condition(controlplane.CondKeystoneRegistered).Reason)
	c.w.Delete(chain.Ref{APIVersion: api.ControlPlaneAPIVersion, Kind: api.KindControlPlane, Namespace: "openstack", Name: "controlplane"})
	c.converge()
	last := c.ran[len(c.ran)-1]
	require.True(t, strings.HasPrefix(last.name, "controlplane-glance-deregister-"), "the last Job run was %s", last.name)
	require.Equal(t, 0, last.code, last.log)
	assert.Contains(t, last.log, `removed service "glance" of type "image"`)
	_, exists := c.w.Get(chain.Ref{APIVersion: api.ControlPlaneAPIVersion, Kind: api.KindControlPlane, Namespace: "openstack", Name: "controlplane"})
	assert.False(t, exists, "the ControlPlane is still there after its finalize hook")
	assert.Empty(t, imageEndpoints(t, ks, "RegionOne"), "openstack catalog list still shows the image service")
	assert.Contains(t, tokenWorks(t, ks, glance).Roles, "service", "the service user is kept")
}
