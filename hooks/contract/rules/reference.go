package rules

import (
	"fmt"
	"regexp"
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

// apiServerProblems checks spec.apiServer with the defaults filled in.
func apiServerProblems(a api.APIServerSpec, d api.DeploymentSpec) problem.List {
	var l problem.List
	at := field.NewPath("apiServer")
	u := at.Child("uwsgi")
	// A ControlPlane's projection spells out only the launch mode its
	// release runs, so either block may be missing here.
	uw := api.UWSGISpec{}
	if a.UWSGI != nil {
		uw = *a.UWSGI
	}
	for _, f := range []struct {
		at *field.Path
		n  *int32
	}{{at.Child("workers"), a.Workers}, {u.Child("processes"), uw.Processes}, {u.Child("threads"), uw.Threads}} {
		if f.n != nil && (*f.n < 1 || *f.n > maxAPIConcurrency) {
			l = append(l, problem.Invalid(f.at, "must be between 1 and %d", maxAPIConcurrency))
		}
	}
	if h := uw.Harakiri; h != nil {
		window := d.GraceSeconds()
		if d.PreStopSleepSeconds != nil {
			window -= *d.PreStopSleepSeconds
		}
		switch {
		case *h < 1:
			l = append(l, problem.Invalid(u.Child("harakiri"), "must be at least 1"))
		case int64(*h) >= window:
			l = append(l, problem.At(u.Child("harakiri"),
				"harakiri (%d) must be strictly less than terminationGracePeriodSeconds - preStopSleepSeconds (%d)", *h, window))
		}
	}
	if t := uw.HTTPKeepAliveTimeout; t != nil {
		switch {
		case *t < 1:
			l = append(l, problem.Invalid(u.Child("httpKeepAliveTimeout"), "must be at least 1"))
		case uw.HTTPKeepAlive == nil || !*uw.HTTPKeepAlive:
			l = append(l, problem.At(u.Child("httpKeepAliveTimeout"), "httpKeepAliveTimeout may only be set when httpKeepAlive is true"))
		}
	}
	return l
}

// apiServerWarnings name a knob of the launch mode the release does not
// use, as written (a nil field is not set): it is valid, and inert.
func apiServerWarnings(at *field.Path, a *api.APIServerSpec, releaseName string) []string {
	rel, err := release.Parse(releaseName)
	if a == nil || err != nil {
		return nil
	}
	uwsgi := !rel.Before(release.UWSGIFrom)
	switch {
	case uwsgi && a.Workers != nil:
		return []string{fmt.Sprintf("%s has no effect: from %s glance-api runs under uWSGI, sized by %s",
			at.Child("workers"), release.UWSGIFrom, at.Child("uwsgi"))}
	case !uwsgi && a.UWSGI != nil:
		return []string{fmt.Sprintf("%s has no effect: before %s glance-api is the eventlet server, sized by %s",
			at.Child("uwsgi"), release.UWSGIFrom, at.Child("workers"))}
	}
	return nil
}

// imageDigest is the reference's digest form.
var imageDigest = regexp.MustCompile(`^sha256:[a-f0-9]{64}$`)

// imageProblems checks spec.image with the defaults filled in.
func imageProblems(i api.ImageSpec) problem.List {
	at := field.NewPath("image")
	l := requiredValue(at.Child("repository"), i.Repository)
	// The rule is the reference's, in its words; a tag the defaults filled
	// in counts as set.
	switch {
	case (i.Tag != "") == (i.Digest != ""):
		l = append(l, problem.At(at, "exactly one of image.tag or image.digest must be set"))
	case i.Digest != "" && !imageDigest.MatchString(i.Digest):
		l = append(l, problem.Invalid(at.Child("digest"), "must be sha256: and 64 lowercase hex digits"))
	case i.Tag != "":
		l = append(l, valueProblems(at.Child("tag"), i.Tag)...)
	}
	return l
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
