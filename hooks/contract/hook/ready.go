package hook

import (
	"fmt"
	"strings"
)

// The Ready condition every kind reports: True when all its other conditions
// are, so `kubectl get` shows one READY column that means the whole object.
const (
	ConditionReady    = "Ready"
	ReasonAllReady    = "AllReady"
	ReasonNotAllReady = "NotAllReady"
)

// ReasonInvalidSpec is the reason every kind gives when its spec holds what
// cannot be rendered; one definition for the three hooks that report it.
const ReasonInvalidSpec = "InvalidSpec"

// Ready aggregates the other conditions of an object: True with message when
// every one is True, otherwise False naming each condition it waits for and
// that condition's reason, in the order given.
func Ready(message string, others ...Condition) Condition {
	var waiting []string
	for _, c := range others {
		if !c.Status {
			waiting = append(waiting, fmt.Sprintf("%s (%s)", c.Type, c.Reason))
		}
	}
	if len(waiting) > 0 {
		return Condition{Type: ConditionReady, Reason: ReasonNotAllReady, Message: "waiting for " + strings.Join(waiting, ", ")}
	}
	return Condition{Type: ConditionReady, Status: true, Reason: ReasonAllReady, Message: message}
}

// Plural counts in words: Plural(1, "store", "stores") is "1 store",
// Plural(2, "store", "stores") is "2 stores".
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
