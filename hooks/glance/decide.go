package glance

import (
	"slices"
	"time"

	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/observe"
)

// decision is what a sync does, decided from the observed request alone:
// each store's state, the default, whether the config is rendered or the
// last-good one kept, and how long the first render waits.
type decision struct {
	// stores are the attached stores, retired the retiring ones the
	// running config holds.
	stores, retired []*model.Store
	// processWideCA is the one CA bundle file glance-api verifies every S3
	// store with, on a release without s3_store_cacert; "" for none.
	processWideCA string
	// hold says the first render waits for stores on their way, until at
	// the earliest something changes without an event.
	hold  bool
	until time.Time
	// def is the default store, nil with noDefault saying why.
	def       *model.Store
	noDefault string
	// keep is why nothing is re-rendered; its reason is "" when the
	// config is rendered.
	keep lastGood
	// invalid says the spec breaks a rule admission has too: nothing the
	// spec names is rendered or reported, the route and the policies
	// included.
	invalid bool
}

// lastGood is why a sync keeps what runs instead of rendering.
type lastGood struct{ reason, why string }

// decideSync decides the sync, reading nothing but o and changing nothing of
// it: the stores whose state it moves (one held from the running config,
// one left out for its CA bundle or its egress) are its own copies, so
// what was observed stays what the request said.
func decideSync(o *observe.Observed) decision {
	d := decision{stores: ownStores(o.Stores)}
	// The features' decisions, in their order: a store held from the
	// running config, the retiring stores, the process-wide CA bundle
	// (which may leave stores out, attached or retiring, so it decides the
	// default too), a store waiting for its egress.
	for _, f := range features {
		if f.decide != nil {
			f.decide(o, &d)
		}
	}
	// Before anything is rendered, the first render waits for the stores
	// on their way (firstRenderHold).
	if o.Deployment == nil && !o.HasConfig {
		d.hold, d.until = firstRenderHold(o.Glance, d.stores, o.Now)
	}
	d.def, d.noDefault = chooseDefault(d.stores)
	d.keep = whyKeep(d.hold, d.def != nil, d.noDefault, o.Gates, o.Creds)
	if len(o.Invalid) > 0 {
		// The spec is refused whatever else would hold the render: the
		// same rules as admission, for a Glance admission did not see.
		d.invalid, d.hold = true, false
		d.keep = lastGood{model.ReasonInvalidSpec, "the Glance spec is invalid: " + o.Invalid.String()}
	}
	return d
}

// holdOutdatedStores is the stores feature's decision: an outdated store
// keeps its running section (holdOutdated).
func holdOutdatedStores(o *observe.Observed, d *decision) {
	if o.Deployment != nil {
		holdOutdated(d.stores, func() string { return o.Running }, o.Deployment)
	}
}

// retireStores is the retirement feature's decision: the stores the
// running config holds and no attached backend names (retiringStores).
func retireStores(o *observe.Observed, d *decision) {
	if o.Deployment != nil {
		d.retired = retiringStores(d.stores, o.Running, o.Spec.DropRetiredStores, o.Deployment)
	}
}

// chooseProcessWideCA is the CA bundles feature's decision: on a release whose
// glance_store has one process-wide CA bundle, which one, leaving out the
// stores it cannot serve (processWideCABundle).
func chooseProcessWideCA(o *observe.Observed, d *decision) {
	if rel, ok := oldestRunRelease(o.Spec.OpenStackRelease, o.Glance.Status.InstalledRelease); ok && !rel.AtLeast(StoreCACertFrom) {
		d.processWideCA = processWideCABundle(d.stores, d.retired, rel)
	}
}

// awaitStoreEgress is the network policy feature's decision: a store
// waits for the NetworkPolicy to allow its endpoint (awaitEgress).
func awaitStoreEgress(o *observe.Observed, d *decision) {
	awaitEgress(o.Glance, o.Spec, d.stores, o.AllowedEgress)
}

// ownStores copies the observed stores for decide to move: one backing
// array for all of them, so the copy costs two allocations whatever their
// number.
func ownStores(observed []*model.Store) []*model.Store {
	values := make([]model.Store, len(observed))
	own := make([]*model.Store, len(observed))
	for i, s := range observed {
		values[i] = *s
		own[i] = &values[i]
	}
	return own
}

// whyKeep says why nothing is re-rendered, in order: the first render
// waiting, no default store, a gate that is closed (a feature's gate),
// credentials that are not complete.
func whyKeep(hold, hasDefault bool, noDefault string, gates []hook.Condition, creds observe.CredentialsRead) lastGood {
	closed := slices.IndexFunc(gates, func(c hook.Condition) bool { return !c.Status })
	switch {
	case hold:
		return lastGood{model.ReasonNotRendered, "the attached GlanceBackends are rendering their stores"}
	case !hasDefault:
		return lastGood{model.ReasonNoDefaultBackend, noDefault}
	case closed >= 0:
		return lastGood{model.ReasonLastGoodKept, gates[closed].Message}
	case creds.Creds == nil && creds.DBProblem != nil:
		return lastGood{model.ReasonLastGoodKept, "the database credentials are not complete"}
	case creds.Creds == nil:
		return lastGood{model.ReasonLastGoodKept, "the service user's password is missing"}
	}
	return lastGood{}
}
