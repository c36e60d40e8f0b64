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

// finishJobs ends, at the end of a round, every Job that has not finished,
// as the Job controller would once its pods ran: as JobResult says, or
// successfully when JobResult is nil.
func (w *World) finishJobs() error {
	for _, r := range w.refsOfKind("Job") {
		o := w.objects[r]
		if jobFinished(o) {
			continue
		}
		outcome := JobSucceeds
		if w.JobResult != nil {
			var err error
			if outcome, err = w.JobResult(w, deepCopy(o)); err != nil {
				return fmt.Errorf("job %s: %w", r.Name, err)
			}
		}
		cond := map[string]any{"type": "Complete", "status": "True", "reason": "CompletionsReached"}
		status := map[string]any{"succeeded": int64(1)}
		switch outcome {
		case JobRuns:
			continue
		case JobFails:
			cond = map[string]any{"type": "Failed", "status": "True", "reason": "BackoffLimitExceeded"}
			status = map[string]any{"failed": int64(1)}
		}
		status["conditions"] = []any{cond}
		w.SetStatus(r, status)
	}
	return nil
}

// jobFinished reports a Job with a true Complete or Failed condition.
func jobFinished(o Object) bool {
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
