package glance

import (
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/excerpt"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/glance/decide"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/observe"
	"github.com/c5c3/glance-hooks/hooks/glance/render"
	"github.com/c5c3/glance-hooks/hooks/glance/report"
)

// The database purge (spec.dbPurge). Glance never deletes a row: a deleted
// image, its properties, members, tags and locations, and every finished
// task stay in the database marked deleted. A CronJob runs glance-manage
// db purge over the rows deleted longer ago than the retention, and
// db purge_images_table after it when asked. Every Glance has one, as in the
// reference: without the block the defaults apply (api.DBPurgeOf), and
// spec.dbPurge.suspend pauses it, keeping the CronJob, so turning it back on
// is one field.
const (
	// componentDBPurge labels the CronJob, its Jobs and their pods; not
	// "api", so they stay out of the Service and the disruption budget,
	// nor "schema", so sync is not asked about them (podsRelated).
	componentDBPurge = "db-purge"
	// purgeMaxRows bounds each table's delete transaction, so a long
	// backlog never holds a Galera write-set for minutes; at the default
	// daily schedule that is 1000 rows per table per day, and a shorter
	// schedule drains faster.
	purgeMaxRows = 1000
	// purgeDeadlineSeconds ends a run stuck on a lock or a database that is
	// gone, so the next firing is not blocked for ever (concurrencyPolicy
	// Forbid skips a firing while a run is active).
	purgeDeadlineSeconds = int64(3600)
	purgeBackoffLimit    = int32(2)
)

// cronJobChild is a CronJob as the hook returns it: no status.
type cronJobChild struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              batchv1.CronJobSpec `json:"spec"`
}

// dbPurgeWithDeployment is the purge CronJob as a feature returns it with
// the Deployment.
func dbPurgeWithDeployment(in render.DeploymentInput) []any {
	return dbPurgeChildren(in.Glance, in.Spec, in.Run, in.Pod)
}

// dbPurgeChildren are the purge CronJob. It runs the image glance-api
// runs, with the same config, database URL and restrictions as the schema
// Jobs: only while glance-api may run, so it never fires at a schema that
// is not there yet.
func dbPurgeChildren(g *api.Glance, spec api.GlanceSpec, run decide.RunTarget, in render.PodInputs) []any {
	p := api.DBPurgeOf(spec.DBPurge)
	age := fmt.Sprint(p.Retention())
	step := func(name string, args ...string) corev1.Container {
		return render.ManageContainer(g, spec, name, run.Image, append(args, "--age_in_days", age, "--max_rows", fmt.Sprint(purgeMaxRows))...)
	}
	// The images table last, and only after the rest succeeded: a row of
	// an image is purged once nothing refers to it.
	containers := []corev1.Container{step("db-purge", "db", "purge")}
	if p.PurgesImagesTable() {
		containers = append(containers, step("db-purge-images-table", "db", "purge_images_table"))
	}
	pod := render.ManageJobPod(spec, in, containers)
	labels := model.ObjectLabels(g)
	labels[names.LabelComponent] = componentDBPurge
	backoff, deadline, suspend := purgeBackoffLimit, purgeDeadlineSeconds, p.Suspend
	return []any{&cronJobChild{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "CronJob"},
		ObjectMeta: metav1.ObjectMeta{Name: names.DBPurgeCronJobName(g.Name), Namespace: g.Namespace, Labels: labels},
		Spec: batchv1.CronJobSpec{
			Schedule:          p.CronSchedule(),
			Suspend:           &suspend,
			ConcurrencyPolicy: batchv1.ForbidConcurrent,
			JobTemplate: batchv1.JobTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: batchv1.JobSpec{
					BackoffLimit:          &backoff,
					ActiveDeadlineSeconds: &deadline,
					Template: corev1.PodTemplateSpec{
						ObjectMeta: metav1.ObjectMeta{Labels: labels,
							Annotations: map[string]string{names.AnnotationCredentialsDigest: in.Digest}},
						Spec: pod,
					},
				},
			},
		},
	}}
}

// observePurgeCronJob is the purge feature's observation.
func observePurgeCronJob(o *observe.Observed, children metacontroller.ObjectMap) error {
	o.Purge = observePurge(children, o.Glance)
	return nil
}

