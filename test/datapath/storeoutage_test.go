package datapath

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/glance"
	"github.com/c5c3/glance-hooks/hooks/glancebackend"
	"github.com/c5c3/glance-hooks/simulate/chain"
	"github.com/c5c3/glance-hooks/test/glancestack"
	"github.com/c5c3/glance-hooks/test/services"
	"github.com/c5c3/glance-hooks/transport/storecheck"
)

// outageResync is the resyncPeriodSeconds the test's Metacontroller syncs
// every GlanceBackend with: the period in which an outage is noticed.
const outageResync = time.Minute

// storeOutage runs the guide's ControlPlane with its two stores on two S3
// servers and the GlanceBackend hook checking them, as `serve
// --store-check-timeout` does; then the secondary store's server stops for
// a while and starts again. While it is down: uploads to the default store
// end active, one to the secondary store fails; the secondary GlanceBackend
// says StoreReachable=False/StoreUnreachable and is not Ready, the Glance
// says StoresReachable=False naming it with a StoreUnreachable Warning
// Event, and stays Ready (glance-api serves); the config, the backends
// Secret and the pod template keep their names and bytes, so nothing rolls.
// Once it is back, everything is Ready within one recheck of the store.
func storeOutage(t *testing.T, svc *glancestack.Services, unstable bool) {
	o := glancestack.Options{Database: "glance_outage"}
	if unstable {
		o = onUnstable(t, o)
	}
	keys := glancestack.S3Defaults(services.S3Options{}, glancestack.VersionsIn(t, o.Pods.Root))
	second := keys
	second.Buckets = []string{glancestack.Bucket2}
	s3b := services.StartS3(t, second)
	o.S3 = keys
	o.S3.Buckets = []string{glancestack.Bucket1}
	o.Backends = []glancestack.Backend{{Name: "default", Bucket: glancestack.Bucket1, IsDefault: true},
		{Name: "secondary", Bucket: glancestack.Bucket2, Endpoint: s3b.Endpoint}}
	ctrls := checkingControllers(storecheck.New(0, 0))
	o.Controllers = ctrls
	st := glancestack.New(t, svc, o)
	st.Reconcile(t)
	c := st.Client(t, onlyPod(t, st))
	secondary := names.BackendName(glancestack.ControlPlaneName, "secondary")
	require.Equal(t, "True/AllStoresReachable", st.Condition(t, api.KindGlance, st.Glance, glance.CondStoresReachable))
	require.Equal(t, "True/StoreReachable", st.Condition(t, api.KindGlanceBackend, secondary, names.ConditionStoreReachable))
	c.UploadActive(t, "before", randomBytes(41, 256<<10), "secondary", "secondary")
	before := snapshotRendered(t, st)
	pods := st.Pods()

	s3b.Stop(t)
	stoppedAt := st.World.Now
	st.World.Now = st.World.Now.Add(outageResync)
	st.World.ResyncParentsOf(controllerNamed(t, ctrls, "glancebackend"))
	_, err := st.World.Run(ctrls, 5) // the recheck of a store that is down keeps it from settling
	require.NoError(t, err)
	assert.Equal(t, "False/StoreUnreachable", st.Condition(t, api.KindGlanceBackend, secondary, names.ConditionStoreReachable))
	assert.Equal(t, "False/NotAllReady", st.Condition(t, api.KindGlanceBackend, secondary, "Ready"))
	assert.Equal(t, "True/StoreReachable", st.Condition(t, api.KindGlanceBackend, names.BackendName(glancestack.ControlPlaneName, "default"), names.ConditionStoreReachable))
	assert.Equal(t, "False/StoreUnreachable", st.Condition(t, api.KindGlance, st.Glance, glance.CondStoresReachable))
	assert.Equal(t, "True/AllReady", st.Condition(t, api.KindGlance, st.Glance, "Ready"), "glance-api serves: the Glance stays Ready")
	assert.Equal(t, []string{"Warning/StoreUnreachable"}, warnings(st), "one Warning Event names the outage")
	assert.Equal(t, before, snapshotRendered(t, st), "nothing is re-rendered for the outage")
	id := c.UploadActive(t, "during", randomBytes(42, 256<<10), "default", "default")
	t.Logf("during the outage an upload to the default store is active: %s", id)
	down := c.CreateImage(t, "to-the-store-that-is-down")
	code, body := c.Upload(t, down, randomBytes(43, 64<<10), "secondary")
	assert.GreaterOrEqual(t, code, 400, "an upload to the store that is down fails: %s", body)

	s3b.Start(t)
	back := st.World.Now
	res, err := st.World.Run(ctrls, 10)
	require.NoError(t, err)
	require.True(t, res.Converged, "the hooks settle once the store is back")
	took := transitionOf(t, st.Get(t, api.GlanceAPIVersion, api.KindGlanceBackend, secondary), "Ready").Sub(back)
	t.Logf("down for %s of the sync clock; Ready again %s after its return (recheck %s)", back.Sub(stoppedAt), took, glancebackend.DefaultRecheck)
	assert.LessOrEqual(t, took, glancebackend.DefaultRecheck, "Ready again within one recheck of the store's return")
	assert.Equal(t, "True/AllReady", st.Condition(t, api.KindGlanceBackend, secondary, "Ready"))
	assert.Equal(t, "True/AllStoresReachable", st.Condition(t, api.KindGlance, st.Glance, glance.CondStoresReachable))
	st.Reconcile(t)
	assert.Equal(t, before, snapshotRendered(t, st), "nothing is re-rendered for the return either")
	assert.Equal(t, pods, st.Pods(), "no pod rolled")
	c.UploadActive(t, "after", randomBytes(44, 256<<10), "secondary", "secondary")
}

// checkingControllers are the service's hooks, the GlanceBackend hook
// checking stores with check, each failed call requeued.
func checkingControllers(check *storecheck.Checker) []chain.Controller {
	ctrls := chain.Controllers()
	for i := range ctrls {
		if ctrls[i].Name == "glancebackend" {
			ctrls[i].Sync = glancebackend.Hook{Check: check.Check}.Sync
		}
	}
	return ctrls
}

func controllerNamed(t *testing.T, ctrls []chain.Controller, name string) chain.Controller {
	t.Helper()
	for _, c := range ctrls {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no controller %s", name)
	return chain.Controller{}
}

// transitionOf is when an object's condition last changed.
func transitionOf(t *testing.T, o chain.Object, typ string) time.Time {
	t.Helper()
	c, ok := chain.Condition(o, typ)
	require.True(t, ok, "condition %s", typ)
	at, err := time.Parse(time.RFC3339, c["lastTransitionTime"].(string))
	require.NoError(t, err)
	return at
}

// rendered is what a roll would change: the names the pods mount and the
// pod template.
type renderedNames struct {
	ConfigMap, BackendsSecret string
	Template                  any
}

func snapshotRendered(t *testing.T, st *glancestack.Stack) renderedNames {
	t.Helper()
	cm, sec := st.Mounts(t)
	return renderedNames{ConfigMap: cm, BackendsSecret: sec, Template: st.Deployment(t).Spec.Template}
}

// warnings are the Warning Events of the stack's World, as type/reason.
func warnings(st *glancestack.Stack) []string {
	var out []string
	for _, o := range st.World.ObjectsIn(glancestack.Namespace, "Event") {
		if o["type"] == "Warning" {
			out = append(out, "Warning/"+o["reason"].(string))
		}
	}
	return out
}
