package model

import (
	"github.com/c5c3/glance-hooks/hooks/glance/storestate"
)

// BackendStatus is the status.backends[] reason of an attached store, ""
// when it is rendered and nothing is to be said. projected says whether the
// config the Deployment mounts holds its section.
func (s *Store) BackendStatus(projected bool) (reason, message string) {
	switch s.State {
	case storestate.Pending, storestate.Outdated:
		return ReasonStorePending, s.Skipped
	case storestate.Skipped, storestate.Dropped, storestate.Lost:
		return ReasonBackendSkipped, s.Skipped
	case storestate.CAConflict:
		return ReasonCABundleConflict, s.Skipped
	case storestate.Held:
		return ReasonStoreOutdated, s.Skipped
	}
	switch {
	case s.DefaultIgnored && projected:
		return ReasonDefaultSetByControlPlane, s.Ignored
	case !projected:
		// Not the ConfigRendered message itself, which names every
		// candidate default: repeated per store it grew with n².
		return ReasonNotInRunningConfig, "usable, but the config is not re-rendered: see condition " + CondConfigRendered
	}
	return "", ""
}
