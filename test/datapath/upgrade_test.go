package datapath

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/glance"
	"github.com/c5c3/glance-hooks/test/glancestack"
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
		// glance-manage ran each step against MariaDB and found nothing to
		// do: the same Glance on both sides.
		step, _ := j.Pod.Result("db-" + j.Action)
		assert.Contains(t, step.Log, "Database is up to date", "Job %s", j.Name)
	}
	assert.Equal(t, [][]string{{"db-expand"}, {"db-migrate"}, {"db-contract", "load-metadefs"}}, containers)

	status := st.Status(t)
	assert.Equal(t, "2026.1", status.InstalledRelease)
	assert.Equal(t, newImage, status.InstalledImage)
	assert.Nil(t, status.Upgrade, "the upgrade is over")
	assert.Equal(t, "True/DatabaseSynced", st.Condition(t, api.KindGlance, st.Glance, "DatabaseReady"))
	assert.Equal(t, "True/AllReady", st.Condition(t, api.KindGlance, st.Glance, "Ready"))
	assert.Equal(t, before, st.Schema(t), "the schema, row counts and revision are those of 2025.2")
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
	t.Logf("upgrade walk %s", time.Since(began).Round(time.Millisecond))
	for _, e := range events {
		t.Log(e)
	}
}
