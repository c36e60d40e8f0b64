package server

import (
	"time"

	"github.com/c5c3/glance-hooks/hooks/glancebackend"
)

// WithStoreChecks is routes with the GlanceBackend sync hook checking each
// store's endpoint through check (serve --store-check-timeout): the hook
// stays pure, the check is the caller's.
func WithStoreChecks(routes []Route, check func(endpoint string, now time.Time) glancebackend.Reach) []Route {
	out := make([]Route, len(routes))
	copy(out, routes)
	for i := range out {
		if out[i].Path == "/sync/glancebackend" {
			out[i].Sync = glancebackend.Hook{Check: check}.Sync
		}
	}
	return out
}
