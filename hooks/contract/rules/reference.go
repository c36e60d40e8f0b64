package rules

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/problem"
	"github.com/c5c3/glance-hooks/hooks/contract/release"
)

// Checks of the blocks the reference Glance API brought: deployment,
// apiServer, image digest, logging, database TLS, staging bounds. Paths are
// relative to the Glance settings, as in glanceServiceProblems.

// notSupportedProblems refuses every field of the reference API these
// hooks do not build yet (api.LaterFields), each at its own path under at.
func notSupportedProblems(s api.GlanceSpec) problem.List {
	var l problem.List
	for _, f := range api.LaterFields {
		if f.IsSet(s) {
			l = append(l, notSupported(dotted(f.Path), f.What))
		}
	}
	return l
}

// notSupported is the refusal of one such field.
func notSupported(at *field.Path, what string) problem.Problem {
	return problem.Invalid(at, "is not supported yet: these hooks do not build %s; remove it", what)
}

// dotted is a path written with dots, as a field.Path.
func dotted(p string) *field.Path {
	parts := strings.Split(p, ".")
	return field.NewPath(parts[0], parts[1:]...)
}

// apiServerWarnings name a knob of the launch mode the release does not
// use, as written (a nil field is not set): it is valid, and inert. In the
// reference's words, with the path the knob is written at.
func apiServerWarnings(at *field.Path, a *api.APIServerSpec, releaseName string) []string {
	rel, err := release.Parse(releaseName)
	if a == nil || err != nil {
		return nil
	}
	uwsgi := !rel.Before(release.UWSGIFrom)
	switch {
	case uwsgi && a.Workers != nil:
		return []string{fmt.Sprintf("%s is set but release %q runs under uWSGI (%s or later), so the eventlet worker count is inert; configure %s instead.",
			at.Child("workers"), releaseName, release.UWSGIFrom, at.Child("uwsgi"))}
	case !uwsgi && a.UWSGI != nil:
		return []string{fmt.Sprintf("%s is set but release %q runs the eventlet glance-api server (below %s), so the uWSGI knobs are inert; configure %s instead.",
			at.Child("uwsgi"), releaseName, release.UWSGIFrom, at.Child("workers"))}
	}
	return nil
}

// unusedSizingWarnings name the reference's fields that size a database or
// memcached cluster its operator creates: these hooks reach a cluster that
// exists, so the fields change nothing here, and the warning says so.
func unusedSizingWarnings(at *field.Path, s api.GlanceSpec) []string {
	var out []string
	note := func(p *field.Path) {
		out = append(out, fmt.Sprintf("%s has no effect: these hooks create no database or memcached cluster, they reach the one named", p))
	}
	if d := s.Database; d != nil {
		if d.Replicas != nil {
			note(at.Child("database", "replicas"))
		}
		if d.StorageSize != "" {
			note(at.Child("database", "storageSize"))
		}
	}
	if c := s.Cache; c != nil && c.Replicas != nil {
		note(at.Child("cache", "replicas"))
	}
	return out
}
