package chain

import (
	"errors"
	"fmt"
	"time"

	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
)

// Requeue is c with each hook call that fails made again, up to attempts
// calls in all, as Metacontroller does: a failed customize or sync call
// writes nothing and puts the parent back on its work queue, whose rate
// limiter waits milliseconds before the first retries, well inside one
// tick of the chain's clock; nothing else writes in between here, so the
// retry sends the same request at the same time. A test that makes a hook
// server fail (a replica stopped in the middle of a walk) runs the walk
// with it; the chain's own hooks never fail that way.
func Requeue(c Controller, attempts int) Controller {
	if sync := c.Sync; sync != nil {
		c.Sync = func(req *metacontroller.SyncRequest, now time.Time) (*metacontroller.SyncResponse, error) {
			return retry(attempts, func() (*metacontroller.SyncResponse, error) { return sync(req, now) })
		}
	}
	if customize := c.Customize; customize != nil {
		c.Customize = func(req *metacontroller.CustomizeRequest) (*metacontroller.CustomizeResponse, error) {
			return retry(attempts, func() (*metacontroller.CustomizeResponse, error) { return customize(req) })
		}
	}
	return c
}

// retry calls call until it succeeds or has been called attempts times,
// and then returns every error it met.
func retry[T any](attempts int, call func() (T, error)) (T, error) {
	var errs []error
	for range max(attempts, 1) {
		out, err := call()
		if err == nil {
			return out, nil
		}
		errs = append(errs, err)
	}
	var zero T
	return zero, fmt.Errorf("%d calls failed: %w", len(errs), errors.Join(errs...))
}
