package render

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/contenthash"
	"github.com/c5c3/glance-hooks/hooks/contract/excerpt"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/glance/decide"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/observe"
)

// Bounds of a schema Job. glance-manage waits for the database as long as
// [database] max_retries allows (-1: for ever), so the deadline is what
// ends a Job whose database never comes; the retries cover a database
// that restarts underneath it.
const (
	JobBackoffLimit          = int32(3)
	JobActiveDeadlineSeconds = int64(1800)
)

// Schema Jobs are not given ttlSecondsAfterFinished. Metacontroller
// deletes a child a sync stops returning and creates one the sync returns
// but it does not find: a Job the TTL controller removed while the hook
// still returns it would be created again and run again. So the hook
// decides how long a finished Job stays: it keeps returning the Jobs of the
// installed image and of an upgrade's target image (at most one per step,
// their pods keep the logs), and every Job that has not finished, which is
// never cut short. A failed Job stays until someone deletes it; the next
// sync then creates it again, which is how a failed step is retried.

// jobChild is a Job as the hook returns it: no status.
type jobChild struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              batchv1.JobSpec `json:"spec"`
}

// JobNamer names the Jobs of a Glance by a content hash of what they run:
// the step, the image and the metadata definitions path (and the Glance, so
// two Glances with long names cut to the same prefix never share a name).
// A Job's template cannot change; a different run is a different Job.
func JobNamer(glance, metadefsPath string) func(observe.SchemaJob) string {
	return func(j observe.SchemaJob) string {
		hash := contenthash.Of(map[string]string{"glance": glance, "action": string(j.Action), "image": j.Image, "metadefs": metadefsPath})
		return names.JobName(glance, "-db-"+string(j.Action)+"-"+hash)
	}
}

// ManageContainer is a container of glance-manage running args with the
// config, state directories, environment and restrictions every glance
// program of the Glance runs with: a schema step's or the purge's.
func ManageContainer(g *api.Glance, spec api.GlanceSpec, name, image string, args ...string) corev1.Container {
	return glanceContainer(g, spec, program{name, image, []string{"glance-manage"}, append(ConfigArgs(), args...)})
}

// SchemaJobChild renders the Job of a step: the same config files,
// environment, digest and restrictions as glance-api, with the glance-manage
// commands of the step in order (all but the last as init containers, so
// each runs only when the one before succeeded, without a shell).
func SchemaJobChild(g *api.Glance, spec api.GlanceSpec, j observe.SchemaJob, name string, in PodInputs) *jobChild {
	type step struct {
		name string
		args []string
	}
	metadefs := step{"load-metadefs", []string{"db", "load_metadefs", "--path", spec.MetadefsPath}}
	steps := map[observe.Action][]step{
		observe.ActionSync:     {{"db-sync", []string{"db", "sync"}}, metadefs},
		observe.ActionExpand:   {{"db-expand", []string{"db", "expand"}}},
		observe.ActionMigrate:  {{"db-migrate", []string{"db", "migrate"}}},
		observe.ActionContract: {{"db-contract", []string{"db", "contract"}}, metadefs},
	}[j.Action]
	var containers []corev1.Container
	for _, st := range steps {
		containers = append(containers, ManageContainer(g, spec, st.name, j.Image, st.args...))
	}
	pod := ManageJobPod(spec, in, containers)
	labels := jobLabels(g, j.Action)
	backoff, deadline := JobBackoffLimit, JobActiveDeadlineSeconds
	return &jobChild{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: g.Namespace, Labels: labels},
		Spec: batchv1.JobSpec{
			BackoffLimit:          &backoff,
			ActiveDeadlineSeconds: &deadline,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels,
					Annotations: map[string]string{names.AnnotationCredentialsDigest: in.Digest}},
				Spec: pod,
			},
		},
	}
}

// jobLabels: the component keeps Job pods out of the Service's selector.
func jobLabels(g *api.Glance, a observe.Action) map[string]string {
	return map[string]string{
		names.LabelName: "glance", names.LabelInstance: g.Name, names.LabelComponent: model.ComponentSchema,
		names.LabelManagedBy: names.ManagedBy, names.LabelSchemaAction: string(a),
	}
}

