package api

import (
	"regexp"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/c5c3/glance-hooks/hooks/contract/inivalue"
	"github.com/c5c3/glance-hooks/hooks/contract/problem"
)

// The launch part of a Glance spec (spec.openStackRelease, spec.image,
// spec.apiServer): its defaults and the rules of the image and the
// server's sizes. The release's own checks stay in hooks/contract/rules:
// a ControlPlane holds the release on its spec, outside the Glance
// settings a part's paths are relative to.

// launchDefaults are the release, the image of that release (its tag
// follows the release, so the release goes first) and the server's sizes.
func launchDefaults(s *GlanceSpec, _ string) {
	if s.OpenStackRelease == "" {
		s.OpenStackRelease = DefaultOpenStackRelease
	}
	s.Image = imageWithDefaults(s.Image, s.OpenStackRelease)
	s.APIServer = apiServerWithDefaults(s.APIServer)
}

// imageWithDefaults takes the repository and the tag or digest each from
// the spec when set; the tag defaults to the release.
func imageWithDefaults(in *ImageSpec, release string) *ImageSpec {
	image := ImageSpec{Repository: DefaultImageRepository, Tag: release}
	if in == nil {
		return &image
	}
	if in.Repository != "" {
		image.Repository = in.Repository
	}
	// A tag or a digest names the image together: one set replaces both.
	if in.Tag != "" || in.Digest != "" {
		image.Tag, image.Digest = in.Tag, in.Digest
	}
	return &image
}

// apiServerWithDefaults fills in both launch modes' sizes, so whichever the
// release picks is spelled out.
func apiServerWithDefaults(in *APIServerSpec) *APIServerSpec {
	out := APIServerSpec{}
	if in != nil {
		out = *in
	}
	if out.Workers == nil {
		w := DefaultAPIProcesses
		out.Workers = &w
	}
	u := UWSGISpec{}
	if out.UWSGI != nil {
		u = *out.UWSGI
	}
	if u.Processes == nil {
		p := DefaultAPIProcesses
		u.Processes = &p
	}
	if u.Threads == nil {
		t := DefaultAPIThreads
		u.Threads = &t
	}
	out.UWSGI = &u
	return &out
}

// launchRules are the part's rules, on a spec with its defaults: the
// server's sizes, then the image.
func launchRules(s GlanceSpec) problem.List {
	return append(apiServerProblems(*s.APIServer, *s.Deployment), imageProblems(*s.Image)...)
}

// maxAPIConcurrency bounds spec.apiServer's workers, processes and
// threads, as the CRD does.
const maxAPIConcurrency = 64

// apiServerProblems checks spec.apiServer with the defaults filled in.
func apiServerProblems(a APIServerSpec, d DeploymentSpec) problem.List {
	var l problem.List
	at := field.NewPath("apiServer")
	u := at.Child("uwsgi")
	// A ControlPlane's projection spells out only the launch mode its
	// release runs, so either block may be missing here.
	uw := UWSGISpec{}
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

// imageDigest is the reference's digest form.
var imageDigest = regexp.MustCompile(`^sha256:[a-f0-9]{64}$`)

// imageProblems checks spec.image with the defaults filled in.
func imageProblems(i ImageSpec) problem.List {
	at := field.NewPath("image")
	l := RequiredValue(at.Child("repository"), i.Repository)
	// The rule is the reference's, in its words; a tag the defaults filled
	// in counts as set.
	switch {
	case (i.Tag != "") == (i.Digest != ""):
		l = append(l, problem.At(at, "exactly one of image.tag or image.digest must be set"))
	case i.Digest != "" && !imageDigest.MatchString(i.Digest):
		l = append(l, problem.Invalid(at.Child("digest"), "must be sha256: and 64 lowercase hex digits"))
	case i.Tag != "":
		if why := inivalue.ValueProblem(i.Tag); why != "" {
			l = append(l, problem.Invalid(at.Child("tag"), "%s", why))
		}
	}
	return l
}
