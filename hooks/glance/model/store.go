package model

import (
	"time"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/storeconf"
	"github.com/c5c3/glance-hooks/hooks/glance/storestate"
)

// Store is one attached backend and what the Glance made of it.
type Store struct {
	Backend api.GlanceBackend
	ID      string
	Section string // the rendered section, when usable
	Skipped string // why it is left out, when it is
	State   storestate.State
	// CA is the store's CA bundle, when it names one.
	CA *CAMount
	// Projected is set on a ControlPlane's Glance for the backends that
	// ControlPlane projects; defaultIgnored on a hand-made backend there
	// that is marked isDefault: the ControlPlane alone sets the default.
	Projected, DefaultIgnored bool
	// Retired is set on a store of the running config whose backend is
	// gone (backend is then empty).
	Retired bool
	Ignored string // why isDefault is ignored
	// Since is when a pending store started on its way.
	Since time.Time
}

// Skip leaves the store out for a fault, saying why.
func (s *Store) Skip(why string) { s.Move(storestate.Fault, why) }

// Move changes the store's state on an event, through the one transition
// function, with why it is not rendered ("" when it is). A move the
// machine does not make changes nothing: each caller asks only for moves
// from the states it holds.
func (s *Store) Move(e storestate.Event, why string) {
	next, ok := storestate.Next(s.State, e)
	if ok {
		s.State, s.Skipped = next, why
	}
}

// WantsDefault reports whether the store counts as marked isDefault.
func (s *Store) WantsDefault() bool { return s.Backend.Spec.IsDefault && !s.DefaultIgnored }

// CAMount is a store's CA bundle as the pods mount it: the object and key
// the backend checked, and the digest of the bytes it saw.
type CAMount struct {
	Ref    api.CABundleRef
	Digest string
}

// Host is the S3 endpoint the store is reached at: its backend's spec, or,
// for a retiring store whose backend is gone, the s3_store_host of the
// section kept from the running config.
func (s *Store) Host() string {
	if s.Retired {
		h, _ := storeconf.OptionValue(s.Section, "s3_store_host")
		return h
	}
	if s.Backend.Spec.S3 == nil {
		return ""
	}
	return s.Backend.Spec.S3.Host
}

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

// EnvCABundle is botocore's process-wide CA bundle. glance_store without
// s3_store_cacert creates every S3 client with verify=None, and botocore then
// verifies TLS against this one file instead of its default trust roots.
const EnvCABundle = "AWS_CA_BUNDLE"
