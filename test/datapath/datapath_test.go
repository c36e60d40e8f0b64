package datapath

import (
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/glance"
	"github.com/c5c3/glance-hooks/test/glancestack"
	"github.com/c5c3/glance-hooks/test/podrun"
	"github.com/c5c3/glance-hooks/test/proc"
	"github.com/c5c3/glance-hooks/test/services"
)

// TestGlanceServes runs, on one MariaDB, Keystone and memcached, the
// guide's ControlPlane walkthrough on a real Glance in both launch modes at
// once, each with its own database, S3 server and hooks, in the eventlet
// mode again on Debian 13's 2025.1 Glance and in the uWSGI mode on Debian
// unstable's newest; the 2025.2 Glance then walks the release upgrade to
// 2026.1, and another walks it from Debian 12's Glance to unstable's.
// Beside them the stores of three more Glances are behind private CAs: one
// process-wide bundle on Debian 12's glance_store, a bundle per store on
// Debian 13's and unstable's. Then, on the same servers, the day-two
// stacks (dayTwo).
func TestGlanceServes(t *testing.T) {
	began := time.Now()
	svc := glancestack.StartServices(t)
	t.Logf("MariaDB, Keystone and memcached up in %s", time.Since(began).Round(time.Millisecond))
	// Each group's stacks run at once; the groups run one after the other.
	t.Run("walkthrough", func(t *testing.T) {
		t.Run("eventlet 2025.2 then the upgrade to 2026.1", func(t *testing.T) {
			t.Parallel()
			st, images := dataPath(t, svc, glancestack.Options{Release: "2025.2", Database: "glance"}, glance.Eventlet)
			stopAtStart(t, st)
			upgradeWalk(t, st, images)
		})
		t.Run("uwsgi 2026.1", func(t *testing.T) {
			t.Parallel()
			st, _ := dataPath(t, svc, glancestack.Options{Release: "2026.1", Database: "glance_uwsgi"}, glance.UWSGI)
			stopWhileStarting(t, st)
		})
		t.Run("eventlet 2025.1 on Debian 13's Glance", func(t *testing.T) {
			// A release as it is: glance 30 with its glance_store, eventlet
			// and greenlet, on its Python.
			t.Parallel()
			st, _ := dataPath(t, svc, onTrixie(t, glancestack.Options{Database: "glance"}), glance.Eventlet)
			stopAtStart(t, st)
		})
		t.Run("uwsgi 2026.1 on Debian unstable's Glance", func(t *testing.T) {
			t.Parallel()
			root := glancestack.UnstableRoot(t)
			dataPath(t, svc, glancestack.Options{Release: "2026.1", Database: "glance_unstable", Pods: podrun.Options{Root: root}}, glance.UWSGI)
		})
		t.Run("the upgrade from Debian 12's Glance to Debian unstable's", func(t *testing.T) {
			t.Parallel()
			upgradeAcrossGlances(t, svc)
		})
		t.Run("private CA 2022.2 process-wide bundle", func(t *testing.T) {
			t.Parallel()
			privateCA(t, svc)
		})
		// The first release whose glance_store reads s3_store_cacert, and
		// the newest.
		t.Run("private CAs 2025.1 a bundle per store on Debian 13's Glance", func(t *testing.T) {
			t.Parallel()
			perStoreCA(t, svc, onTrixie(t, glancestack.Options{Database: "glance_tls_per_store"}))
		})
		t.Run("private CAs 2026.1 a bundle per store on Debian unstable's Glance", func(t *testing.T) {
			t.Parallel()
			perStoreCA(t, svc, onUnstable(t, glancestack.Options{Database: "glance_tls_per_store"}))
		})
	})
	t.Run("day two", func(t *testing.T) { dayTwo(t, svc) })
	t.Cleanup(func() { t.Logf("whole test: %s", time.Since(began).Round(time.Millisecond)) })
}

