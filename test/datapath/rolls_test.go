package datapath

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/hooks/glance"
	"github.com/c5c3/glance-hooks/test/glancestack"
	"github.com/c5c3/glance-hooks/test/services"
)

const (
	// serviceLag is how long after a pod's stop began the stand-in
	// Service stops sending it new connections: less than the rendered
	// preStop sleep (5 s or more), as the endpoint change reaches kube-proxy within
	// a few seconds.
	serviceLag = time.Second
	// rollUserConnections is the database user's connection limit during
	// a roll. docs/stopping.md's formula gives 440 for this stack (4 pods
	// x 2 processes x oslo.db's 5 + 50); the load's four clients take far
	// fewer (11 to 14 measured, the roll prints its peak), so 200 leaves
	// room without sizing for a load it does not make.
	rollUserConnections = 200
	// connectionSamplePeriod is how often the database user's connections
	// are counted during a roll (one mariadb client run each).
	connectionSamplePeriod = 250 * time.Millisecond
	// loadWorkers upload and download at once through the Service.
	loadWorkers = 4
	// loadBeforeRoll is how many uploads the load has stored before the
	// roll begins: it runs steadily by then.
	loadBeforeRoll = 2 * loadWorkers
)

// rollUnderLoad rolls the stack's two glance-api pods (Step 3's default
// switch, a config change that rolls every pod) while uploads and
// downloads of 1 to 3 MiB go on through a stand-in Service, four at once.
// The Deployment's strategy starts a new pod and waits for it to be ready
// before an old one leaves the Service and stops as the kubelet stops it
// (the rendered preStop sleep, SIGTERM, SIGKILL after the grace period).
// No request may fail after its body started; every upload answered ends
// active with the checksums of the bytes sent, and one refused has stored
// nothing; no image stays in saving; every object in a bucket is an active
// image's.
func rollUnderLoad(t *testing.T, st *glancestack.Stack) {
	old := st.Pods()
	require.Len(t, old, 2, "two glance-api pods serve")
	require.GreaterOrEqual(t, int(st.Deployment(t).Spec.Template.Spec.Containers[0].Lifecycle.PreStop.Sleep.Seconds), glance.PreStopSleepSeconds,
		"a preStop sleep is rendered")
	proxy, load, stopLoad := startLoad(t, st)
	defer stopLoad()
	conns := sampleConnections(st.Services.DB, st.DBUser, connectionSamplePeriod)
	defer conns.finish()

	st.TakeEvents()
	switched := glancestack.GuideBackends(false)
	switched[0].IsDefault, switched[1].IsDefault = false, true
	began := time.Now()
	st.SetBackends(t, switched...)
	st.Reconcile(t)
	rolled := time.Since(began)
	stopLoad()
	peakConns, samples, err := conns.finish()
	require.NoError(t, err)
	require.Positive(t, samples, "the database user's connections were counted")
	events := st.TakeEvents()
	assertRolledAll(t, events, old)

	c := st.Client(t, st.Pods()[0])
	counts, uploads, problems := load.snapshot()
	v := verifyUploads(t, st, c, uploads)
	served := proxy.Served()
	for _, p := range append(old, st.Pods()...) {
		assert.Positive(t, served[p.Addr(glance.PortName)], "the Service sent pod %s (%s) connections", p.Pod.Name, p.Mode)
	}
	mode := old[0].Mode
	t.Logf("%s: a roll of 2 pods in %s under load: %d requests sent (%d creates, %d uploads, %d downloads), %d answered, "+
		"%d refused before the body started, %d failed after the body started, %d images stuck in saving, %d checksum mismatches, "+
		"%d objects without an active image, %d refused uploads not clean; connections per pod %v, %d reset by the Service; "+
		"database connections of the user at most %d in %d samples (limit %d)",
		mode, rolled.Round(time.Millisecond), counts.sent(), counts.creates, counts.uploads, counts.downloads, counts.byOutcome[answered],
		counts.byOutcome[refused], counts.byOutcome[broken], v.stuck, counts.mismatches+v.mismatches, v.orphans, v.unclean, served, proxy.Reset(),
		peakConns, samples, rollUserConnections)
	for _, p := range append(problems, v.problems...) {
		t.Log(p)
	}
	if counts.byOutcome[broken] > 0 {
		logBrokenUploads(t, append(old, st.Pods()...), uploads, proxy, began)
	}
	assertLoadLostNothing(t, counts, v)
}

