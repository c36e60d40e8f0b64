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
