package datapath

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/contract/release"
	"github.com/c5c3/glance-hooks/hooks/glance"
	"github.com/c5c3/glance-hooks/test/glancestack"
	"github.com/c5c3/glance-hooks/test/services"
)

// dayTwo proves on real processes what several replicas and a retired
// store rely on, each on a stack of its own over svc.
func dayTwo(t *testing.T, svc *glancestack.Services) {
	onEverySystem(t, "staged on one pod and imported through another", "glance_import_", func(t *testing.T, o glancestack.Options) {
		st := importAcrossPods(t, svc, o)
		t.Run("rolled under a load of uploads and downloads", func(t *testing.T) { rollUnderLoad(t, st) })
		t.Run("serving pods stopped beside CPU hogs", func(t *testing.T) { stopsUnderLoad(t, st) })
	})
	t.Run("import plugins and the web-download filter", func(t *testing.T) { t.Parallel(); importsInBothModes(t, svc) })
	onBothSystems(t, "a retired store serves until it is dropped", func(t *testing.T, unstable bool) { retiredStoreServes(t, svc, unstable) })
	t.Run("the reference API's example Glance serves", func(t *testing.T) {
		t.Parallel()
		referenceExample(t, svc)
	})
	onBothSystems(t, "behind a gateway and a NetworkPolicy", func(t *testing.T, unstable bool) { reachBehindAPolicy(t, svc, unstable) })
	onBothSystems(t, "operator-owned config: extraConfig, middleware, policy overrides, secure RBAC", func(t *testing.T, unstable bool) { operatorConfig(t, svc, unstable) })
	onBothSystems(t, "database TLS verify-full to a TLS-only user", func(t *testing.T, unstable bool) { databaseTLS(t, svc, unstable) })
	onBothSystems(t, "dynamic database credentials rotated by a secrets engine", func(t *testing.T, unstable bool) { dynamicCredentials(t, svc, unstable) })
	onBothSystems(t, "a store's S3 server stopped and started again", func(t *testing.T, unstable bool) { storeOutage(t, svc, unstable) })
	t.Run("maintenance", func(t *testing.T) { maintenance(t, svc) })
}

// onUnstableName ends the name of a proof run on Debian unstable's Glance.
const onUnstableName = " on Debian unstable's Glance"

// onBothSystems runs proof as two parallel subtests: on this machine's
// Debian 12 Glance (unstable false), and, named with onUnstableName, on
// Debian unstable's newest Glance, rendered for 2026.1 (onUnstable). What a
// newer Glance, glance_store, oslo library or Python does differently then
// fails a proof, not a user's upgrade.
func onBothSystems(t *testing.T, name string, proof func(t *testing.T, unstable bool)) {
	for _, unstable := range []bool{false, true} {
		n := name
		if unstable {
			n += onUnstableName
		}
		t.Run(n, func(t *testing.T) {
			t.Parallel()
			proof(t, unstable)
		})
	}
}

// onEverySystem runs proof as parallel subtests, one for each Glance the
// day-two stacks run: 2025.2 and 2026.1 on this machine's Debian 12 Glance
// (25.1, whatever the release's label), 2025.1 on Debian 13's (that
// release's own Glance, eventlet and greenlet) and 2026.1 on unstable's
// (the rendered uWSGI config as it is, threads and all, on a uWSGI whose
// graceful stop finishes every thread's request). Each subtest is named
// name, the release and the system; its options name the release, the
// system and a database of its own, database followed by the release.
func onEverySystem(t *testing.T, name, database string, proof func(t *testing.T, o glancestack.Options)) {
	for _, c := range []struct {
		release, on string
		system      func(*testing.T, glancestack.Options) glancestack.Options
	}{
		{"2025.2", "", nil}, {"2026.1", "", nil},
		{"2025.1", " on Debian 13's Glance", onTrixie},
		{"2026.1", onUnstableName, onUnstable},
	} {
		t.Run(strings.TrimSpace(name+" "+c.release)+c.on, func(t *testing.T) {
			t.Parallel()
			o := glancestack.Options{Release: c.release, Database: database + strings.ReplaceAll(c.release, ".", "_")}
			if c.system != nil {
				o = c.system(t, o)
			}
			proof(t, o)
		})
	}
}