// startLoad starts the roll's load (loadWorkers clients uploading and
// downloading) through a stand-in Service of st, and returns once it has
// stored its first images, with the func that stops it.
func startLoad(t *testing.T, st *glancestack.Stack) (*glancestack.ServiceProxy, *rollLoad, func()) {
	// A roll runs three pods at once, each process with oslo.db's pool (5
	// connections and up to 50 more under load): more than the 10 a
	// mariadb-operator User allows by default, which answers the requests
	// past it with 500s and leaves their images in saving. docs/stopping.md
	// tells users to raise the limit for a roll; the stack's user gets it.
	st.Services.DB.SetMaxUserConnections(t, st.DBUser, rollUserConnections)
	proxy := st.StartServiceProxy(t, serviceLag)
	load := newRollLoad(proxy.URL, st.Token(t), loadWorkers)
	stop := load.start(loadWorkers)
	waitFor(t, func() bool { return load.storedCount() >= loadBeforeRoll }, 3*time.Minute, "the load stores its first images")
	return proxy, load, stop
}

// assertLoadLostNothing checks what a load through a roll must never see:
// a request that failed after its body started, an image left in saving,
// a checksum that does not match, an object without an active image, a
// refused upload that left anything behind; and that uploads went on.
func assertLoadLostNothing(t *testing.T, counts loadCounts, v uploadsVerified) {
	assert.Zero(t, counts.byOutcome[broken], "requests failed after their body started")
	assert.Zero(t, v.stuck, "images stuck in saving")
	assert.Zero(t, counts.mismatches+v.mismatches, "checksum mismatches")
	assert.Zero(t, v.orphans, "objects in a bucket without an active image")
	assert.Zero(t, v.unclean, "refused uploads that left their image other than queued, or stored bytes")
	assert.Greater(t, counts.uploads, loadBeforeRoll, "uploads went on during the roll")
}

// logBrokenUploads prints what each pod logged about every upload that
// broke after its body started: which pod took it, how far it got, and how
// the pod's workers stopped around it.
func logBrokenUploads(t *testing.T, pods []*glancestack.Pod, uploads []*uploadRecord, proxy *glancestack.ServiceProxy, rollBegan time.Time) {
	t.Helper()
	t.Logf("the roll began at %s", rollBegan.UTC().Format(time.StampMilli))
	for _, u := range uploads {
		if u.outcome != broken {
			continue
		}
		t.Logf("upload of %s (%d bytes) sent %s after the roll began, connection %s to pod %s",
			u.id, u.size, u.began.Sub(rollBegan).Round(time.Millisecond), u.from, proxy.Route(u.from))
		for _, p := range pods {
			if lines := linesAbout(p.Logs(p.Container), u.id); strings.Count(lines, "\n") > 1 {
				t.Logf("pod %s (%s), %s", p.Pod.Name, p.Addr(glance.PortName), lines)
			}
		}
	}
	for _, p := range pods {
		t.Logf("pod %s (%s), %s", p.Pod.Name, p.Addr(glance.PortName),
			linesAbout(p.Logs(p.Container), "[uwsgi-body-read]", "Failed to upload", "MERCY", "Gracefully killing", "graceful", "buried", "Segmentation", "Traceback", "ERROR"))
	}
}

// assertRolledAll: each old pod was replaced as the Deployment's strategy
// says, a new pod ready before an old one stopped, and every old pod ended
// by itself within its grace period.
func assertRolledAll(t *testing.T, events []glancestack.Event, old []*glancestack.Pod) {
	t.Helper()
	var kinds, stopped []string
	for _, e := range events {
		kinds = append(kinds, string(e.Kind))
		if e.Kind == glancestack.PodStopped {
			stopped = append(stopped, e.Name)
		}
	}
	want := []string{string(glancestack.PodReady), string(glancestack.PodStopped), string(glancestack.PodReady), string(glancestack.PodStopped)}
	require.Equal(t, want, kinds, "the roll: %s", summary(events))
	assert.Equal(t, []string{old[0].Pod.Name, old[1].Pod.Name}, stopped, "the old pods stopped, oldest first")
	assertStopped(t, events)
}

