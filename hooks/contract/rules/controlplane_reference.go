package rules

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/problem"
	"github.com/c5c3/glance-hooks/hooks/contract/spelling"
	"github.com/c5c3/glance-hooks/hooks/contract/storeconf"
)

// controlPlaneReferenceProblems checks what a ControlPlane holds in the
// reference's shape before it is projected: the knobs only a ControlPlane
// has, and the projected fields these hooks do not build yet, each named
// where the ControlPlane sets it (the projection merges globalExtraConfig
// into the Glance's extraConfig, so the Glance's path would mislead).
func controlPlaneReferenceProblems(cp *api.ControlPlane) problem.List {
	svc := cp.Spec.Services.Glance
	var l problem.List
	if svc.Replicas != nil && svc.Deployment != nil && svc.Deployment.Replicas != nil {
		l = append(l, problem.Invalid(glanceServicePath.Child("replicas"), "and deployment.replicas are both set: set one of them"))
	}
	if svc.Replicas != nil && *svc.Replicas < 1 {
		l = append(l, problem.Invalid(glanceServicePath.Child("replicas"), "must be at least 1"))
	}
	l = append(l, regionProblems(specPath.Child("region"), cp.Spec.Region)...)
	if svc.PublicEndpoint != "" {
		for _, p := range storeconf.URLProblems(svc.PublicEndpoint, "an endpoint URL carries none") {
			l = append(l, problem.Invalid(glanceServicePath.Child("publicEndpoint"), "%s", p))
		}
		if k := svc.Keystone; k != nil && k.PublicURL != "" && k.PublicURL != svc.PublicEndpoint {
			l = append(l, problem.Invalid(glanceServicePath.Child("publicEndpoint"), "and keystone.publicURL name different URLs: set one of them"))
		}
	}
	own := api.GlanceSpec{ExtraConfig: svc.ExtraConfig, ImageCache: svc.ImageCache,
		ImportFiltering: svc.ImportFiltering, ImportPlugins: svc.ImportPlugins, Database: svc.Database}
	l = append(l, problem.Wrap(glanceServicePath, notSupportedProblems(own))...)
	l = append(l, problem.Wrap(glanceServicePath, importProblems(svc.ImportPlugins, svc.ImportFiltering, svc.Staging))...)
	return l
}

// unknownServiceWarnings warn of each key under spec.services of the raw
// ControlPlane that is not a service: the CRD keeps such keys (the
// reference's other services live there), so a misspelt glance would
// otherwise pass as a ControlPlane running no Glance at all. A known
// service other than glance is accepted with a warning that these hooks
// leave it alone.
func unknownServiceWarnings(raw []byte) []string {
	var obj struct {
		Spec struct {
			Services map[string]json.RawMessage `json:"services"`
		} `json:"spec"`
	}
	if json.Unmarshal(raw, &obj) != nil {
		return nil // the typed decode reports it
	}
	var out []string
	for _, name := range slices.Sorted(maps.Keys(obj.Spec.Services)) {
		at := specPath.Child("services", name)
		switch {
		case name == "glance":
		case slices.Contains(api.KnownServices, name):
			out = append(out, fmt.Sprintf("%s is not reconciled here: these hooks run Glance only", at))
		default:
			msg := fmt.Sprintf("%s is not a known service (%v)", at, api.KnownServices)
			if near := spelling.Closest(name, api.KnownServices); near != "" {
				msg = fmt.Sprintf("%s is not a known service: did you mean %s?", at, near)
			}
			out = append(out, msg)
		}
	}
	return out
}