// dataPath is the guide's walkthrough on one stack: first install through
// the schema Job, the stores read with a Keystone token, an upload to each
// store found in its bucket and downloaded again, Step 3's default switch,
// and a store whose key S3 refuses. It returns the stack, its pods
// stopped, and the images uploaded by id.
func dataPath(t *testing.T, svc *glancestack.Services, o glancestack.Options, mode glance.LaunchMode) (*glancestack.Stack, map[string][]byte) {
	began := time.Now()
	release := o.Release
	st := glancestack.New(t, svc, o)
	v := st.Versions
	t.Logf("glance %s, glance_store %s; S3 %s (region %s, rendered %s)", v.Glance, v.GlanceStore, st.S3.Version(t), st.S3.Region, glancestack.Region)
	require.Equal(t, http.StatusForbidden, st.S3.UnsignedStatus(t, glancestack.Bucket1), "the S3 server refuses unsigned requests")

	st.Reconcile(t)
	firstInstall(t, st, release, mode)
	schemaSyncIsRepeatable(t, st)

	p := onlyPod(t, st)
	rendered(t, st, mode)
	c := st.Client(t, p)
	authenticated(t, st, c)

	img1, img2 := randomBytes(1, 1<<20+1), randomBytes(2, 2<<20+3)
	id2 := c.UploadActive(t, "to-secondary", img2, "secondary", "secondary")
	id1 := c.UploadActive(t, "no-header", img1, "", "default")
	objs := st.S3.Objects(t, glancestack.Bucket1, glancestack.Bucket2)
	assert.Equal(t, map[string]services.S3Object{id1: services.ObjectOf(img1)}, objs[glancestack.Bucket1], "bucket %s holds the default store's image", glancestack.Bucket1)
	assert.Equal(t, map[string]services.S3Object{id2: services.ObjectOf(img2)}, objs[glancestack.Bucket2], "bucket %s holds the secondary store's image", glancestack.Bucket2)
	// Reads parse the location glance_store recorded, credentials and
	// all: the key with '$' and '%' survives that round trip too.
	assert.Equal(t, img1, c.Download(t, id1), "download of %s", id1)
	assert.Equal(t, img2, c.Download(t, id2), "download of %s", id2)

	// Step 3: move isDefault in one ControlPlane edit.
	config1, backends1 := st.Mounts(t)
	backendsText := st.SecretData(t, backends1)[names.BackendsFile]
	switched := glancestack.GuideBackends(false)
	switched[0].IsDefault, switched[1].IsDefault = false, true
	st.TakeEvents()
	st.SetBackends(t, switched...)
	st.Reconcile(t)
	config2, backends2 := st.Mounts(t)
	assert.NotEqual(t, config1, config2, "a new config ConfigMap is rendered")
	assert.Equal(t, backends1, backends2, "the backends Secret keeps its name")
	assert.Equal(t, backendsText, st.SecretData(t, backends2)[names.BackendsFile], "backends.conf keeps its bytes")
	assertRolled(t, st.TakeEvents(), p, mode)
	p = onlyPod(t, st)
	c = st.Client(t, p)
	assert.Equal(t, map[string]bool{"default": false, "secondary": true}, c.Stores(t), "GET /v2/info/stores: secondary is flagged now")
	img3 := randomBytes(3, 512<<10+7)
	id3 := c.UploadActive(t, "no-header-after-switch", img3, "", "secondary")
	objs = st.S3.Objects(t, glancestack.Bucket1, glancestack.Bucket2)
	assert.Equal(t, map[string]services.S3Object{id1: services.ObjectOf(img1)}, objs[glancestack.Bucket1])
	assert.Equal(t, map[string]services.S3Object{id2: services.ObjectOf(img2), id3: services.ObjectOf(img3)}, objs[glancestack.Bucket2])
	assert.Equal(t, img1, c.Download(t, id1), "an image of the former default still downloads")

	// A third store whose Secret has a wrong secret key: the hooks see a
	// complete key pair, not whether S3 accepts it.
	st.ApplySecret(t, "broken-s3-credentials", map[string]string{"access-key-id": st.S3.AccessKey, "secret-access-key": "not-the-right-secret-0001"})
	broken := glancestack.Backend{Name: "broken", Bucket: glancestack.Bucket1, Credentials: "broken-s3-credentials"}
	st.SetBackends(t, append(switched, broken)...)
	st.Reconcile(t)
	assert.Equal(t, "True/CredentialsAvailable", st.Condition(t, api.KindGlanceBackend, names.BackendName(glancestack.ControlPlaneName, "broken"), "CredentialsReady"))
	assert.Equal(t, "True/AllBackendsProjected", st.Condition(t, api.KindGlance, st.Glance, "BackendsReady"))
	p = onlyPod(t, st)
	c = st.Client(t, p)
	require.Equal(t, map[string]bool{"default": false, "secondary": true, "broken": false}, c.Stores(t))
	id := c.CreateImage(t, "to-broken")
	code, body := c.Upload(t, id, randomBytes(4, 64<<10), "broken")
	assert.Equal(t, http.StatusInternalServerError, code, "upload to the store with a wrong key: %s", body)
	img := c.Image(t, id)
	assert.Equal(t, "queued", img.Status, "the image goes back to queued")
	assert.Empty(t, img.Stores)
	assert.Contains(t, p.Logs(p.Container), "(403)", "glance-api logs S3's 403 (HeadBucket Forbidden)")
	img5 := randomBytes(5, 300<<10)
	id5 := c.UploadActive(t, "to-default-beside-broken", img5, "default", "default")
	objs = st.S3.Objects(t, glancestack.Bucket1)
	assert.Equal(t, map[string]services.S3Object{id1: services.ObjectOf(img1), id5: services.ObjectOf(img5)}, objs[glancestack.Bucket1],
		"nothing of the failed upload reached the bucket, its siblings keep working")

	t.Logf("%s: %s", mode, time.Since(began).Round(time.Millisecond))
	return st, map[string][]byte{id1: img1, id2: img2, id3: img3, id5: img5}
}