// onTrixie moves a stack's options onto Debian 13's Glance, the 2025.1
// release (glance 30), as onUnstable does onto unstable's.
func onTrixie(t *testing.T, o glancestack.Options) glancestack.Options {
	o.Pods.Root = glancestack.TrixieRoot(t)
	o.Release = "2025.1"
	o.Database += "_trixie"
	return o
}

// onUnstable moves a stack's options onto Debian unstable's Glance: its
// pods run in that system (podrun.Options.Root), the Glance is 2026.1's,
// and its database and the names derived from it get "_unstable", as the
// same proof's Debian 12 stack runs beside it on the same servers.
func onUnstable(t *testing.T, o glancestack.Options) glancestack.Options {
	o.Pods.Root = glancestack.UnstableRoot(t)
	o.Release = "2026.1"
	o.Database += "_unstable"
	return o
}

// eventletPreStopSeconds is the preStop sleep the eventlet stacks set: the
// eventlet server finishes a request only within that sleep (its workers
// end at once on SIGTERM), so, as docs/stopping.md tells its users, the
// sleep is longer than the longest upload the roll's load makes on a busy
// machine (3 MiB, seconds at most). The uWSGI mode keeps the rendered
// default: it finishes its requests after SIGTERM.
const eventletPreStopSeconds = 15

// preStopFor is the preStop sleep a release's stack sets, nil for the
// rendered default.
func preStopFor(t *testing.T, r string) *int64 {
	if launchModeOf(t, r) != glance.Eventlet {
		return nil
	}
	n := int64(eventletPreStopSeconds)
	return &n
}

// launchModeOf is the launch mode a release renders.
func launchModeOf(t *testing.T, r string) glance.LaunchMode {
	parsed, err := release.Parse(r)
	require.NoError(t, err)
	return glance.LaunchModeOf(parsed)
}

// importAcrossPods runs two glance-api pods of the rendered Deployment,
// each on a loopback address of its own with its own staging emptyDir, on
// one database and Keystone: a glance-direct image staged through pod A is
// imported through pod B into the non-default store. B finds A's
// worker_self_reference_url on the image and hands the import to A, where
// the data is; without it B would look in its own empty staging area. It
// returns the stack, both pods serving. o names the release, the database
// and the system the pods run in.
func importAcrossPods(t *testing.T, svc *glancestack.Services, o glancestack.Options) *glancestack.Stack {
	o.Replicas = 2
	o.PreStopSleepSeconds = preStopFor(t, o.Release)
	// Directories something else on the machine made where the pods mount
	// their volumes, root's alone (in each pod's namespace only): each
	// container still has its own /var/lib/glance, so staging and imports
	// work as in a cluster.
	o.Pods.MachineDirs = []string{glance.StagingDir, glance.LockDir}
	o.Pods.MaxPreStopSleep = time.Minute
	st := glancestack.New(t, svc, o)
	st.AddPodArgs(dayTwoPodArgs(t, launchModeOf(t, o.Release), o.Pods.Root)...)
	st.Reconcile(t)
	pods := st.Pods()
	require.Len(t, pods, 2, "two glance-api pods run")
	a, b := pods[0], pods[1]
	require.NotEqual(t, a.IP, b.IP, "each pod has an address of its own")
	ca, cb := st.Client(t, a), st.Client(t, b)

	data := randomBytes(21, 3<<20+5)
	id := ca.CreateImage(t, "staged-on-a")
	ca.Stage(t, id, data)
	staged, err := os.ReadFile(stagedPath(t, a, id))
	require.NoError(t, err, "the data is in pod A's staging area")
	assert.Equal(t, data, staged, "pod A's staging area holds the staged bytes")
	_, err = os.Stat(stagedPath(t, b, id))
	assert.True(t, errors.Is(err, fs.ErrNotExist), "pod B's staging area has nothing of the image: %v", err)
	assert.Equal(t, a.URL("api"), stageHost(t, st, id), "the image records pod A's worker_self_reference_url")
	assert.Equal(t, "uploading", cb.Image(t, id).Status, "pod B reads the staged image from the shared database")

	began := time.Now()
	code, body := cb.Import(t, id, "secondary")
	require.Equal(t, http.StatusAccepted, code, "glance-direct import through pod B: %s", body)
	img := cb.WaitImage(t, id, "active", 2*time.Minute)
	took := time.Since(began)
	assert.Equal(t, "secondary", img.Stores, "the image is in the store the import named")
	if assert.NotNil(t, img.Size) {
		assert.Equal(t, int64(len(data)), *img.Size)
	}
	// glance 25.1 ends the line "which has image staged", 33 "which has image."
	proxied := "Proxying POST request to host " + a.URL("api") + " which has image"
	assert.Contains(t, b.Logs(b.Container), proxied, "pod B handed the import to pod A")
	assert.NotContains(t, a.Logs(a.Container), "Proxying", "pod A imported what it staged itself")
	objs := st.S3.Objects(t, glancestack.Bucket1, glancestack.Bucket2)
	assert.Empty(t, objs[glancestack.Bucket1], "nothing reached the default store's bucket")
	assert.Equal(t, map[string]services.S3Object{id: services.ObjectOf(data)}, objs[glancestack.Bucket2], "the secondary store's bucket holds the image")
	assert.Equal(t, data, cb.Download(t, id), "download through pod B")
	_, err = os.Stat(stagedPath(t, a, id))
	assert.True(t, errors.Is(err, fs.ErrNotExist), "pod A's staging area is emptied by the import: %v", err)
	t.Logf("%d bytes staged on %s, imported through %s (%s): active in %q after %s",
		len(data), a.IP, b.IP, a.Mode, img.Stores, took.Round(time.Millisecond))
	return st
}

