package glance

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/glance/decide"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/render"
	"github.com/c5c3/glance-hooks/hooks/glance/report"
)

func TestDBPurgeCronJob(t *testing.T) {
	type want struct {
		Name, Schedule string
		Suspend        bool
		// Steps are each container's glance-manage arguments after the
		// config files, init containers first.
		Steps [][]string
	}
	purge := func(p *api.DBPurgeSpec) api.GlanceSpec { return testSpec(func(s *api.GlanceSpec) { s.DBPurge = p }) }
	step := func(cmd, days string) []string {
		return []string{"db", cmd, "--age_in_days", days, "--max_rows", "1000"}
	}
	cases := map[string]struct {
		reason string
		spec   api.GlanceSpec
		want   *want
	}{
		"unset": {"no block: the reference's default, a daily purge of the rows deleted 30 days ago", testSpec(),
			&want{Name: "glance-db-purge", Schedule: "1 0 * * *", Steps: [][]string{step("purge", "30")}}},
		"suspended": {"suspend is how a purge is turned off: the CronJob stays, paused", purge(&api.DBPurgeSpec{Suspend: true}),
			&want{Name: "glance-db-purge", Schedule: "1 0 * * *", Suspend: true, Steps: [][]string{step("purge", "30")}}},
		"defaults": {"an empty block: daily, 30 days, the images table left alone", purge(&api.DBPurgeSpec{}),
			&want{Name: "glance-db-purge", Schedule: "1 0 * * *", Steps: [][]string{step("purge", "30")}}},
		"everything": {"the images table after the rest, suspended, as written", purge(&api.DBPurgeSpec{RetentionDays: ptr(int32(7)),
			Schedule: "@hourly", PurgeImagesTable: ptr(true), Suspend: true}),
			&want{Name: "glance-db-purge", Schedule: "@hourly", Suspend: true, Steps: [][]string{step("purge", "7"), step("purge_images_table", "7")}}},
		"images table off": {"purgeImagesTable: false is the default", purge(&api.DBPurgeSpec{PurgeImagesTable: ptr(false)}),
			&want{Name: "glance-db-purge", Schedule: "1 0 * * *", Steps: [][]string{step("purge", "30")}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			g := &api.Glance{}
			g.Name, g.Namespace = "glance", "openstack"
			children := dbPurgeChildren(g, tc.spec, decide.RunTarget{Image: "glance:1"}, render.PodInputs{Mounts: render.Mounts{ConfigMap: "cfg", BackendsSecret: "bk"}, Digest: "digest", EveryPod: everyPod})
			var got *want
			for _, c := range children {
				cj := c.(*cronJobChild)
				got = &want{Name: cj.Name, Schedule: cj.Spec.Schedule, Suspend: *cj.Spec.Suspend}
				assert.Equal(t, batchv1.ForbidConcurrent, cj.Spec.ConcurrencyPolicy, "a run that outlasts the interval is not overtaken")
				job := cj.Spec.JobTemplate.Spec
				require.NotNil(t, job.ActiveDeadlineSeconds, "a stuck run ends")
				pod := job.Template.Spec
				assert.Equal(t, corev1.RestartPolicyNever, pod.RestartPolicy)
				assert.Equal(t, componentDBPurge, cj.Labels["app.kubernetes.io/component"], "kept out of the Service's selector")
				cfg, bk := render.PodMounts(pod.Volumes)
				assert.Equal(t, [2]string{"cfg", "bk"}, [2]string{cfg, bk}, "the config glance-api runs with")
				for _, c := range append(pod.InitContainers, pod.Containers...) {
					assert.Equal(t, "glance:1", c.Image, "the image glance-api runs")
					assert.Equal(t, []string{"glance-manage"}, c.Command)
					assert.Equal(t, render.ConfigArgs(), c.Args[:2], "the schema Jobs' config files")
					got.Steps = append(got.Steps, c.Args[2:])
					assert.Equal(t, render.LaunchEnv(g, tc.spec), c.Env, "the schema Jobs' database URL")
					assert.True(t, *c.SecurityContext.ReadOnlyRootFilesystem)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestDBPurgeNeverHoldsTheDatabaseURL: the CronJob names the database
// URL's Secret; the URL itself is nowhere in it.
func TestDBPurgeNeverHoldsTheDatabaseURL(t *testing.T) {
	g := &api.Glance{}
	g.Name = "glance"
	spec := testSpec(func(s *api.GlanceSpec) { s.DBPurge = &api.DBPurgeSpec{} })
	cj := dbPurgeChildren(g, spec, decide.RunTarget{Image: "i"}, render.PodInputs{Mounts: render.Mounts{ConfigMap: "c", BackendsSecret: "b"}, Digest: "d", EveryPod: everyPod})[0].(*cronJobChild)
	for _, e := range cj.Spec.JobTemplate.Spec.Template.Spec.Containers[0].Env {
		if strings.HasPrefix(e.Name, "OS_DATABASE") {
			assert.Empty(t, e.Value, "%s comes from a Secret", e.Name)
			require.NotNil(t, e.ValueFrom.SecretKeyRef)
		}
	}
}

func TestDBPurgeReady(t *testing.T) {
	at := func(h int) *metav1.Time {
		tm := metav1.NewTime(time.Date(2026, 1, 2, h, 0, 0, 0, time.UTC))
		return &tm
	}
	cronJob := func(st batchv1.CronJobStatus) metacontroller.ObjectMap {
		raw, err := json.Marshal(map[string]any{"apiVersion": "batch/v1", "kind": "CronJob",
			"metadata": map[string]any{"name": "glance-db-purge"}, "status": st})
		require.NoError(t, err)
		return metacontroller.ObjectMap{names.CronJobsKey: {"glance-db-purge": raw}}
	}
	cases := map[string]struct {
		reason   string
		purge    *api.DBPurgeSpec
		children metacontroller.ObjectMap
		want     *hook.Condition
	}{
		"unset": {"no block: the default purge, reported like any other", nil, cronJob(batchv1.CronJobStatus{}),
			&hook.Condition{Type: model.CondDBPurgeReady, Status: true, Reason: model.ReasonDBPurgeScheduled,
				Message: `CronJob "glance-db-purge" purges the rows deleted more than 30 days ago on "1 0 * * *" (no run has succeeded yet)`}},
		"not yet": {"before the schema is in place there is no CronJob", &api.DBPurgeSpec{}, metacontroller.ObjectMap{},
			&hook.Condition{Type: model.CondDBPurgeReady, Reason: model.ReasonDBPurgeNotScheduled,
				Message: `CronJob "glance-db-purge" does not exist yet: it comes with the Deployment, once the schema is in place`}},
		"scheduled": {"no run yet", &api.DBPurgeSpec{}, cronJob(batchv1.CronJobStatus{}),
			&hook.Condition{Type: model.CondDBPurgeReady, Status: true, Reason: model.ReasonDBPurgeScheduled,
				Message: `CronJob "glance-db-purge" purges the rows deleted more than 30 days ago on "1 0 * * *" (no run has succeeded yet)`}},
		"succeeded": {"the last run succeeded after it started", &api.DBPurgeSpec{RetentionDays: ptr(int32(7)), Schedule: "@daily"},
			cronJob(batchv1.CronJobStatus{LastScheduleTime: at(0), LastSuccessfulTime: at(1)}),
			&hook.Condition{Type: model.CondDBPurgeReady, Status: true, Reason: model.ReasonDBPurgeScheduled,
				Message: `CronJob "glance-db-purge" purges the rows deleted more than 7 days ago on "@daily" (last success 2026-01-02T01:00:00Z)`}},
		"running": {"a run in progress has not failed", &api.DBPurgeSpec{},
			cronJob(batchv1.CronJobStatus{LastScheduleTime: at(2), LastSuccessfulTime: at(1), Active: []corev1.ObjectReference{{Name: "glance-db-purge-1"}}}),
			&hook.Condition{Type: model.CondDBPurgeReady, Status: true, Reason: model.ReasonDBPurgeScheduled,
				Message: `CronJob "glance-db-purge" purges the rows deleted more than 30 days ago on "1 0 * * *" (last success 2026-01-02T01:00:00Z)`}},
		"failed": {"the last run ended without success", &api.DBPurgeSpec{},
			cronJob(batchv1.CronJobStatus{LastScheduleTime: at(2), LastSuccessfulTime: at(1)}),
			&hook.Condition{Type: model.CondDBPurgeReady, Reason: model.ReasonDBPurgeJobFailed,
				Message: `the run of CronJob "glance-db-purge" started at 2026-01-02T02:00:00Z did not succeed (last success 2026-01-02T01:00:00Z); its Job's pods say why; the next run tries again`}},
		"never succeeded": {"the first run failed", &api.DBPurgeSpec{}, cronJob(batchv1.CronJobStatus{LastScheduleTime: at(2)}),
			&hook.Condition{Type: model.CondDBPurgeReady, Reason: model.ReasonDBPurgeJobFailed,
				Message: `the run of CronJob "glance-db-purge" started at 2026-01-02T02:00:00Z did not succeed (no run has succeeded yet); its Job's pods say why; the next run tries again`}},
		"suspended": {"a posture, not a fault, under its own reason", &api.DBPurgeSpec{Suspend: true},
			cronJob(batchv1.CronJobStatus{LastScheduleTime: at(2)}),
			&hook.Condition{Type: model.CondDBPurgeReady, Status: true, Reason: model.ReasonDBPurgeSuspended,
				Message: `CronJob "glance-db-purge" is suspended (spec.dbPurge.suspend): the rows deleted more than 30 days ago stay and the database grows`}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			g := &api.Glance{Spec: api.GlanceSpec{DBPurge: tc.purge}}
			g.Name = "glance"
			got, err := dbPurgeReady(g, observePurge(tc.children, g), false)
			require.NoError(t, err)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// The answer that creates the CronJob says what the sync that observes it
// says, so creating it costs no status write of its own; a CronJob the
// answer does not return and nobody observed is not scheduled.
func TestDBPurgeReadyFromTheAnswer(t *testing.T) {
	g := &api.Glance{Spec: api.GlanceSpec{DBPurge: &api.DBPurgeSpec{}}}
	g.Name = "glance"
	asked, err := dbPurgeReady(g, observePurge(metacontroller.ObjectMap{}, g), true)
	require.NoError(t, err)
	observed, err := dbPurgeReady(g, observePurge(metacontroller.ObjectMap{names.CronJobsKey: {"glance-db-purge": json.RawMessage(`{"status":{}}`)}}, g), false)
	require.NoError(t, err)
	if diff := cmp.Diff(observed, asked); diff != "" {
		t.Errorf("asked for, -observed, +asked:\n%s", diff)
	}
	require.Equal(t, model.ReasonDBPurgeScheduled, asked.Reason)
}

// TestDBPurgeEvents: a failed run is a Warning Event, each failed run one
// of its own; a purge that runs or is suspended makes none.
func TestDBPurgeEvents(t *testing.T) {
	failed := func(start string) api.GlanceStatus {
		return api.GlanceStatus{Conditions: []metav1.Condition{cond(model.CondDBPurgeReady, false, model.ReasonDBPurgeJobFailed,
			"the run of CronJob \"glance-db-purge\" started at "+start+" did not succeed")}}
	}
	cases := map[string]struct {
		reason string
		status api.GlanceStatus
		want   []string
	}{
		"failed": {"a Warning naming the run", failed("2026-01-02T00:01:00Z"),
			[]string{`Warning DBPurgeJobFailed: the run of CronJob "glance-db-purge" started at 2026-01-02T00:01:00Z did not succeed`}},
		"scheduled": {"nothing to report", api.GlanceStatus{Conditions: []metav1.Condition{cond(model.CondDBPurgeReady, true, model.ReasonDBPurgeScheduled, "ok")}}, nil},
		"suspended": {"a posture, not an Event", api.GlanceStatus{Conditions: []metav1.Condition{cond(model.CondDBPurgeReady, true, model.ReasonDBPurgeSuspended, "paused")}}, nil},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			evs, err := events(glanceWith(tc.status), observeEvents(metacontroller.ObjectMap{}), soon)
			require.NoError(t, err)
			if diff := cmp.Diff(tc.want, summary(t, evs)); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
	first, err := events(glanceWith(failed("2026-01-02T00:01:00Z")), observeEvents(metacontroller.ObjectMap{}), soon)
	require.NoError(t, err)
	next, err := events(glanceWith(failed("2026-01-03T00:01:00Z")), observeEvents(metacontroller.ObjectMap{}), soon)
	require.NoError(t, err)
	require.Len(t, first, 1)
	require.Len(t, next, 1)
	require.NotEqual(t, first[0].(*report.EventChild).Name, next[0].(*report.EventChild).Name, "the next failed run is another Event")
}
