package storeconf

import (
	"maps"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/excerpt"
	"github.com/c5c3/glance-hooks/hooks/contract/inivalue"
	"github.com/c5c3/glance-hooks/hooks/contract/problem"
)

// The name of the S3 URL field where a store is declared: a GlanceBackend's
// s3.host, a ControlPlane entry's s3.endpoint (projected into s3.host).
const (
	HostField     = "host"
	EndpointField = "endpoint"
)

// The paths the checks below report at. A field.Path is never changed
// once made, so these are made once: a store whose spec is fine (every
// store of a converged Glance, each sync) then costs no path at all.
var (
	specPath         = field.NewPath("spec")
	glanceRefPath    = field.NewPath("glanceRef", "name")
	typePath         = field.NewPath("type")
	s3Path           = field.NewPath("s3")
	extraOptionsPath = field.NewPath("extraOptions")
	s3URLPaths       = map[string]*field.Path{HostField: s3Path.Child(HostField), EndpointField: s3Path.Child(EndpointField)}
	bucketPath       = s3Path.Child("bucket")
	regionPath       = s3Path.Child("region")
	credentialsPath  = s3Path.Child("credentialsSecretRef", "name")
	caBundlePath     = s3Path.Child("caBundleRef")
)

// BackendProblems lists what keeps a GlanceBackend's section from being
// rendered: its store id, its glanceRef (the store Secret is labelled with
// it), then its spec (paths from the object: "spec.s3.host"). Empty means
// the section can be rendered.
func BackendProblems(spec api.GlanceBackendSpec, storeID string) problem.List {
	var l problem.List
	if err := ValidateStoreID(storeID); err != nil {
		l = append(l, problem.New("%v", err))
	}
	l = append(l, problem.Wrap(specPath, GlanceRefProblems(spec.GlanceRef.Name))...)
	return append(l, problem.Wrap(specPath, SpecProblems(spec, HostField))...)
}

// GlanceRefProblems checks the Glance a backend names (at glanceRef.name):
// a Glance's name is its Service's, a DNS-1035 label, and it becomes a label
// value on the store Secret and in the selectors the hooks ask
// Metacontroller for, so nothing else may be copied there. The message
// never repeats the name.
func GlanceRefProblems(name string) problem.List {
	at := glanceRefPath
	if name == "" {
		return problem.List{problem.Required(at)}
	}
	if isDNS1035Label(name) {
		return nil
	}
	if errs := validation.IsDNS1035Label(name); len(errs) > 0 {
		msg := errs[0]
		if i := strings.Index(msg, " (e.g. "); i > 0 {
			msg = msg[:i]
		}
		return problem.List{problem.Invalid(at, "cannot name a Glance: %s", msg)}
	}
	return nil
}

// isDNS1035Label is validation.IsDNS1035Label without a regular expression
// and its messages: at most 63 characters, a lowercase letter first, then
// lowercase letters, digits and '-', not ending in '-'. Every attached
// backend's glanceRef is checked each sync, all naming one Glance, and the
// expression cost a twentieth of a thousand-store sync. A name it refuses
// is checked again by validation for the message (FuzzIsDNS1035Label holds
// the two to one answer).
func isDNS1035Label(name string) bool {
	if name == "" || len(name) > validation.DNS1035LabelMaxLength || name[0] < 'a' || name[0] > 'z' || name[len(name)-1] == '-' {
		return false
	}
	for i := 1; i < len(name); i++ {
		if c := name[i]; (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' {
			return false
		}
	}
	return true
}

// SpecProblems lists what in a store's declaration cannot be rendered
// safely: its type, its S3 settings and its extraOptions. It checks a
// GlanceBackend's spec, and a ControlPlane's backends[] entry in the spec it
// projects; urlField names the S3 URL field where the store is declared
// (HostField, EndpointField). Paths are relative to the object that holds
// type, s3 and extraOptions. No message repeats a value.
func SpecProblems(spec api.GlanceBackendSpec, urlField string) problem.List {
	if spec.Type != api.BackendTypeS3 {
		// The CRD's enum, in the API server's words, which are the reference's.
		return problem.List{problem.NotSupported(typePath, api.BackendTypeS3)}
	}
	if spec.S3 == nil {
		// The reference's words: its GlanceBackend webhook's, and its
		// ControlPlane CRD's for an entry.
		if urlField == HostField {
			return problem.List{problem.At(s3Path, "exactly one backend block matching spec.type must be set (type S3 requires spec.s3)")}
		}
		return problem.List{problem.At(s3Path, "the s3 block must be set exactly when type is S3")}
	}
	l := s3Problems(spec.S3, urlField)
	return append(l, extraOptionsProblems(extraOptionsPath, spec.ExtraOptions, urlField)...)
}

