package decide

import (
	"math"
	"time"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
)

// FirstRenderWait bounds how long a Glance's first render waits for stores
// on their way. Under Metacontroller a Glance syncs on every change of its
// backends, so without a wait it renders (and starts the schema Job with)
// the first store that is ready and renders again for each one after it:
// more writes, and on a cluster whose backends settle one by one, a first
// rollout that is followed by another. A backend whose sync never comes
// must not hold the Glance for ever, so after this long the first render
// takes the stores that are ready.
const FirstRenderWait = 30 * time.Second

// FirstRenderHold says whether the first render waits, and until when at
// the earliest something changes without an event: the time to resync at.
// It waits while a store is on its way (pending) and came on its way less
// than FirstRenderWait ago, and, for a Glance with no backend attached yet,
// FirstRenderWait from its own creation (a ControlPlane creates its Glance
// just before its backends). A faulted store never holds it. Everything it
// reads is in the request, so the answer stays a function of the request
// and the clock the transport passes.
func FirstRenderHold(g *api.Glance, stores []*model.Store, now time.Time) (hold bool, until time.Time) {
	consider := func(since time.Time) {
		deadline := since.Add(FirstRenderWait)
		if now.Before(deadline) {
			hold = true
			if until.IsZero() || deadline.Before(until) {
				until = deadline
			}
		}
	}
	if len(stores) == 0 {
		consider(g.CreationTimestamp.Time)
	}
	for _, s := range stores {
		if s.State.Waiting() {
			consider(s.Since)
		}
	}
	return hold, until
}

// ResyncSeconds is how many whole seconds from now until t, at least one.
func ResyncSeconds(now, t time.Time) int {
	return max(1, int(math.Ceil(t.Sub(now).Seconds())))
}
