package glance

// storeState is where one store stands in this sync: one value, so what the
// config renders, what the first render waits for and what status says are
// each read off it rather than off an order of flags.
type storeState int

const (
	// statePending: on its way. Its backend has not reported yet, or has
	// reported usable credentials and its store Secret is not there yet.
	// Left out, but not a fault.
	statePending storeState = iota
	// stateOutdated: its store Secret was rendered from an older spec; on
	// its way like a pending one unless holdOutdated keeps the running
	// section (stateHeld).
	stateOutdated
	// stateSkipped: a fault (its spec, its credentials or CA bundle, a
	// store Secret that is not its own) leaves it out.
	stateSkipped
	// stateCAConflict: left out because its CA bundle cannot be honoured on
	// a release with one process-wide bundle.
	stateCAConflict
	// stateRendered: its store Secret's section is rendered.
	stateRendered
	// stateHeld: the running config's section is rendered while its store
	// Secret catches up with a spec change.
	stateHeld
	// stateRetiring: its backend is gone and its running section is kept.
	stateRetiring
	// stateDropped: its backend is gone and spec.dropRetiredStores lists it.
	stateDropped
	// stateLost: its backend is gone and its running section cannot be kept.
	stateLost
)

// rendered reports whether the store's section goes into the backends
// Secret.
func (s storeState) rendered() bool {
	return s == stateRendered || s == stateHeld || s == stateRetiring
}

// pending reports whether the store is on its way, which the first render
// waits for.
func (s storeState) pending() bool { return s == statePending || s == stateOutdated }

// backendStatus is the status.backends[] reason of an attached store, ""
// when it is rendered and nothing is to be said. projected says whether the
// config the Deployment mounts holds its section.
func (s *store) backendStatus(projected bool) (reason, message string) {
	switch s.state {
	case statePending, stateOutdated:
		return ReasonStorePending, s.skipped
	case stateSkipped, stateDropped, stateLost:
		return ReasonBackendSkipped, s.skipped
	case stateCAConflict:
		return ReasonCABundleConflict, s.skipped
	case stateHeld:
		return ReasonStoreOutdated, s.skipped
	}
	switch {
	case s.defaultIgnored && projected:
		return ReasonDefaultSetByControlPlane, s.ignored
	case !projected:
		// Not the ConfigRendered message itself, which names every
		// candidate default: repeated per store it grew with n².
		return ReasonNotInRunningConfig, "usable, but the config is not re-rendered: see condition " + CondConfigRendered
	}
	return "", ""
}