// s3Problems checks the S3 settings at s3.
func s3Problems(o *api.S3Store, urlField string) problem.List {
	s3 := s3Path
	var l problem.List
	value := func(at *field.Path, v string, required bool) {
		switch p := inivalue.ValueProblem(v); {
		case v == "" && required:
			l = append(l, problem.Required(at))
		case v != "" && p != "":
			l = append(l, problem.Invalid(at, "%s", p))
		}
	}
	endpoint, known := s3URLPaths[urlField]
	if !known {
		endpoint = s3.Child(urlField)
	}
	value(endpoint, o.Host, true)
	if o.Host != "" {
		for _, p := range inivalue.URLProblems(o.Host, "they come from s3.credentialsSecretRef") {
			l = append(l, problem.At(endpoint, "%s", p))
		}
	}
	value(bucketPath, o.Bucket, true)
	value(regionPath, o.Region, false)
	if f := o.BucketURLFormat; f != "" && f != "path" && f != "virtual" {
		l = append(l, problem.Invalid(s3.Child("bucketURLFormat"), "must be path or virtual"))
	}
	value(credentialsPath, o.CredentialsSecretRef.Name, true)
	if o.CABundleRef != nil {
		l = append(l, caBundleRefProblems(caBundlePath, *o.CABundleRef, o.Host, urlField)...)
	}
	for _, size := range []struct {
		name string
		v    *int64
	}{{"largeObjectSize", o.LargeObjectSize}, {"largeObjectChunkSize", o.LargeObjectChunkSize}} {
		if size.v != nil && *size.v < 1 {
			l = append(l, problem.Invalid(s3.Child(size.name), "must be at least 1"))
		}
	}
	return l
}

// CABundleRefProblems checks a CA bundle reference: a kind the service
// reads, and names that can be an object and a data key, since they go into
// a pod spec and a customize answer. Paths are relative to the reference.
func CABundleRefProblems(r api.CABundleRef) problem.List {
	var l problem.List
	if k := r.Kind; k != "" && k != api.CABundleKindConfigMap && k != api.CABundleKindSecret {
		l = append(l, problem.Invalid(field.NewPath("kind"), "must be %s or %s", api.CABundleKindConfigMap, api.CABundleKindSecret))
	}
	switch {
	case r.Name == "":
		l = append(l, problem.Required(field.NewPath("name")))
	case len(validation.IsDNS1123Subdomain(r.Name)) > 0:
		l = append(l, problem.Invalid(field.NewPath("name"), "must be the name of a %s: lowercase letters, digits, '-' and '.'", r.EffectiveKind()))
	}
	if r.Key != "" && len(validation.IsConfigMapKey(r.Key)) > 0 {
		l = append(l, problem.Invalid(field.NewPath("key"), "must be a data key: letters, digits, '-', '_' or '.'"))
	}
	return l
}

// caBundleRefProblems checks the reference at ref and that the endpoint is
// https://, the only kind a CA bundle means anything for.
func caBundleRefProblems(ref *field.Path, r api.CABundleRef, host, urlField string) problem.List {
	l := problem.Wrap(ref, CABundleRefProblems(r))
	if u, err := url.Parse(host); err == nil && u.Scheme == "http" {
		l = append(l, problem.Invalid(ref, "needs an https:// s3.%s: a CA bundle verifies the endpoint's TLS certificate, and an http:// endpoint has none", urlField))
	}
	return l
}

// ownerPrefix is where the s3 fields are, as the reference names them: a
// GlanceBackend's spec.s3, a ControlPlane entry's s3.
func ownerPrefix(urlField string) string {
	if urlField == HostField {
		return "spec.s3."
	}
	return "s3."
}

// extraOptionsProblems checks the options at extra, in key order: none may
// set an option the service renders (refused in the reference's words,
// naming the field of s3 it comes from, urlField for the URL), and each
// must be one safe line. Each option is checked once, in the map's order;
// the keys are sorted only when one is reported (every attached store's
// options are checked each sync, and nearly always none is).
func extraOptionsProblems(extra *field.Path, opts map[string]string, urlField string) problem.List {
	if len(opts) > MaxOptions {
		return problem.List{problem.TooMany(extra, len(opts), MaxOptions)}
	}
	var found map[string]problem.Problem
	for k, v := range opts {
		if p, bad := optionProblem(extra, k, v, urlField); bad {
			if found == nil {
				found = map[string]problem.Problem{}
			}
			found[k] = p
		}
	}
	if found == nil {
		return nil
	}
	l := make(problem.List, 0, len(found))
	for _, k := range slices.Sorted(maps.Keys(found)) {
		l = append(l, found[k])
	}
	return l
}

// optionProblem is what is wrong with the extra option k = v, if anything:
// the reference's refusals in its words (an empty name, an owned option, a
// name that is no option name, a newline or carriage return in the value),
// then this project's of a value oslo.config would not read back.
func optionProblem(extra *field.Path, k, v, urlField string) (problem.Problem, bool) {
	switch {
	case k == "":
		return problem.At(extra, "option name must not be empty"), true
	case OwnedOptions[k]:
		return problem.At(extra.Key(k), "option %q is owned by %s%s and must not be set via extraOptions", k, ownerPrefix(urlField), optionOwner(k, urlField)), true
	case !isOptionKey(k):
		// At the key, as the reference reports it; the key is cut and
		// escaped there, since it was written by hand.
		return problem.At(extra.Key(excerpt.Bare(k)), "option name must match ^[A-Za-z0-9_]+$ (letters, digits, and underscore)"), true
	case len(k) > MaxOptionKeyLength || utf8.RuneCountInString(v) > MaxOptionValueLength:
		// The reference CRD's words, for the name and the value alike.
		return problem.At(extra, "each extraOptions key must be <=%d characters and each value <=%d characters", MaxOptionKeyLength, MaxOptionValueLength), true
	case inivalue.LineBreak(v):
		return problem.At(extra.Key(k), "value must not contain newline or carriage-return characters"), true
	case inivalue.ValueProblem(v) != "":
		return problem.Invalid(extra.Key(k), "%s", inivalue.ValueProblem(v)), true
	}
	return problem.Problem{}, false
}
