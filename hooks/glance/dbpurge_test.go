package glance

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/glance/decide"
	"github.com/c5c3/glance-hooks/hooks/glance/render"
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
			children := render.DBPurgeChildren(g, tc.spec, decide.RunTarget{Image: "glance:1"}, render.PodInputs{Mounts: render.Mounts{ConfigMap: "cfg", BackendsSecret: "bk"}, Digest: "digest", EveryPod: everyPod})
			var got *want
			for _, c := range children {
				cj := c.(*render.CronJobChild)
				got = &want{Name: cj.Name, Schedule: cj.Spec.Schedule, Suspend: *cj.Spec.Suspend}
				assert.Equal(t, batchv1.ForbidConcurrent, cj.Spec.ConcurrencyPolicy, "a run that outlasts the interval is not overtaken")
				job := cj.Spec.JobTemplate.Spec
				require.NotNil(t, job.ActiveDeadlineSeconds, "a stuck run ends")
				pod := job.Template.Spec
				assert.Equal(t, corev1.RestartPolicyNever, pod.RestartPolicy)
				assert.Equal(t, render.ComponentDBPurge, cj.Labels["app.kubernetes.io/component"], "kept out of the Service's selector")
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
	cj := render.DBPurgeChildren(g, spec, decide.RunTarget{Image: "i"}, render.PodInputs{Mounts: render.Mounts{ConfigMap: "c", BackendsSecret: "b"}, Digest: "d", EveryPod: everyPod})[0].(*render.CronJobChild)
	for _, e := range cj.Spec.JobTemplate.Spec.Template.Spec.Containers[0].Env {
		if strings.HasPrefix(e.Name, "OS_DATABASE") {
			assert.Empty(t, e.Value, "%s comes from a Secret", e.Name)
			require.NotNil(t, e.ValueFrom.SecretKeyRef)
		}
	}
}
