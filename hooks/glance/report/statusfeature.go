package report

import (
	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
)

// StatusFeature is one condition of a Glance: its type, how it is reported
// from what a sync observed, decided and rendered, and whether Ready waits
// for it. Every one is reported on every sync: a feature whose field is
// unset says so under a reason of its own (True: nothing is required), so a
// script waiting for a condition by name never waits for nothing.
type StatusFeature struct {
	CondType string
	Report   func(StatusInput) (hook.Condition, error)
	Ready    readiness
}

// readiness says whether Ready waits for a condition.
type readiness bool

const (
	// HoldsReady: Ready is False while the condition is.
	HoldsReady readiness = true
	// BesideReady: reported, but a False one does not stop glance-api
	// from serving the current config, so Ready does not wait for it.
	BesideReady readiness = false
)

// StatusEndpoint is status.endpoint: the gateway's URL when there is one,
// the Service's inside the cluster otherwise.
func StatusEndpoint(g *api.Glance, spec api.GlanceSpec) string {
	if spec.Gateway != nil {
		return spec.Gateway.URL()
	}
	return ServiceEndpoint(g)
}