// stopWhileStarting stops every pod, then starts one more of the
// Deployment and stops it 3 s later, while its workers still load Glance
// (a rollout or scale-down right after a scale-up): that pod too ends by
// itself within its grace period. Its uWSGI workers are told to stop
// before they have handlers of their own: the rendered hook-asap and
// hook-post-fork lines end them at once; without those lines they went on
// loading and were killed only after the worker mercy (22 s in all).
func stopWhileStarting(t *testing.T, st *glancestack.Stack) {
	t.Helper()
	assertStopped(t, st.StopPods(t))
	p := st.StartPod(t)
	time.Sleep(3 * time.Second)
	took := p.Stop(t)
	code, exited := p.ExitCode(p.Container)
	require.True(t, exited)
	log := p.Logs(p.Container)
	assert.NotContains(t, log, "NO MERCY", "no worker waited out the mercy; the log ends:\n%s", proc.LastLines(log, 40))
	assertStopped(t, []glancestack.Event{{Kind: glancestack.PodStopped, Name: p.Pod.Name, Mode: p.Mode, Took: took, ExitCode: code, Log: log}})
	t.Logf("a %s pod stopped 3 s after its start: in %s, exit code %d", p.Mode, took.Round(time.Millisecond), code)
}

// stopAtStart starts one more pod of the Deployment and stops it as soon
// as glance-api runs, long before it has loaded Glance and installed its
// SIGTERM handler (a pod deleted while it starts). The eventlet pod shares
// its process namespace, so glance-api is not PID 1 and SIGTERM's default
// action ends it at once; as PID 1 the kernel dropped the signal, and
// glance-api went on to serve until the SIGKILL after its grace period.
func stopAtStart(t *testing.T, st *glancestack.Stack) {
	t.Helper()
	p := st.StartPod(t)
	took := p.Stop(t)
	code, exited := p.ExitCode(p.Container)
	require.True(t, exited)
	assert.Equal(t, 128+int(syscall.SIGTERM), code, "SIGTERM ended glance-api before it had a handler; its log ends:\n%s", proc.LastLines(p.Logs(p.Container), 40))
	assert.Less(t, took, glance.TerminationGraceSeconds*time.Second, "a %s pod stopped at its start ends within its grace period", p.Mode)
	t.Logf("a %s pod stopped at its start: in %s, exit code %d", p.Mode, took.Round(time.Millisecond), code)
}

