package decide

import (
	"slices"
	"time"

	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/observe"
)

// Decision is what a sync does, decided from the observed request alone:
// each store's state, the default, whether the config is rendered or the
// last-good one kept, and how long the first render waits.
type Decision struct {
	// Stores are the attached stores, retired the retiring ones the
	// running config holds.
	Stores, Retired []*model.Store
	// ProcessWideCA is the one CA bundle file glance-api verifies every S3
	// store with, on a release without s3_store_cacert; "" for none.
	ProcessWideCA string
	// Hold says the first render waits for stores on their way, until at
	// the earliest something changes without an event.
	Hold  bool
	Until time.Time
	// Def is the default store, nil with noDefault saying why.
	Def       *model.Store
	NoDefault string
	// Keep is why nothing is re-rendered; its reason is "" when the
	// config is rendered.
	Keep LastGood
	// Invalid says the spec breaks a rule admission has too: nothing the
	// spec names is rendered or reported, the route and the policies
	// included.
	Invalid bool
}

// LastGood is why a sync keeps what runs instead of rendering.
type LastGood struct{ Reason, Why string }

// Decide decides the sync, reading nothing but o and changing nothing of
// it: the stores whose state it moves (one held from the running config,
// one left out for its CA bundle or its egress) are its own copies (Own),
// so what was observed stays what the request said.
func Decide(o *observe.Observed, steps []func(*observe.Observed, *Decision)) Decision {
	d := Decision{Stores: slices.Clone(o.Stores)}
	// The features' decisions (steps), in their order: a store held from the
	// running config, the retiring stores, the process-wide CA bundle
	// (which may leave stores out, attached or retiring, so it decides the
	// default too), a store waiting for its egress.
	for _, step := range steps {
		step(o, &d)
	}
	// Before anything is rendered, the first render waits for the stores
	// on their way (firstRenderHold).
	if o.Deployment == nil && !o.HasConfig {
		d.Hold, d.Until = FirstRenderHold(o.Glance, d.Stores, o.Now)
	}
	d.Def, d.NoDefault = ChooseDefault(d.Stores)
	d.Keep = WhyKeep(d.Hold, d.Def != nil, d.NoDefault, o.Gates, o.Creds)
	if len(o.Invalid) > 0 {
		// The spec is refused whatever else would hold the render: the
		// same rules as admission, for a Glance admission did not see.
		d.Invalid, d.Hold = true, false
		d.Keep = LastGood{model.ReasonInvalidSpec, "the Glance spec is invalid: " + o.Invalid.String()}
	}
	return d
}

// HoldOutdatedStores is the stores feature's decision: an outdated store
// keeps its running section (holdOutdated).
func HoldOutdatedStores(o *observe.Observed, d *Decision) {
	if o.Deployment != nil {
		HoldOutdated(d.Stores, func() string { return o.Running }, o.Deployment)
	}
}

// RetireStores is the retirement feature's decision: the stores the
// running config holds and no attached backend names (retiringStores).
func RetireStores(o *observe.Observed, d *Decision) {
	if o.Deployment != nil {
		d.Retired = RetiringStores(d.Stores, o.Running, o.Spec.DropRetiredStores, o.Deployment)
	}
}

// WhyKeep says why nothing is re-rendered, in order: the first render
// waiting, no default store, a gate that is closed (a feature's gate),
// credentials that are not complete.
func WhyKeep(hold, hasDefault bool, noDefault string, gates []hook.Condition, creds observe.CredentialsRead) LastGood {
	closed := slices.IndexFunc(gates, func(c hook.Condition) bool { return !c.Status })
	switch {
	case hold:
		return LastGood{model.ReasonNotRendered, "the attached GlanceBackends are rendering their stores"}
	case !hasDefault:
		return LastGood{model.ReasonNoDefaultBackend, noDefault}
	case closed >= 0:
		return LastGood{model.ReasonLastGoodKept, gates[closed].Message}
	case creds.Creds == nil && creds.DBProblem != nil:
		return LastGood{model.ReasonLastGoodKept, "the database credentials are not complete"}
	case creds.Creds == nil:
		return LastGood{model.ReasonLastGoodKept, "the service user's password is missing"}
	}
	return LastGood{}
}