// uploadsVerified is what the images and buckets say after the load.
type uploadsVerified struct {
	stuck, mismatches, orphans, unclean int
	problems                            []string
}

// verifyUploads reads back every image the load made and every object in
// the stack's buckets, through c: an upload answered is active with the
// size and checksums of the bytes sent, in the bucket of its store, and one
// refused is queued with nothing stored; no image at all is in saving, and
// every object is an active image's.
func verifyUploads(t *testing.T, st *glancestack.Stack, c *glancestack.Client, uploads []*uploadRecord) uploadsVerified {
	t.Helper()
	var v uploadsVerified
	bucketOf := map[string]string{"default": glancestack.Bucket1, "secondary": glancestack.Bucket2}
	objs := st.S3.Objects(t, glancestack.Bucket1, glancestack.Bucket2)
	ours := map[string]bool{}
	for _, u := range uploads {
		ours[u.id] = true
		img := c.Image(t, u.id)
		obj, inBucket := objs[bucketOf[img.Stores]][u.id]
		switch {
		case img.Status == "saving":
			v.stuck++
			v.problems = append(v.problems, fmt.Sprintf("image %s (upload %s) stays in saving", u.id, u.outcome))
		case img.Status == "active":
			if !activeAsSent(img, u) || !inBucket || obj != (services.S3Object{Size: int64(u.size), SHA256: u.sha256}) {
				v.mismatches++
				v.problems = append(v.problems, fmt.Sprintf("image %s (upload %s): %+v, object %+v, sent %d bytes md5 %s", u.id, u.outcome, img, obj, u.size, u.md5))
			}
		case u.outcome == answered:
			v.mismatches++
			v.problems = append(v.problems, fmt.Sprintf("image %s answered 204 but is %s", u.id, img.Status))
		case img.Status != "queued" || storedAnywhere(objs, u.id):
			v.problems = append(v.problems, fmt.Sprintf("image %s refused (%s) is %s, object stored: %t", u.id, u.detail, img.Status, storedAnywhere(objs, u.id)))
			v.unclean++
		}
	}
	v.stuck += len(imagesIn(t, c, "saving", ours))
	for bucket, keys := range objs {
		for key := range keys {
			if !ours[key] && !activeIn(t, c, key, bucket, bucketOf) {
				v.orphans++
				v.problems = append(v.problems, fmt.Sprintf("object %s in %s has no active image", key, bucket))
			}
		}
	}
	return v
}

func activeAsSent(img glancestack.Image, u *uploadRecord) bool {
	return img.Size != nil && *img.Size == int64(u.size) && img.Checksum == u.md5 && img.OSHashAlgo == "sha512" && img.OSHashValue == u.sha512 &&
		(u.store == "" || img.Stores == u.store)
}

func storedAnywhere(objs map[string]map[string]services.S3Object, id string) bool {
	for _, keys := range objs {
		if _, ok := keys[id]; ok {
			return true
		}
	}
	return false
}

// imagesIn lists the images in a status, but those in skip.
func imagesIn(t *testing.T, c *glancestack.Client, status string, skip map[string]bool) []string {
	t.Helper()
	var page struct {
		Images []glancestack.Image `json:"images"`
	}
	c.GetJSON(t, "/v2/images?limit=1000&status="+status, &page)
	var out []string
	for _, img := range page.Images {
		if !skip[img.ID] {
			out = append(out, img.ID)
		}
	}
	return out
}

// activeIn tells whether image id is active in the store whose bucket is
// bucket.
func activeIn(t *testing.T, c *glancestack.Client, id, bucket string, bucketOf map[string]string) bool {
	t.Helper()
	code, body := c.Call(t, http.MethodGet, "/v2/images/"+id, nil, nil)
	if code != http.StatusOK {
		return false
	}
	var img glancestack.Image
	require.NoError(t, json.Unmarshal(body, &img))
	return img.Status == "active" && strings.Contains(","+img.Stores+",", ","+storeOf(bucket, bucketOf)+",")
}

func storeOf(bucket string, bucketOf map[string]string) string {
	for store, b := range bucketOf {
		if b == bucket {
			return store
		}
	}
	return ""
}

// waitFor polls cond until it holds, failing after timeout.
func waitFor(t *testing.T, cond func() bool, timeout time.Duration, what string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, timeout)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
