package hook

import (
	"fmt"
	"time"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Condition is a desired condition without its transition time.
type Condition struct {
	Type    string
	Status  bool
	Reason  string
	Message string
}

// MaxConditionMessage is the longest message metav1.Condition allows
// (its schema's maxLength): a longer one would have the API server refuse
// the whole status Metacontroller writes.
const MaxConditionMessage = 32768

// Conditions turns desired conditions into metav1.Conditions, in the order
// given. A condition whose status did not change keeps the observed
// lastTransitionTime, so answering twice for the same input gives the same
// status and does not re-trigger a sync; a changed status takes now. A
// message is cut to MaxConditionMessage.
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
			Message:            Truncate(d.Message, MaxConditionMessage),
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

// Truncate cuts s to at most max bytes, on a character boundary, ending in a
// marker that says how long it was; s itself when it fits.
func Truncate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	marker := fmt.Sprintf(" ... (cut, %d bytes in all)", len(s))
	cut := max - len(marker)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + marker
}
