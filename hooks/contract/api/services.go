package api

import (
	"fmt"
	"slices"
	"strings"

	"github.com/c5c3/glance-hooks/hooks/contract/spelling"
)

// ServiceKey judges one key under a ControlPlane's spec.services, the one
// rule render, /validate and the CRD (which lists KnownServices as its
// only properties) share. A name the reference's ControlPlane does not
// know is refused, with the service it most likely means: kept, it would
// pass as a ControlPlane that runs no Glance at all. A service these hooks
// do not run is accepted with a note saying so. Glance gives "", false.
func ServiceKey(name string) (msg string, refuse bool) {
	switch {
	case name == "glance":
		return "", false
	case slices.Contains(KnownServices, name):
		return "is not reconciled here: these hooks run Glance only", false
	}
	if near := spelling.Closest(name, KnownServices); near != "" {
		return fmt.Sprintf("is not a known service: did you mean %s?", near), true
	}
	return fmt.Sprintf("is not a known service (one of %s)", strings.Join(KnownServices, ", ")), true
}
