package glance

import (
	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/storestate"
)

// backendStatus is the status.backends[] reason of an attached store, ""
// when it is rendered and nothing is to be said. projected says whether the
// config the Deployment mounts holds its section.
func (s *store) backendStatus(projected bool) (reason, message string) {
	switch s.state {
	case storestate.Pending, storestate.Outdated:
		return model.ReasonStorePending, s.skipped
	case storestate.Skipped, storestate.Dropped, storestate.Lost:
		return model.ReasonBackendSkipped, s.skipped
	case storestate.CAConflict:
		return model.ReasonCABundleConflict, s.skipped
	case storestate.Held:
		return model.ReasonStoreOutdated, s.skipped
	}
	switch {
	case s.defaultIgnored && projected:
		return model.ReasonDefaultSetByControlPlane, s.ignored
	case !projected:
		// Not the ConfigRendered message itself, which names every
		// candidate default: repeated per store it grew with n².
		return model.ReasonNotInRunningConfig, "usable, but the config is not re-rendered: see condition " + model.CondConfigRendered
	}
	return "", ""
}