// firstInstall: one db sync Job ran (db sync, then the metadata
// definitions), the schema and definitions are in MariaDB, and only then
// did a pod of the release's launch mode start.
func firstInstall(t *testing.T, st *glancestack.Stack, release string, mode glance.LaunchMode) {
	t.Helper()
	jobs := st.Jobs()
	require.Len(t, jobs, 1, "one schema Job")
	require.True(t, jobs[0].Succeeded(), "the db sync Job succeeded")
	assert.Equal(t, "sync", jobs[0].Action)
	assert.Equal(t, []string{"db-sync", "load-metadefs"}, jobs[0].Containers())
	ev := st.Events()
	require.GreaterOrEqual(t, len(ev), 2)
	assert.Equal(t, glancestack.JobSucceeded, ev[0].Kind, "the Job ran before any pod: %v", ev)
	assert.Equal(t, glancestack.PodReady, ev[1].Kind)
	assert.Equal(t, mode, ev[1].Mode, "release %s runs %s", release, mode)

	schema := st.Schema(t)
	assert.Contains(t, schema.Tables, "images", "db sync made the schema in MariaDB")
	assert.NotZero(t, schema.Rows["metadef_namespaces"], "the metadata definitions are loaded")
	assert.NotEmpty(t, schema.Revision)
	for cond, want := range map[string]string{
		"DatabaseReady": "True/DatabaseSynced", "ServiceUserReady": "True/CredentialsAvailable",
		"DeploymentReady": "True/DeploymentReady", "Ready": "True/AllReady",
	} {
		assert.Equal(t, want, st.Condition(t, api.KindGlance, st.Glance, cond), cond)
	}
	status := st.Status(t)
	assert.Equal(t, release, status.InstalledRelease)
	assert.Equal(t, api.DefaultImageRepository+":"+release, status.InstalledImage)
	assert.Nil(t, status.Upgrade)
	t.Logf("%s in %s: %d tables at revision %s, %d metadata definition namespaces; pod ready %s after start",
		jobs[0].Name, jobs[0].Took.Round(time.Millisecond), len(schema.Tables), schema.Revision, schema.Rows["metadef_namespaces"], ev[1].Took.Round(time.Millisecond))
}

// schemaSyncIsRepeatable runs the db sync Job's pod a second time, as
// deleting the Job would: it succeeds and changes no table, index, row
// count or revision.
func schemaSyncIsRepeatable(t *testing.T, st *glancestack.Stack) {
	t.Helper()
	before := st.Schema(t)
	again := st.RunJobAgain(t, st.Jobs()[0].Name)
	require.True(t, again.Succeeded(), "the db sync Job run again succeeds")
	assert.Equal(t, before, st.Schema(t), "a second db sync and load of the metadata definitions change nothing")
	t.Logf("db sync run again in %s: nothing changed", again.Took.Round(time.Millisecond))
}

// rendered checks what the pod reads: every option comes from the
// hooks' objects, and credentials only from Secrets, escaped for
// oslo.config.
func rendered(t *testing.T, st *glancestack.Stack, mode glance.LaunchMode) {
	t.Helper()
	cm, sec := st.Mounts(t)
	config := st.ConfigMapData(t, cm)
	conf := config[names.ConfigFile]
	assert.Contains(t, conf, "enabled_backends = default:s3,secondary:s3\n")
	assert.Contains(t, conf, "default_backend = default\n")
	assert.Contains(t, config[glance.PasteFile], "[composite:glance-api-keystone]\n", "the paste file is in the ConfigMap")
	_, hasINI := config[glance.UWSGIFile]
	assert.Equal(t, mode == glance.UWSGI, hasINI, "the uWSGI ini is rendered for the uWSGI mode only")
	backends := st.SecretData(t, sec)[names.BackendsFile]
	assert.Contains(t, backends, "s3_store_secret_key = "+strings.ReplaceAll(st.S3.SecretKey, "$", "$$")+"\n", "'$' is written as '$$'")
	assert.Contains(t, backends, "s3_store_bucket_url_format = path\n")
	for _, secret := range []string{st.S3.SecretKey, st.DBPassword, st.ServiceUser.Password} {
		for name, text := range config {
			assert.NotContains(t, text, secret, "a credential in ConfigMap key %s", name)
		}
	}
	password := st.SecretData(t, names.AuthtokenSecretName(st.Glance))[names.AuthtokenPasswordKey]
	assert.Equal(t, strings.ReplaceAll(st.ServiceUser.Password, "$", "$$"), password,
		"the service password reaches OS_KEYSTONE_AUTHTOKEN__PASSWORD escaped")
	assert.Contains(t, st.ServiceUser.Password, "$")
	assert.Contains(t, st.DBPassword, "$")
}

