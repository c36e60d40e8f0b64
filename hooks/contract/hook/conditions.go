package hook

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Condition is a desired condition without its transition time.
type Condition struct {
	Type    string
	Status  bool
	Reason  string
	Message string
}

// Conditions turns desired conditions into metav1.Conditions, in the order
// given. A condition whose status did not change keeps the observed
// lastTransitionTime, so answering twice for the same input gives the same
// status and does not re-trigger a sync; a changed status takes now.
func Conditions(observed []metav1.Condition, generation int64, now time.Time, desired ...Condition) []metav1.Condition {
	out := make([]metav1.Condition, 0, len(desired))
	for _, d := range desired {
		status := metav1.ConditionFalse
		if d.Status {
			status = metav1.ConditionTrue
		}
		ltt := metav1.NewTime(now.UTC().Truncate(time.Second))
		for _, o := range observed {
			if o.Type == d.Type && o.Status == status && !o.LastTransitionTime.IsZero() {
				ltt = o.LastTransitionTime
				break
			}
		}
		out = append(out, metav1.Condition{
			Type:               d.Type,
			Status:             status,
			ObservedGeneration: generation,
			LastTransitionTime: ltt,
			Reason:             d.Reason,
			Message:            d.Message,
		})
	}
	return out
}

// FindCondition returns the condition of a type, if present.
func FindCondition(conds []metav1.Condition, typ string) (metav1.Condition, bool) {
	for _, c := range conds {
		if c.Type == typ {
			return c, true
		}
	}
	return metav1.Condition{}, false
}
