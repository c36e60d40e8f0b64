package glancestack

import (
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// RunCronJob runs one Job of the named CronJob to completion, as the
// CronJob controller would start it at a firing: the CronJob's jobTemplate
// under the name <cronjob>-<minutes>, its labels and annotations kept. The
// World is not told (a CronJob's Jobs are not the Glance's children).
func (s *Stack) RunCronJob(t testing.TB, name string) JobRun {
	t.Helper()
	var cj batchv1.CronJob
	decode(t, s.Get(t, "batch/v1", "CronJob", name), &cj)
	job := batchv1.Job{
		TypeMeta: metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: name + "-29000000", Namespace: cj.Namespace,
			Labels: cj.Spec.JobTemplate.Labels, Annotations: cj.Spec.JobTemplate.Annotations},
		Spec: cj.Spec.JobTemplate.Spec,
	}
	obj, err := asObject(job)
	if err != nil {
		t.Fatal(err)
	}
	return s.runJobPod(t, job.Name, obj)
}