// authenticated: without a token only the probes' /healthcheck answers;
// with the guide's admin token the stores are listed with the default
// flagged, and keystonemiddleware keeps validated tokens in memcached.
func authenticated(t *testing.T, st *glancestack.Stack, c *glancestack.Client) {
	t.Helper()
	anonymous := *c
	anonymous.Token = ""
	code, body := anonymous.Call(t, http.MethodGet, glance.HealthPath, nil, nil)
	assert.Equal(t, http.StatusOK, code, "GET %s without a token: %s", glance.HealthPath, body)
	code, body = anonymous.Call(t, http.MethodGet, "/v2/info/stores", nil, nil)
	assert.Equal(t, http.StatusUnauthorized, code, "GET /v2/info/stores without a token: %s", body)
	forged := *c
	forged.Token = "gAAAAAB-not-a-token"
	code, body = forged.Call(t, http.MethodGet, "/v2/info/stores", nil, nil)
	assert.Equal(t, http.StatusUnauthorized, code, "GET /v2/info/stores with a token Keystone never issued: %s", body)

	assert.Equal(t, map[string]bool{"default": true, "secondary": false}, c.Stores(t), "GET /v2/info/stores: both store ids, default flagged")
	before := statNumber(t, st.Services.Memcached.Stats(t), "get_hits")
	c.Stores(t)
	stats := st.Services.Memcached.Stats(t)
	assert.NotZero(t, statNumber(t, stats, "curr_items"), "keystonemiddleware caches in memcached")
	assert.Greater(t, statNumber(t, stats, "get_hits"), before, "a second call with the same token is answered from the cache")
	info := st.Services.Keystone.Validate(t, c.Token)
	assert.Equal(t, st.Services.Keystone.Admin.User, info.User)
}

func statNumber(t *testing.T, stats map[string]string, key string) int {
	t.Helper()
	n, err := strconv.Atoi(stats[key])
	if err != nil {
		t.Fatalf("memcached stat %s = %q", key, stats[key])
	}
	return n
}

// assertRolled: the switch rolled the one pod as the Deployment's
// strategy says, the new one ready before the old one stopped.
func assertRolled(t *testing.T, events []glancestack.Event, old *glancestack.Pod, mode glance.LaunchMode) {
	t.Helper()
	require.Len(t, events, 2, "%v", events)
	assert.Equal(t, glancestack.PodReady, events[0].Kind)
	assert.Equal(t, mode, events[0].Mode)
	assert.Equal(t, glancestack.PodStopped, events[1].Kind)
	assert.Equal(t, old.Pod.Name, events[1].Name)
	assertStopped(t, events[1:])
}

// assertStopped: every pod ended by itself after SIGTERM, exit code 0,
// within the rendered grace period. A uWSGI worker may crash on its way
// out, after its last answer: Debian's greenlet 2.0.2 faults when uWSGI
// runs Glance's exit hook in its signal handler. Any other crash fails.
func assertStopped(t *testing.T, events []glancestack.Event) {
	t.Helper()
	for _, e := range events {
		if e.Kind != glancestack.PodStopped {
			continue
		}
		// The log ends with what was left when the grace period ran out.
		assert.Equal(t, 0, e.ExitCode, "%s (%s) after SIGTERM; its log ends:\n%s", e.Name, e.Mode, proc.LastLines(e.Log, 40))
		assert.Less(t, e.Took, glance.TerminationGraceSeconds*time.Second, "%s (%s) stops within its grace period", e.Name, e.Mode)
		// Two workers' backtraces may interleave: count them.
		crashes := strings.Count(e.Log, "got Segmentation Fault")
		assert.Equal(t, crashes, strings.Count(e.Log, "ThreadState_DestroyNoGIL"),
			"every crash at exit is greenlet's (ThreadState_DestroyNoGIL in its backtrace) in %s:\n%s", e.Name, e.Log)
		t.Logf("%s (%s) stopped in %s, exit code %d, %d worker crashes at exit", e.Name, e.Mode, e.Took.Round(time.Millisecond), e.ExitCode, crashes)
	}
}

func onlyPod(t *testing.T, st *glancestack.Stack) *glancestack.Pod {
	t.Helper()
	pods := st.Pods()
	require.Len(t, pods, 1, "one glance-api pod runs")
	return pods[0]
}

func randomBytes(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, seed))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}
