package glancebackend

import (
	"time"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
)

// Reach is what a check of a store's S3 endpoint found. The check is the
// service's (it dials; the hook only reads the verdict), so the answer is
// the same for the same request, time and verdict.
type Reach struct {
	// Reachable: the endpoint answered, with any status below 500.
	Reachable bool
	// Detail says what the check met: the error, or the status answered.
	Detail string
}

// Hook is the GlanceBackend sync hook with what the service observes
// beside the request.
type Hook struct {
	// Check, when set, checks the store's endpoint (s3.host) at now;
	// nil checks nothing, and StoreReachable says StoreNotChecked.
	Check func(endpoint string, now time.Time) Reach
	// Recheck is how long after a sync that found the store unreachable
	// its next sync comes (resyncAfterSeconds), so its return is seen
	// within one recheck. Zero means DefaultRecheck.
	Recheck time.Duration
}

// DefaultRecheck is Hook.Recheck when unset: a store back from an outage
// is Ready again within half a minute, and an unreachable store costs one
// sync (and one cached check) per half minute.
const DefaultRecheck = 30 * time.Second

// withReach is conds with the StoreReachable condition, and the resync
// the check asks for.
func (h Hook) withReach(conds []hook.Condition, b *api.GlanceBackend, now time.Time) ([]hook.Condition, int) {
	c, resync := h.reachability(b, now)
	return append(conds, c), resync
}

// notCheckedMessage is StoreNotChecked's message when the service checks
// no store: what turns the check on.
const notCheckedMessage = "the S3 endpoint is not checked: run glance-hooks serve with --store-check-timeout (2s is a good start) to report whether it answers"

// reachability is the StoreReachable condition of a backend and the
// resync it asks for. Without a check, or without an endpoint to check,
// the condition is True under StoreNotChecked: nothing is known against
// the store, as a feature that is off requires nothing.
func (h Hook) reachability(b *api.GlanceBackend, now time.Time) (hook.Condition, int) {
	notChecked := hook.Condition{Type: CondStoreReachable, Status: true, Reason: ReasonStoreNotChecked, Message: notCheckedMessage}
	if h.Check == nil {
		return notChecked, 0
	}
	if b.Spec.S3 == nil || b.Spec.S3.Host == "" {
		notChecked.Message = "the S3 endpoint is not checked: the GlanceBackend names none (s3.host)"
		return notChecked, 0
	}
	r := h.Check(b.Spec.S3.Host, now)
	c := reachCondition(b.Spec.S3.Host, r)
	if r.Reachable {
		return c, 0
	}
	recheck := h.Recheck
	if recheck <= 0 {
		recheck = DefaultRecheck
	}
	return c, max(int(recheck/time.Second), 1)
}

// reachCondition words a check's verdict.
func reachCondition(endpoint string, r Reach) hook.Condition {
	if r.Reachable {
		return hook.Condition{Type: CondStoreReachable, Status: true, Reason: ReasonStoreReachable,
			Message: "the S3 endpoint " + endpoint + " answers (" + r.Detail + ")"}
	}
	return hook.Condition{Type: CondStoreReachable, Reason: ReasonStoreUnreachable,
		Message: "the S3 endpoint " + endpoint + " does not answer: " + r.Detail +
			"; uploads to this store and downloads from it fail until it is back, the other stores keep working"}
}
