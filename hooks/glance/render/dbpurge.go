package render

import (
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/glance/decide"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
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
	// ComponentDBPurge labels the CronJob, its Jobs and their pods; not
	// "api", so they stay out of the Service and the disruption budget,
	// nor "schema", so sync is not asked about them (podsRelated).
	ComponentDBPurge = "db-purge"
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

// CronJobChild is a CronJob as the hook returns it: no status.
type CronJobChild struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              batchv1.CronJobSpec `json:"spec"`
}

// DBPurgeWithDeployment is the purge CronJob as a feature returns it with
// the Deployment.
func DBPurgeWithDeployment(in DeploymentInput) []any {
	return DBPurgeChildren(in.Glance, in.Spec, in.Run, in.Pod)
}

// DBPurgeChildren are the purge CronJob. It runs the image glance-api
// runs, with the same config, database URL and restrictions as the schema
// Jobs: only while glance-api may run, so it never fires at a schema that
// is not there yet.
func DBPurgeChildren(g *api.Glance, spec api.GlanceSpec, run decide.RunTarget, in PodInputs) []any {
	p := api.DBPurgeOf(spec.DBPurge)
	age := fmt.Sprint(p.Retention())
	step := func(name string, args ...string) corev1.Container {
		cmd, argv := manage(append(args, "--age_in_days", age, "--max_rows", fmt.Sprint(purgeMaxRows))...)
		return glanceContainer(g, spec, program{name, run.Image, cmd, argv})
	}
	// The images table last, and only after the rest succeeded: a row of
	// an image is purged once nothing refers to it.
	containers := []corev1.Container{step("db-purge", "db", "purge")}
	if p.PurgesImagesTable() {
		containers = append(containers, step("db-purge-images-table", "db", "purge_images_table"))
	}
	pod := manageJobPod(spec, in, containers)
	labels := model.ObjectLabels(g)
	labels[names.LabelComponent] = ComponentDBPurge
	backoff, deadline, suspend := purgeBackoffLimit, purgeDeadlineSeconds, p.Suspend
	return []any{&CronJobChild{
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