// stagedPath is where a pod's staging area keeps an image's staged data
// (os_glance_staging_store's file of the image id), on this machine.
func stagedPath(t *testing.T, p *glancestack.Pod, id string) string {
	t.Helper()
	path, err := p.HostPath(p.Container, glance.StagingDir+"/"+id)
	require.NoError(t, err)
	return path
}

// stageHost is the image's os_glance_stage_host, a property the API hides.
func stageHost(t *testing.T, st *glancestack.Stack, id string) string {
	t.Helper()
	rows := st.Services.DB.Query(t, "SELECT value FROM `"+st.Database+"`.image_properties WHERE image_id = '"+id+
		"' AND name = 'os_glance_stage_host' AND deleted = 0")
	require.Len(t, rows, 1, "the image has one os_glance_stage_host")
	return rows[0][0]
}

// archiveBucket is a bucket whose name no other store's bucket begins
// with (see retiredStoreServes).
const archiveBucket = "archive-images"

// retiredStoreServes removes two of the ControlPlane's three entries while
// an image lives in each: their sections stay (the pods do not even roll)
// and the images still download. Listed in dropRetiredStores, the sections
// go, glance-api no longer lists the stores, and nothing is deleted from
// the buckets. What a dropped store's image does then is Glance's: it
// looks for a configured store whose location prefix (s3://<key>:<secret>@
// <host>/<bucket>) begins the image's location, as a plain string. The
// "archive" image matches none and no longer downloads. The "secondary"
// image in glance-images-2 matches "default" (bucket glance-images), so
// Glance moves its location to that store and reads it from its bucket
// with the credentials the location holds.
func retiredStoreServes(t *testing.T, svc *glancestack.Services, unstable bool) {
	guide := glancestack.GuideBackends(false)
	archive := glancestack.Backend{Name: "archive", Bucket: archiveBucket}
	o := glancestack.Options{Database: "glance_retire", Release: "2026.1",
		Backends: append(guide, archive), S3: services.S3Options{Buckets: []string{glancestack.Bucket1, glancestack.Bucket2, archiveBucket}}}
	if unstable {
		o = onUnstable(t, o)
	}
	st := glancestack.New(t, svc, o)
	st.Reconcile(t)
	p := onlyPod(t, st)
	c := st.Client(t, p)
	require.Equal(t, map[string]bool{"default": true, "secondary": false, "archive": false}, c.Stores(t))
	inSecondary, inArchive := randomBytes(22, 1<<20+9), randomBytes(23, 700<<10+3)
	idSecondary := c.UploadActive(t, "in-secondary", inSecondary, "secondary", "secondary")
	idArchive := c.UploadActive(t, "in-archive", inArchive, "archive", "archive")
	_, backends := st.Mounts(t)
	before := st.SecretData(t, backends)[names.BackendsFile]
	require.Contains(t, before, "[secondary]\n")
	require.Contains(t, before, "[archive]\n")

	st.TakeEvents()
	st.SetBackends(t, guide[0])
	st.Reconcile(t)
	for _, gone := range []string{"secondary", "archive"} {
		assert.False(t, st.Exists(api.GlanceAPIVersion, api.KindGlanceBackend, names.BackendName(glancestack.ControlPlaneName, gone)),
			"the %s entry's GlanceBackend is gone", gone)
	}
	assert.Empty(t, st.TakeEvents(), "retiring stores rolls no pod")
	_, kept := st.Mounts(t)
	assert.Equal(t, backends, kept, "the backends Secret keeps its name")
	assert.Equal(t, before, st.SecretData(t, kept)[names.BackendsFile], "backends.conf keeps the retired sections")
	status := st.Status(t)
	var retiring []string
	for _, r := range status.RetiringStores {
		assert.True(t, r.Kept, "%s is kept: %s", r.StoreID, r.Message)
		retiring = append(retiring, r.StoreID)
	}
	assert.Equal(t, []string{"archive", "secondary"}, retiring, "status.retiringStores")
	assert.Equal(t, "default", status.DefaultBackend)
	assert.Equal(t, map[string]bool{"default": true, "secondary": false, "archive": false}, c.Stores(t),
		"glance-api still lists the retired stores, neither as the default")
	assert.Equal(t, inSecondary, c.Download(t, idSecondary), "an image in a retired store still downloads")
	assert.Equal(t, inArchive, c.Download(t, idArchive), "an image in a retired store still downloads")
	assert.Equal(t, "secondary", c.Image(t, idSecondary).Stores, "the image stays in its store")

	st.DropRetiredStores(t, "secondary", "archive")
	st.Reconcile(t)
	events := st.TakeEvents()
	assertRolled(t, events, p, p.Mode)
	_, dropped := st.Mounts(t)
	text := st.SecretData(t, dropped)[names.BackendsFile]
	assert.NotContains(t, text, "[secondary]", "the dropped stores' sections are gone")
	assert.NotContains(t, text, "[archive]", "the dropped stores' sections are gone")
	assert.Contains(t, text, "[default]\n")
	assert.Empty(t, st.Status(t).RetiringStores, "nothing retires any more")
	p = onlyPod(t, st)
	c = st.Client(t, p)
	assert.Equal(t, map[string]bool{"default": true}, c.Stores(t), "glance-api no longer lists the dropped stores")
	answer := tryDownload(t, c, idArchive)
	assert.NotEqual(t, "HTTP 200", answer, "an image only in a dropped store no longer downloads")
	assert.Equal(t, inSecondary, c.Download(t, idSecondary), "Glance reads the image through the store whose prefix matches")
	assert.Equal(t, "default", c.Image(t, idSecondary).Stores, "Glance moved the image's location to the store whose prefix matches")
	objs := st.S3.Objects(t, glancestack.Bucket1, glancestack.Bucket2, archiveBucket)
	assert.Empty(t, objs[glancestack.Bucket1])
	assert.Equal(t, map[string]services.S3Object{idSecondary: services.ObjectOf(inSecondary)}, objs[glancestack.Bucket2], "dropping a store deletes no data")
	assert.Equal(t, map[string]services.S3Object{idArchive: services.ObjectOf(inArchive)}, objs[archiveBucket], "dropping a store deletes no data")
	t.Logf("after the drop, GET of the image only in a dropped store: %s; the drop: %s", answer, strings.TrimSpace(summary(events)))
}

// tryDownload GETs an image's data and says how that ended: "HTTP <code>",
// or the transport error (glance-api under uWSGI may close the connection
// without an answer when no store can read the image).
func tryDownload(t *testing.T, c *glancestack.Client, id string) string {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, c.URL+"/v2/images/"+id+"/file", nil)
	require.NoError(t, err)
	req.Header.Set("X-Auth-Token", c.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return fmt.Sprintf("HTTP %d", resp.StatusCode)
}

func summary(events []glancestack.Event) string {
	var b strings.Builder
	for _, e := range events {
		b.WriteString(e.String() + "\n")
	}
	return b.String()
}
