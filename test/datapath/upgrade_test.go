package datapath

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/glance"
	"github.com/c5c3/glance-hooks/test/glancestack"
	"github.com/c5c3/glance-hooks/test/podrun"
	"github.com/c5c3/glance-hooks/test/services"
)

// upgradeWalk moves the installed 2025.2 Glance's openStackRelease to
// 2026.1 and lets the cluster do the rest: the expand and migrate Jobs
// against MariaDB while the eventlet pod keeps serving, the roll to a uWSGI
// pod, then the contract Job. Both releases are Debian's glance 25.1, so
// every glance-manage step finds the schema at its head: the walk proves
// the order of Jobs and rollout, the launch mode at each step and the final
// status on the real database, not a schema change. images are the
// stack's images by id; each must download the same after the upgrade.
func upgradeWalk(t *testing.T, st *glancestack.Stack, images map[string][]byte) {
	began := time.Now()
	before := st.Schema(t)
	require.Equal(t, glance.Eventlet, onlyPod(t, st).Mode)
	stores := st.Client(t, onlyPod(t, st)).Stores(t)

	events := upgradeSteps(t, st)
	jobs := st.Jobs()
	jobs = jobs[len(jobs)-3:]
	for _, j := range jobs {
		// glance-manage ran each step against MariaDB and found nothing to
		// do: the same Glance on both sides.
		step, _ := j.Pod.Result("db-" + j.Action)
		assert.Contains(t, step.Log, "Database is up to date", "Job %s", j.Name)
	}
	assert.Equal(t, before, st.Schema(t), "the schema, row counts and revision are those of 2025.2")
	upgraded(t, st, stores, images)
	t.Logf("upgrade walk %s", time.Since(began).Round(time.Millisecond))
	for _, e := range events {
		t.Log(e)
	}
}

// upgradeSteps moves the installed 2025.2 Glance's openStackRelease to
// 2026.1, lets the cluster converge, and checks the order: the expand and
// migrate Jobs while 2025.2 serves, the roll to a uWSGI pod of 2026.1, then
// the contract Job. It returns the converge's events.
func upgradeSteps(t *testing.T, st *glancestack.Stack) []glancestack.Event {
	st.TakeEvents()
	st.SetRelease(t, "2026.1", "")
	st.Reconcile(t)
	events := st.TakeEvents()

	oldImage, newImage := api.DefaultImageRepository+":2025.2", api.DefaultImageRepository+":2026.1"
	oldPod, newPod := oldImage+" "+string(glance.Eventlet), newImage+" "+string(glance.UWSGI)
	type step struct {
		What, Phase string
		Running     []string
	}
	var got []step
	for _, e := range events {
		what := string(e.Kind) + " " + e.Image
		if e.Action != "" {
			what = string(e.Kind) + " " + e.Action + " " + e.Image
		} else if e.Mode != "" {
			what += " " + string(e.Mode)
		}
		got = append(got, step{what, e.Phase, e.Running})
	}
	assert.Equal(t, []step{
		{"JobSucceeded expand " + newImage, api.PhaseExpanding, []string{oldPod}},
		{"JobSucceeded migrate " + newImage, api.PhaseMigrating, []string{oldPod}},
		{"PodReady " + newImage + " uwsgi", api.PhaseRollingUpdate, []string{oldPod, newPod}},
		{"PodStopped " + oldImage + " eventlet", api.PhaseRollingUpdate, []string{newPod}},
		{"JobSucceeded contract " + newImage, api.PhaseContracting, []string{newPod}},
	}, got, "expand and migrate while 2025.2 serves, then the roll to 2026.1 under uWSGI, then contract")
	assertStopped(t, events)

	jobs := st.Jobs()
	jobs = jobs[len(jobs)-3:]
	var containers [][]string
	for _, j := range jobs {
		containers = append(containers, j.Containers())
	}
	assert.Equal(t, [][]string{{"db-expand"}, {"db-migrate"}, {"db-contract", "load-metadefs"}}, containers)
	return events
}

// upgraded checks a Glance after upgradeSteps: its status says 2026.1 is
// installed and everything Ready, its pod runs the uWSGI ini of a new
// ConfigMap and lists the stores it listed before, and every image
// uploaded before downloads the same.
func upgraded(t *testing.T, st *glancestack.Stack, stores map[string]bool, images map[string][]byte) {
	newImage := api.DefaultImageRepository + ":2026.1"
	status := st.Status(t)
	assert.Equal(t, "2026.1", status.InstalledRelease)
	assert.Equal(t, newImage, status.InstalledImage)
	assert.Nil(t, status.Upgrade, "the upgrade is over")
	assert.Equal(t, "True/DatabaseSynced", st.Condition(t, api.KindGlance, st.Glance, "DatabaseReady"))
	assert.Equal(t, "True/AllReady", st.Condition(t, api.KindGlance, st.Glance, "Ready"))
	cm, _ := st.Mounts(t)
	assert.Contains(t, st.ConfigMapData(t, cm), glance.UWSGIFile, "the pod runs the uWSGI ini of a new ConfigMap")

	p := onlyPod(t, st)
	require.Equal(t, glance.UWSGI, p.Mode)
	c := st.Client(t, p)
	assert.Equal(t, stores, c.Stores(t), "the same stores, the same default")
	for id, img := range images {
		assert.Equal(t, img, c.Download(t, id), "image %s, uploaded through 2025.2, downloads through 2026.1", id)
	}
	assertStopped(t, st.StopPods(t))
}

