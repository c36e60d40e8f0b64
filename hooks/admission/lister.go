package admission

import (
	"context"
	"errors"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
)

// Lister reads what the cross-object rules need from the API server.
type Lister interface {
	// ListGlanceBackends returns every GlanceBackend of the namespace.
	ListGlanceBackends(ctx context.Context, namespace string) ([]api.GlanceBackend, error)
	// GlanceControlPlane names the ControlPlane whose services.glance the
	// Glance is projected from: the controller of the Glance when it
	// exists, else the ControlPlane <name> of a Glance named
	// <name>-glance when it exists and runs Glance (it is about to
	// project it). "" when no ControlPlane owns the Glance.
	GlanceControlPlane(ctx context.Context, namespace, glance string) (string, error)
}

// Unavailable is the Lister used when no API access could be configured: every
// read fails with Reason, so every decision that needs the siblings is a
// refusal that says why.
type Unavailable struct {
	Reason string
}

// ListGlanceBackends always fails.
func (u Unavailable) ListGlanceBackends(context.Context, string) ([]api.GlanceBackend, error) {
	return nil, errors.New(u.Reason)
}

// GlanceControlPlane always fails.
func (u Unavailable) GlanceControlPlane(context.Context, string, string) (string, error) {
	return "", errors.New(u.Reason)
}
