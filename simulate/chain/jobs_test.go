package chain

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestJobsLeftToTheTestEndAsItReports(t *testing.T) {
	w := NewWorld(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	w.JobResult = JobsRunUntilFinished
	job := func(name string) Object {
		return Object{"apiVersion": "batch/v1", "kind": "Job", "metadata": map[string]any{"name": name, "namespace": "ns"},
			"spec": map[string]any{"template": map[string]any{"spec": map[string]any{}}}}
	}
	require.NoError(t, w.Apply(job("b")))
	require.NoError(t, w.Apply(job("a")))
	res, err := w.Run(nil, 5)
	require.NoError(t, err)
	assert.True(t, res.Converged, "Jobs kept running change nothing")
	a, b := Ref{"batch/v1", "Job", "ns", "a"}, Ref{"batch/v1", "Job", "ns", "b"}
	assert.Equal(t, []Ref{a, b}, w.UnfinishedJobs())

	require.NoError(t, w.FinishJob(b, false))
	require.NoError(t, w.FinishJob(a, true))
	assert.Empty(t, w.UnfinishedJobs())
	got, _ := w.Get(a)
	assert.Equal(t, map[string]any{"succeeded": int64(1), "conditions": []any{
		map[string]any{"type": "Complete", "status": "True", "reason": "CompletionsReached"}}}, got["status"])
	got, _ = w.Get(b)
	assert.Equal(t, "Failed", got["status"].(map[string]any)["conditions"].([]any)[0].(map[string]any)["type"])

	assert.EqualError(t, w.FinishJob(a, true), "Job ns/a has finished already")
	assert.EqualError(t, w.FinishJob(Ref{"batch/v1", "Job", "ns", "c"}, true), "Job ns/c does not exist")
}

func TestReportRolloutCountsUpdatedAndOldPods(t *testing.T) {
	w := NewWorld(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	w.Rollouts = false
	d := Object{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "d", "namespace": "ns"},
		"spec": map[string]any{"replicas": 2}}
	require.NoError(t, w.Apply(d))
	r := Ref{"apps/v1", "Deployment", "ns", "d"}
	_, err := w.Run(nil, 3)
	require.NoError(t, err)
	got, _ := w.Get(r)
	assert.Nil(t, got["status"], "with Rollouts off nothing reports the pods")

	require.NoError(t, w.ReportRollout(r, 1, 2))
	got, _ = w.Get(r)
	assert.Equal(t, map[string]any{"observedGeneration": int64(1), "replicas": int64(3), "updatedReplicas": int64(1),
		"readyReplicas": int64(3), "availableReplicas": int64(3)}, got["status"])
	assert.EqualError(t, w.ReportRollout(Ref{"apps/v1", "Deployment", "ns", "e"}, 1, 0), "Deployment ns/e does not exist")
}