// upgradeAcrossGlances walks the release upgrade from one Glance to
// another, as a cluster pulls another image: the 2025.2 pods and Jobs run
// Debian 12's glance 25.1, the 2026.1 ones Debian unstable's glance 33
// (Options.ImageRoots). 25.1 leaves the schema at wallaby_contract01; 33's
// expand Job adds 2024.1's image cache tables while the 25.1 pod serves on
// the widened schema, its migrate and contract Jobs take the schema to
// 2024_1_contract01, keeping every table 25.1 had. The images
// uploaded through 25.1 download through 33, which takes new ones. The
// roll's load runs through a stand-in Service the whole time, and loses no
// request; some of its uploads are answered by the 25.1 pod after the
// expand Job widened the schema and before the 33 pod started.
func upgradeAcrossGlances(t *testing.T, svc *glancestack.Services) {
	began := time.Now()
	// glance_store 4.1 signs for us-east-1 whatever region is rendered
	// (S3Region); 5.7 signs for the rendered one: render that one.
	const region = "us-east-1"
	backends := glancestack.GuideBackends(false)
	for i := range backends {
		backends[i].Region = region
	}
	st := glancestack.New(t, svc, glancestack.Options{Release: "2025.2", Database: "glance_upgrade_unstable",
		Backends: backends, S3: services.S3Options{Region: region},
		// The eventlet pod finishes its uploads only within its preStop
		// sleep, which the kubelet sleeps whole (docs/stopping.md).
		PreStopSleepSeconds: preStopFor(t, "2025.2"), Pods: podrun.Options{MaxPreStopSleep: time.Minute},
		ImageRoots: map[string]string{api.DefaultImageRepository + ":2026.1": glancestack.UnstableRoot(t)}})
	st.Reconcile(t)
	before := st.Schema(t)
	require.Equal(t, "wallaby_contract01", before.Revision, "glance 25.1's schema")
	p := onlyPod(t, st)
	require.Equal(t, glance.Eventlet, p.Mode)
	c := st.Client(t, p)
	stores := c.Stores(t)
	images := map[string][]byte{}
	for i, store := range []string{"default", "secondary"} {
		img := randomBytes(uint64(61+i), 512<<10+i)
		images[c.UploadActive(t, "before-upgrade-"+store, img, store, store)] = img
	}

	proxy, load, stopLoad := startLoad(t, st)
	defer stopLoad()
	window := watchOldPodOnWidenedSchema(st, load)
	events := upgradeSteps(t, st)
	stopLoad()
	storedOnWidened := window()
	counts, uploads, problems := load.snapshot()
	for _, p := range problems {
		t.Log(p)
	}
	assertLoadLostNothing(t, counts, verifyUploads(t, st, st.Client(t, onlyPod(t, st)), uploads))
	assert.Positive(t, storedOnWidened, "uploads answered by the 25.1 pod on the schema glance 33's expand widened")
	t.Logf("the load: %d requests, %d answered, %d refused before the body started, %d failed after; %d uploads answered by 25.1 on the widened schema; connections per pod %v",
		counts.sent(), counts.byOutcome[answered], counts.byOutcome[refused], counts.byOutcome[broken], storedOnWidened, proxy.Served())

	logs := map[string]string{}
	for _, j := range st.Jobs()[len(st.Jobs())-3:] {
		step, _ := j.Pod.Result("db-" + j.Action)
		logs[j.Action] = step.Log
	}
	after := st.Schema(t)
	assert.Equal(t, "2024_1_contract01", after.Revision, "glance 33's schema; glance-manage said:\n%s", logs)
	var added []string
	for table := range after.Tables {
		if _, ok := before.Tables[table]; !ok {
			added = append(added, table)
		}
	}
	slices.Sort(added)
	assert.Equal(t, []string{"cached_images", "node_reference"}, added, "the expand Job added 2024.1's tables")
	for table := range before.Tables {
		assert.Contains(t, after.Tables, table, "glance 33 keeps table %s", table)
	}
	c = st.Client(t, onlyPod(t, st))
	img := randomBytes(63, 300<<10)
	assert.Equal(t, img, c.Download(t, c.UploadActive(t, "after-upgrade", img, "", "default")), "glance 33 takes and gives back a new image")
	upgraded(t, st, stores, images)
	t.Logf("upgrade from glance %s to 33 in %s; glance-manage expand said: %s", st.Versions.Glance, time.Since(began).Round(time.Millisecond),
		lineWith(logs["expand"], "pgrade"))
	for _, e := range events {
		t.Log(e)
	}
}

// watchOldPodOnWidenedSchema counts, in the background, the load's uploads
// answered between the end of the expand Job (the schema widened) and the
// start of the first pod of 2026.1: all of them the 25.1 pod's, the only
// one the stand-in Service had. The returned func stops the watch and says
// how many.
func watchOldPodOnWidenedSchema(st *glancestack.Stack, load *rollLoad) func() int {
	newImage := api.DefaultImageRepository + ":2026.1"
	done := make(chan struct{})
	result := make(chan int, 1)
	go func() {
		widened, count := -1, 0
		defer func() { result <- count }()
		for {
			select {
			case <-done:
				return
			case <-time.After(50 * time.Millisecond):
			}
			if widened < 0 && slices.ContainsFunc(st.Events(), func(e glancestack.Event) bool { return e.Action == "expand" }) {
				widened = load.storedCount()
			}
			if widened >= 0 && slices.ContainsFunc(st.Pods(), func(p *glancestack.Pod) bool { return p.Image == newImage }) {
				count = load.storedCount() - widened
				<-done
				return
			}
		}
	}()
	return func() int {
		close(done)
		return <-result
	}
}