// observedJobObject is an observed Job as far as the hook reads it.
type observedJobObject struct {
	Metadata struct {
		Name   string            `json:"name"`
		Labels map[string]string `json:"labels"`
	} `json:"metadata"`
	Spec struct {
		Template struct {
			Spec struct {
				Containers []corev1.Container `json:"containers"`
				Volumes    []corev1.Volume    `json:"volumes"`
			} `json:"spec"`
		} `json:"template"`
	} `json:"spec"`
	Status struct {
		Conditions []batchv1.JobCondition `json:"conditions"`
	} `json:"status"`
}

// ObservedJobs reads the schema Jobs among the children, in name order, and
// the ConfigMap and Secret each unfinished one mounts.
func ObservedJobs(children metacontroller.ObjectMap) (jobs []observe.ObservedJob, mounted []Mounts, err error) {
	objs, err := metacontroller.Decode(children, names.JobsKey, func(*observedJobObject) bool { return true })
	if err != nil {
		return nil, nil, hook.Invalid("observed %v", err)
	}
	for _, o := range objs {
		a := observe.Action(o.Metadata.Labels[names.LabelSchemaAction])
		if a == "" || len(o.Spec.Template.Spec.Containers) == 0 {
			continue
		}
		j := observe.ObservedJob{Name: o.Metadata.Name, Job: observe.SchemaJob{Action: a, Image: o.Spec.Template.Spec.Containers[0].Image}}
		for _, c := range o.Status.Conditions {
			switch {
			case c.Status != corev1.ConditionTrue:
			case c.Type == batchv1.JobComplete:
				j.State = observe.JobSucceeded
			case c.Type == batchv1.JobFailed:
				j.State = observe.JobFailed
			}
		}
		if j.State == observe.JobRunning {
			cm, sec := PodMounts(o.Spec.Template.Spec.Volumes)
			mounted = append(mounted, Mounts{cm, sec})
		}
		jobs = append(jobs, j)
	}
	return jobs, mounted, nil
}

// KeepJob says whether a finished or unfinished observed Job other than the
// planned one stays (see the retention note above).
func KeepJob(o observe.ObservedJob, p decide.SchemaPlan) bool {
	if o.State == observe.JobRunning {
		return true
	}
	if p.Upgrade != nil && o.Job.Image == p.Upgrade.TargetImage {
		return true
	}
	return o.Job.Image == p.InstalledImage
}

// SchemaJobs are the Job children: the planned one (as last applied when it
// exists, so its template never changes) and the observed ones keepJob keeps.
func SchemaJobs(o *observe.Observed, p decide.SchemaPlan, jobName func(observe.SchemaJob) string, in PodInputs) ([]any, error) {
	children, jobs := o.Applied, o.Jobs
	var out []any
	planned := ""
	if p.Job != nil {
		planned = jobName(*p.Job)
		applied, found, err := children.One(names.JobsKey, planned)
		switch {
		case err != nil:
			return nil, hook.Invalid("observed Job %s: %v", excerpt.Name(planned), err)
		case found:
			out = append(out, applied)
		default:
			out = append(out, SchemaJobChild(o.Glance, o.Spec, *p.Job, planned, in))
		}
	}
	for _, o := range jobs {
		if o.Name == planned || !KeepJob(o, p) {
			continue
		}
		applied, err := children.AnyOf(names.JobsKey, o.Name)
		if err != nil {
			return nil, hook.Invalid("observed Job %s: %v", excerpt.Name(o.Name), err)
		}
		out = append(out, applied)
	}
	return out, nil
}

// ManageJobPod is the pod of a glance-manage Job, a schema step's or the purge's:
// its steps run in order, each but the last as an init container, so no
// shell is needed to chain them, and it reaches the database as glance-api
// does.
func ManageJobPod(spec api.GlanceSpec, in PodInputs, steps []corev1.Container) corev1.PodSpec {
	pod := glancePod(in.Mounts, jobStateVolumes(), steps[len(steps)-1])
	pod.InitContainers = steps[:len(steps)-1]
	pod.RestartPolicy = corev1.RestartPolicyNever
	mountEveryPod(spec, &pod, in.JobPod)
	mountEveryPod(spec, &pod, in.EveryPod)
	return pod
}
