package glance

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/glance/decide"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/observe"
	"github.com/c5c3/glance-hooks/hooks/glance/render"
)

func TestJobNamer(t *testing.T) {
	short := render.JobNamer("glance", "/m")
	long := render.JobNamer(strings.Repeat("g", 63), "/m")
	sync := observe.SchemaJob{Action: observe.ActionSync, Image: "glance:2025.2"}
	cases := map[string]struct {
		reason string
		a, b   string
		same   bool
	}{
		"Deterministic":   {"the same run has the same name", short(sync), render.JobNamer("glance", "/m")(sync), true},
		"Image":           {"another image is another Job", short(sync), short(observe.SchemaJob{Action: observe.ActionSync, Image: "glance:2025.2-p1"}), false},
		"Action":          {"another step is another Job", short(sync), short(observe.SchemaJob{Action: observe.ActionExpand, Image: "glance:2025.2"}), false},
		"MetadefsPath":    {"another metadefs path is another Job", short(sync), render.JobNamer("glance", "/n")(sync), false},
		"LongGlanceNames": {"two long Glance names cut to one prefix still differ", long(sync), render.JobNamer(strings.Repeat("g", 62)+"h", "/m")(sync), false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if (tc.a == tc.b) != tc.same {
				t.Errorf("%s: %q and %q", tc.reason, tc.a, tc.b)
			}
			for _, n := range []string{tc.a, tc.b} {
				if len(n) > names.MaxJobName || strings.HasSuffix(strings.Split(n, "-db-")[0], "-") {
					t.Errorf("%s: %q is not a Job name the Job controller can label", tc.reason, n)
				}
			}
		})
	}
	if got := short(sync); !strings.HasPrefix(got, "glance-db-sync-") {
		t.Errorf("a Job name says whose and what: %q", got)
	}
}

func TestSchemaJobChild(t *testing.T) {
	g := &api.Glance{}
	g.Name, g.Namespace = "glance", "openstack"
	spec := testSpec()
	type want struct {
		init, main []string // container name: args after the config arguments
	}
	cases := map[string]struct {
		reason string
		action observe.Action
		want   want
	}{
		"Sync": {"db sync, then the metadata definitions", observe.ActionSync,
			want{init: []string{"db-sync: db sync"}, main: []string{"load-metadefs: db load_metadefs --path " + api.DefaultMetadefsPath}}},
		"Expand":  {"db expand alone", observe.ActionExpand, want{main: []string{"db-expand: db expand"}}},
		"Migrate": {"db migrate alone", observe.ActionMigrate, want{main: []string{"db-migrate: db migrate"}}},
		"Contract": {"db contract, then the new release's metadata definitions", observe.ActionContract,
			want{init: []string{"db-contract: db contract"}, main: []string{"load-metadefs: db load_metadefs --path " + api.DefaultMetadefsPath}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			j := render.SchemaJobChild(g, spec, observe.SchemaJob{Action: tc.action, Image: "glance:2025.2"}, "j", render.PodInputs{Mounts: render.Mounts{ConfigMap: "glance-config-1", BackendsSecret: "glance-backends-1"}, Digest: "d1", EveryPod: everyPod})
			pod := j.Spec.Template.Spec
			var got want
			for _, c := range pod.InitContainers {
				got.init = append(got.init, c.Name+": "+strings.Join(c.Args[2:], " "))
			}
			for _, c := range pod.Containers {
				got.main = append(got.main, c.Name+": "+strings.Join(c.Args[2:], " "))
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nschemaJobChild(...): -want, +got:\n%s", tc.reason, diff)
			}
			for _, c := range append(pod.InitContainers, pod.Containers...) {
				if c.Command[0] != "glance-manage" || c.Image != "glance:2025.2" || !cmp.Equal(c.Args[:2], render.ConfigArgs()) {
					t.Errorf("%s: %s runs %v %v in %s, want glance-manage with the API's config arguments", tc.reason, c.Name, c.Command, c.Args, c.Image)
				}
				if !cmp.Equal(c.Env, render.LaunchEnv(g, spec)) {
					t.Errorf("%s: %s has another environment than glance-api", tc.reason, c.Name)
				}
			}
			if cm, sec := render.PodMounts(pod.Volumes); cm != "glance-config-1" || sec != "glance-backends-1" {
				t.Errorf("%s: mounts %s and %s", tc.reason, cm, sec)
			}
			if pod.RestartPolicy != "Never" || *j.Spec.BackoffLimit != render.JobBackoffLimit || *j.Spec.ActiveDeadlineSeconds != render.JobActiveDeadlineSeconds {
				t.Errorf("%s: the Job is not bounded as designed", tc.reason)
			}
			if j.Spec.TTLSecondsAfterFinished != nil {
				t.Errorf("%s: a TTL would delete a Job the hook still returns, and Metacontroller would run it again", tc.reason)
			}
			if j.Spec.Template.Annotations[names.AnnotationCredentialsDigest] != "d1" {
				t.Errorf("%s: the pod template carries the credentials digest", tc.reason)
			}
			if labels.SelectorFromSet(model.SelectorLabels(g)).Matches(labels.Set(j.Spec.Template.Labels)) {
				t.Errorf("%s: the Job's pods must not match the Service's selector", tc.reason)
			}
		})
	}
}

func TestKeepJob(t *testing.T) {
	plan := decide.SchemaPlan{InstalledImage: "glance:2025.2", Upgrade: &api.UpgradeStatus{Phase: api.PhaseMigrating, TargetImage: "glance:2026.1"}}
	steady := decide.SchemaPlan{InstalledImage: "glance:2025.2"}
	job := func(a observe.Action, image string, st observe.JobState) observe.ObservedJob {
		return observe.ObservedJob{Name: "j", Job: observe.SchemaJob{Action: a, Image: image}, State: st}
	}
	cases := map[string]struct {
		reason string
		job    observe.ObservedJob
		plan   decide.SchemaPlan
		want   bool
	}{
		"Running":          {"a running Job is never cut short", job(observe.ActionSync, "glance:2024.2", observe.JobRunning), steady, true},
		"InstalledImage":   {"the finished Jobs of the installed image stay, with their logs", job(observe.ActionSync, "glance:2025.2", observe.JobSucceeded), steady, true},
		"UpgradeTarget":    {"the finished steps of an upgrade stay until it is over", job(observe.ActionExpand, "glance:2026.1", observe.JobSucceeded), plan, true},
		"Superseded":       {"a finished Job of an image no longer installed goes", job(observe.ActionSync, "glance:2024.2", observe.JobSucceeded), steady, false},
		"FailedSuperseded": {"a failed Job of an image the spec left goes", job(observe.ActionSync, "glance:2025.2-p9", observe.JobFailed), steady, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := render.KeepJob(tc.job, tc.plan); got != tc.want {
				t.Errorf("%s: keepJob = %v, want %v", tc.reason, got, tc.want)
			}
		})
	}
}
