package chain

import (
	"fmt"
	"reflect"
)

// JobOutcome is how the Job controller ends a Job in this world.
type JobOutcome int

const (
	// JobSucceeds: the Job gets the Complete condition.
	JobSucceeds JobOutcome = iota
	// JobFails: the Job gets the Failed condition (its backoff is spent).
	JobFails
	// JobRuns: the Job keeps running through this round.
	JobRuns
)

// JobsRunUntilFinished is a JobResult that keeps every Job running: the
// Job controller then leaves Jobs to the test, which runs their pods (for
// real, say) and reports each outcome with FinishJob, between Runs.
func JobsRunUntilFinished(*World, Object) (JobOutcome, error) { return JobRuns, nil }

// finishJobs ends, at the end of a round, every Job that has not finished,
// as the Job controller would once its pods ran: as JobResult says, or
// successfully when JobResult is nil.
func (w *World) finishJobs() error {
	for _, r := range w.refsOfKind("Job") {
		o := w.objects[r]
		if JobFinished(o) {
			continue
		}
		outcome := JobSucceeds
		if w.JobResult != nil {
			var err error
			if outcome, err = w.JobResult(w, deepCopy(o)); err != nil {
				return fmt.Errorf("job %s: %w", r.Name, err)
			}
		}
		if outcome != JobRuns {
			w.SetStatus(r, jobStatus(outcome))
		}
	}
	return nil
}

// UnfinishedJobs lists the Jobs that have neither completed nor failed, in
// SortRefs order.
func (w *World) UnfinishedJobs() []Ref {
	var out []Ref
	for _, r := range w.refsOfKind("Job") {
		if !JobFinished(w.objects[r]) {
			out = append(out, r)
		}
	}
	return out
}

// FinishJob ends a Job as the Job controller would once its pod ran: with
// the Complete condition when it succeeded, else the Failed condition (its
// backoff spent). A Job that does not exist or has finished is an error.
func (w *World) FinishJob(r Ref, succeeded bool) error {
	o, ok := w.objects[r]
	switch {
	case !ok || r.Kind != "Job":
		return fmt.Errorf("%s does not exist", r)
	case JobFinished(o):
		return fmt.Errorf("%s has finished already", r)
	}
	outcome := JobSucceeds
	if !succeeded {
		outcome = JobFails
	}
	w.SetStatus(r, jobStatus(outcome))
	return nil
}

// jobStatus is a finished Job's status.
func jobStatus(outcome JobOutcome) map[string]any {
	if outcome == JobFails {
		return map[string]any{"failed": int64(1), "conditions": []any{
			map[string]any{"type": "Failed", "status": "True", "reason": "BackoffLimitExceeded"}}}
	}
	return map[string]any{"succeeded": int64(1), "conditions": []any{
		map[string]any{"type": "Complete", "status": "True", "reason": "CompletionsReached"}}}
}

// JobFinished reports a Job with a true Complete or Failed condition.
func JobFinished(o Object) bool {
	st, _ := o["status"].(map[string]any)
	conds, _ := st["conditions"].([]any)
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if (m["type"] == "Complete" || m["type"] == "Failed") && m["status"] == "True" {
			return true
		}
	}
	return false
}

// jobTemplateChanged answers the API server's refusal of a change to a
// Job's pod template, which is immutable.
func jobTemplateChanged(old, o Object) bool {
	if RefOf(o).Kind != "Job" {
		return false
	}
	oldSpec, _ := old["spec"].(map[string]any)
	spec, _ := o["spec"].(map[string]any)
	return !reflect.DeepEqual(oldSpec["template"], spec["template"])
}