// observePurge reads the purge CronJob.
func observePurge(children metacontroller.ObjectMap, g *api.Glance) observe.ObservedPurge {
	var p observe.ObservedPurge
	p.CronJob, p.Found, p.Err = metacontroller.DecodeOne[observe.ObservedCronJob](children, names.CronJobsKey, names.DBPurgeCronJobName(g.Name))
	return p
}

// dbPurgeReady is the condition from the spec and the observed CronJob's
// status; every Glance has the purge (api.DBPurgeOf). The CronJob controller sets
// lastScheduleTime when it starts a run and lastSuccessfulTime when a run
// completes; a run that is no longer active and completed before the last
// start (or never) failed. A CronJob this answer asks for (asked) and not
// observed yet is scheduled with no run: said from the answer that creates
// it, the status is not written again when the create is observed.
func dbPurgeReady(g *api.Glance, observed observe.ObservedPurge, asked bool) (*hook.Condition, error) {
	p := api.DBPurgeOf(g.Spec.DBPurge)
	name := names.DBPurgeCronJobName(g.Name)
	c := &hook.Condition{Type: model.CondDBPurgeReady}
	cj, found, err := observed.CronJob, observed.Found, observed.Err
	if err != nil {
		return nil, hook.Invalid("observed %v", err)
	}
	what := fmt.Sprintf("rows deleted more than %d days ago", p.Retention())
	st := cj.Status
	switch {
	case !found && !asked:
		c.Reason = model.ReasonDBPurgeNotScheduled
		c.Message = fmt.Sprintf("CronJob %s does not exist yet: it comes with the Deployment, once the schema is in place", excerpt.Name(name))
	case p.Suspend:
		c.Status, c.Reason = true, model.ReasonDBPurgeSuspended
		c.Message = fmt.Sprintf("CronJob %s is suspended (%s): the %s stay and the database grows", excerpt.Name(name),
			field.NewPath("spec", "dbPurge", "suspend"), what)
	case st.LastScheduleTime != nil && len(st.Active) == 0 &&
		(st.LastSuccessfulTime == nil || st.LastSuccessfulTime.Before(st.LastScheduleTime)):
		c.Reason = model.ReasonDBPurgeJobFailed
		c.Message = fmt.Sprintf("the run of CronJob %s started at %s did not succeed (%s); its Job's pods say why; the next run tries again",
			excerpt.Name(name), st.LastScheduleTime.UTC().Format("2006-01-02T15:04:05Z"), lastSuccess(st))
	default:
		c.Status, c.Reason = true, model.ReasonDBPurgeScheduled
		c.Message = fmt.Sprintf("CronJob %s purges the %s on %q (%s)", excerpt.Name(name), what, p.CronSchedule(), lastSuccess(st))
	}
	return c, nil
}

// returnsCronJob reports whether the answer holds the purge CronJob.
func returnsCronJob(in report.StatusInput) bool {
	for _, child := range in.Out.Children {
		if _, ok := child.(*cronJobChild); ok {
			return true
		}
	}
	return false
}

// lastSuccess says when a run last succeeded.
func lastSuccess(st batchv1.CronJobStatus) string {
	if st.LastSuccessfulTime == nil {
		return "no run has succeeded yet"
	}
	return "last success " + st.LastSuccessfulTime.UTC().Format("2006-01-02T15:04:05Z")
}

// EventDBPurgeJobFailed is the Warning Event of a failed purge run. The
// condition's message names the run's start, so each failed run is an
// Event of its own, and a run that keeps failing is reported once a run.
const EventDBPurgeJobFailed = model.ReasonDBPurgeJobFailed

// purgeOccurrences is the Event the observed DBPurgeReady calls for.
func purgeOccurrences(st api.GlanceStatus) []report.Occurrence {
	c, ok := hook.FindCondition(st.Conditions, model.CondDBPurgeReady)
	if !ok || c.Status != metav1.ConditionFalse || c.Reason != model.ReasonDBPurgeJobFailed {
		return nil
	}
	return []report.Occurrence{{Warning: true, Reason: EventDBPurgeJobFailed, Action: "PurgeDatabase", Note: c.Message, At: c.LastTransitionTime}}
}

// dbPurgeCondition is DBPurgeReady, the purge CronJob's: every Glance has
// one, with spec.dbPurge or without, as in the reference.
func dbPurgeCondition(in report.StatusInput) (hook.Condition, error) {
	c, err := dbPurgeReady(in.Observed.Glance, in.Observed.Purge, returnsCronJob(in))
	if err != nil {
		return hook.Condition{}, err
	}
	return *c, nil
}
