package api

import (
	"maps"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/c5c3/glance-hooks/hooks/contract/excerpt"
	"github.com/c5c3/glance-hooks/hooks/contract/inivalue"
	"github.com/c5c3/glance-hooks/hooks/contract/problem"
)

// The parts of a Glance spec of the three import features. imports: the
// defaults of the metadata definitions' path, the import methods and the
// staging area, and their rules on the spec with them. uri-filter: the
// rules of spec.importFiltering. import-plugins: the rules of
// spec.importPlugins, and one on the spec as written, decompression's
// staging bound, which the staging default would hide.

// ImportFilteringSpec restricts the URIs web-download (and any other fetch
// Glance makes on a user's behalf) may reach: [import_filtering_opts].
// Each attribute has an allow list and a deny list, and Glance reads only
// one of the two: a non-empty allow list makes it ignore its deny list.
// A nil list resolves to ImportFilter's default when rendered; an empty
// list is kept empty, which is how a Glance opts out of a default.
type ImportFilteringSpec struct {
	AllowedSchemes    []string `json:"allowedSchemes,omitempty"`
	DisallowedSchemes []string `json:"disallowedSchemes,omitempty"`
	AllowedHosts      []string `json:"allowedHosts,omitempty"`
	DisallowedHosts   []string `json:"disallowedHosts,omitempty"`
	AllowedPorts      []int32  `json:"allowedPorts,omitempty"`
	DisallowedPorts   []int32  `json:"disallowedPorts,omitempty"`
}

// ImportPluginsSpec selects the image import plugins; a sub-block's
// presence enables its plugin. They run in the fixed order of
// ImportPlugins, whatever the spec's order.
type ImportPluginsSpec struct {
	Decompression  *ImportDecompressionSpec  `json:"decompression,omitempty"`
	Conversion     *ImportConversionSpec     `json:"conversion,omitempty"`
	InjectMetadata *ImportInjectMetadataSpec `json:"injectMetadata,omitempty"`
}

// ImportDecompressionSpec has no settings: Glance registers no options for
// the plugin, so its presence is the whole configuration.
type ImportDecompressionSpec struct{}

// ImportConversionSpec is the conversion plugin's target format.
type ImportConversionSpec struct {
	// OutputFormat is qcow2, raw (default) or vmdk.
	OutputFormat string `json:"outputFormat,omitempty"`
}

// ImportInjectMetadataSpec is the properties the inject plugin sets.
type ImportInjectMetadataSpec struct {
	Properties map[string]string `json:"properties"`
	// IgnoreUserRoles are the roles whose imports are left alone; nil is
	// admin, an empty list injects for every role.
	IgnoreUserRoles []string `json:"ignoreUserRoles,omitempty"`
}

// The import plugins' names (glance.image_import.plugins entry points), in
// the one order they run: unpack first, so conversion sees the disk image
// and not the archive; stamp properties last, on the final image.
const (
	PluginDecompression  = "image_decompression"
	PluginConversion     = "image_conversion"
	PluginInjectMetadata = "inject_image_metadata"
)

// Output formats of the conversion plugin ([image_conversion]
// output_format's choices).
var ConversionFormats = []string{"qcow2", "raw", "vmdk"}

// DefaultConversionFormat is raw: what a store clones copy-on-write, and
// Glance's own default.
const DefaultConversionFormat = "raw"

// DefaultIgnoreUserRoles are the roles the inject plugin leaves alone when
// the spec names none: Glance's own default.
func DefaultIgnoreUserRoles() []string { return []string{"admin"} }

// EnabledImportPlugins are the plugins a spec enables, in run order.
func EnabledImportPlugins(p *ImportPluginsSpec) []string {
	if p == nil {
		return nil
	}
	var out []string
	if p.Decompression != nil {
		out = append(out, PluginDecompression)
	}
	if p.Conversion != nil {
		out = append(out, PluginConversion)
	}
	if p.InjectMetadata != nil {
		out = append(out, PluginInjectMetadata)
	}
	return out
}

// Import filter schemes.
const (
	SchemeHTTP  = "http"
	SchemeHTTPS = "https"
)

// DefaultDeniedHosts are the hosts a web-download may never reach unless an
// allow list names them: loopback in every spelling Glance matches
// literally, the link-local metadata address, and the in-cluster API
// server by each name a pod's resolver search list completes.
func DefaultDeniedHosts() []string {
	return []string{"localhost", "127.0.0.1", "0.0.0.0", "::1", "169.254.169.254",
		"kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local"}
}

// Defaults of the allow lists: https on 443 only. Glance's own (http and
// https, 80 and 443) would let an import reach the metadata address.
func DefaultAllowedSchemes() []string { return []string{SchemeHTTPS} }
func DefaultAllowedPorts() []int32    { return []int32{443} }

// ImportFilter is the filter glance-api gets: every list resolved.
type ImportFilter struct {
	AllowedSchemes, DisallowedSchemes []string
	AllowedHosts, DisallowedHosts     []string
	AllowedPorts, DisallowedPorts     []int32
}

// ResolveImportFilter resolves a spec's filter (nil is the default
// filter). A nil list takes its default; an empty one stays empty. Hosts a
// spec denies are added to DefaultDeniedHosts, never put in their place,
// so tightening the filter cannot un-deny loopback or the API server; the
// deny list is empty only while an allow list names hosts, because Glance
// then ignores it and rendering it would misreport what applies.
func ResolveImportFilter(f *ImportFilteringSpec) ImportFilter {
	if f == nil {
		f = &ImportFilteringSpec{}
	}
	r := ImportFilter{
		AllowedSchemes:    orDefault(f.AllowedSchemes, DefaultAllowedSchemes),
		DisallowedSchemes: orEmpty(f.DisallowedSchemes),
		AllowedHosts:      orEmpty(f.AllowedHosts),
		AllowedPorts:      orDefault(f.AllowedPorts, DefaultAllowedPorts),
		DisallowedPorts:   orEmpty(f.DisallowedPorts),
	}
	if len(r.AllowedHosts) == 0 {
		r.DisallowedHosts = DefaultDeniedHosts()
		for _, h := range f.DisallowedHosts {
			if !slices.Contains(r.DisallowedHosts, h) {
				r.DisallowedHosts = append(r.DisallowedHosts, h)
			}
		}
	} else {
		r.DisallowedHosts = []string{}
	}
	return r
}

func orDefault[T any](v []T, def func() []T) []T {
	if v == nil {
		return def()
	}
	return slices.Clone(v)
}

func orEmpty[T any](v []T) []T {
	if v == nil {
		return []T{}
	}
	return slices.Clone(v)
}

// DefaultImportMethods are the import methods a Glance enables when it names
// none: web-download is left out, since it has glance-api fetch any URL a
// user names from inside the cluster.
func DefaultImportMethods() []string { return []string{ImportGlanceDirect, ImportCopyImage} }

// importDefaults are the metadata definitions' path, the import methods
// and the staging area.
func importDefaults(s *GlanceSpec, _ string) {
	if s.MetadefsPath == "" {
		s.MetadefsPath = DefaultMetadefsPath
	}
	if len(s.ImportMethods) == 0 {
		s.ImportMethods = DefaultImportMethods()
	}
	s.Staging = stagingWithDefaults(s.Staging)
}

// stagingWithDefaults bounds the staging area unless it is declared
// unbounded.
func stagingWithDefaults(in *StagingSpec) *StagingSpec {
	staging := StagingSpec{}
	if in != nil {
		staging = *in
	}
	if staging.SizeLimit == nil && !staging.Unbounded {
		size := DefaultStagingSize.DeepCopy()
		staging.SizeLimit = &size
	}
	return &staging
}

// importRules are the part's rules, on a spec with its defaults: the
// staging area, the metadata definitions' path and the import methods.
// Paths are relative to the Glance settings.
func importRules(s GlanceSpec) problem.List {
	l := stagingProblems(*s.Staging)
	l = append(l, metadefsPathProblems(s.MetadefsPath)...)
	return append(l, importMethodProblems(s)...)
}

// uriFilterRules are the uri-filter part's rules: spec.importFiltering's.
func uriFilterRules(s GlanceSpec) problem.List { return ImportFilterProblems(s.ImportFiltering) }

// importPluginRules are the import-plugins part's rules on a spec with its
// defaults: spec.importPlugins's.
func importPluginRules(s GlanceSpec) problem.List { return ImportPluginsProblems(s.ImportPlugins) }

// importPluginWrittenRules are the import-plugins part's rules on the
// spec as written:
// decompression asks for a staging bound chosen by hand, and with the
// defaults every staging area has one. The plugin unpacks in place with
// no bound of its own, and a small archive can unpack a thousandfold: the
// staging bound is the only one, so it is asked for rather than
// inherited. The refusal names staging.sizeLimit, in the reference's
// words.
func importPluginWrittenRules(written GlanceSpec) problem.List {
	p, staging := written.ImportPlugins, written.Staging
	if p == nil || p.Decompression == nil || (staging != nil && (staging.SizeLimit != nil || staging.Unbounded)) {
		return nil
	}
	return problem.List{problem.Invalid(field.NewPath("staging", "sizeLimit"),
		"must be set explicitly while importPlugins.decompression is enabled: the plugin expands "+
			"the staged image by a ratio the caller picks and nothing caps the result, and breaching this bound "+
			"evicts the glance-api pod together with every other in-flight import on that replica, so the %s "+
			"default cannot be assumed to fit the largest UNPACKED image (set staging.unbounded to deliberately "+
			"keep no bound instead)", DefaultStagingSize.String())}
}

// metadefsPathProblems checks the metadata definitions' path: a clean
// absolute path, written into glance-api.conf as it is.
func metadefsPathProblems(p string) problem.List {
	at := field.NewPath("metadefsPath")
	if !path.IsAbs(p) || path.Clean(p) != p {
		return problem.List{problem.Invalid(at, "must be a clean absolute path")}
	}
	if why := inivalue.ValueProblem(p); why != "" {
		return problem.List{problem.Invalid(at, "%s", why)}
	}
	return nil
}

// minStagingSize is the smallest staging bound: below it (100m is a tenth
// of a byte) the first staged byte would evict the pod.
var minStagingSize = resource.MustParse("1Mi")

// stagingProblems checks spec.staging with the defaults filled in.
func stagingProblems(s StagingSpec) problem.List {
	var l problem.List
	at := field.NewPath("staging")
	switch {
	case s.Unbounded && s.VolumeClaim != nil:
		l = append(l, problem.Invalid(at.Child("unbounded"), "excludes volumeClaim: a claim asks for a size"))
	case s.Unbounded && s.SizeLimit != nil:
		l = append(l, problem.At(at.Child("unbounded"), "unbounded and sizeLimit are mutually exclusive: an unbounded staging area has no size limit to configure"))
	case s.SizeLimit != nil && s.SizeLimit.Cmp(minStagingSize) < 0:
		l = append(l, problem.Invalid(at.Child("sizeLimit"), "must be at least 1Mi"))
	case s.SizeLimit != nil && s.SizeLimit.Cmp(MaxVolumeSize) > 0:
		l = append(l, problem.Invalid(at.Child("sizeLimit"), "must be at most %s: no node holds a larger volume", MaxVolumeSize.String()))
	}
	return l
}

// importMethodProblems checks the import methods, on a spec with the
// defaults filled in: each a method glance offers here, none twice. Paths
// are relative to the Glance settings.
func importMethodProblems(s GlanceSpec) problem.List {
	var l problem.List
	seen := map[string]bool{}
	for i, m := range s.ImportMethods {
		known := false
		for _, k := range ImportMethods {
			known = known || m == k
		}
		at := field.NewPath("importMethods").Index(i)
		switch {
		case !known:
			l = append(l, problem.Invalid(at, "must be one of glance-direct, web-download, copy-image"))
		case seen[m]:
			l = append(l, problem.Invalid(at, "is given twice"))
		}
		seen[m] = true
	}
	return l
}

// The rules of spec.importPlugins and spec.importFiltering that keep what
// is written into glance-conf what the spec says. Admission refuses a
// spec breaking them; the Glance hook renders nothing from one. Paths are
// relative to the Glance's settings. What the reference refuses too is
// refused in its words (a clause of its own after the path); what only
// this project refuses (other control characters, quotes, a host
// oslo.config's HostAddress type would not read) keeps its own.

// reservedPropertyPrefix is Glance's own namespace of image properties:
// the inject plugin drops (and logs) a property in it.
const reservedPropertyPrefix = "os_glance"

// maxPropertyLength is the longest property name or value Glance stores,
// and the longest role, in characters (code points, as the CRD counts).
const maxPropertyLength = 255

// maxFilterHostLength is the longest host of the URI filter: a DNS name.
const maxFilterHostLength = 253

// injectLineBreak ends the reference's refusal of a newline in an
// injected property's name or value.
const injectLineBreak = "the rendered [inject_metadata_properties] inject value is written verbatim, " +
	"so a newline injects arbitrary config lines"

// ImportPluginsProblems checks spec.importPlugins.
func ImportPluginsProblems(p *ImportPluginsSpec) problem.List {
	if p == nil {
		return nil
	}
	var l problem.List
	at := field.NewPath("importPlugins")
	if c := p.Conversion; c != nil && c.OutputFormat != "" && !slices.Contains(ConversionFormats, c.OutputFormat) {
		l = append(l, problem.NotSupported(at.Child("conversion", "outputFormat"), ConversionFormats...))
	}
	if m := p.InjectMetadata; m != nil {
		l = append(l, problem.Wrap(at.Child("injectMetadata"), injectProblems(*m))...)
	}
	return l
}

// injectProblems checks the inject plugin's properties and roles. They
// are written as oslo.config's dict (name:value pairs joined by ',') and
// list, so a name holds neither ':' nor ',', and a value no ','.
func injectProblems(m ImportInjectMetadataSpec) problem.List {
	var l problem.List
	props := field.NewPath("properties")
	if len(m.Properties) == 0 {
		l = append(l, problem.At(props, "at least one property must be set: the inject_image_metadata plugin has nothing to inject otherwise"))
	}
	l = append(l, tooMany(props, len(m.Properties), maxImportEntries)...)
	for _, k := range slices.Sorted(maps.Keys(m.Properties)) {
		l = append(l, propertyNameProblems(props, k)...)
		if k != "" {
			l = append(l, propertyValueProblems(propertyPath(props, k), m.Properties[k])...)
		}
	}
	l = append(l, itemProblems(field.NewPath("ignoreUserRoles"), m.IgnoreUserRoles, roleProblems)...)
	if len(l) > 0 {
		return l
	}
	// Each part may be fine and the line not: a first name starting with
	// a quote and a last value ending with it read as one quoted value.
	if p := inivalue.ValueProblem(inivalue.DictValue(m.Properties)); p != "" {
		l = append(l, problem.Invalid(props, "written as one line, %s", p))
	}
	if p := inivalue.ValueProblem(strings.Join(m.IgnoreUserRoles, ",")); p != "" {
		l = append(l, problem.Invalid(field.NewPath("ignoreUserRoles"), "written as one line, %s", p))
	}
	return l
}

// propertyPath is where an injected property is: its name as the key,
// escaped when it holds a character a message must not carry and cut when
// it is longer than any name Glance stores.
func propertyPath(props *field.Path, k string) *field.Path {
	if utf8.RuneCountInString(k) > maxPropertyLength {
		return props.Key(excerpt.Bare(k))
	}
	return problem.Key(props, k)
}

// propertyNameProblems checks an injected property's name: the
// reference's refusals, then Glance's namespace and the characters no
// config value holds.
func propertyNameProblems(props *field.Path, k string) problem.List {
	at := propertyPath(props, k)
	var p problem.Problem
	switch {
	case k == "":
		p = problem.At(props, "property name must not be empty")
	case inivalue.LineBreak(k):
		p = problem.At(at, "property name must not contain newline or carriage-return characters: %s", injectLineBreak)
	case strings.Contains(k, ":"):
		p = problem.At(at, "property name must not contain a colon: the oslo Dict syntax splits each pair on the first colon, "+
			"so the name would be silently truncated there and its remainder injected as part of the value")
	case strings.Contains(k, ","):
		p = problem.At(at, "property name must not contain a comma: the oslo Dict syntax separates pairs on commas, "+
			"so the name would be split into a property of its own")
	case strings.TrimSpace(k) != k:
		p = problem.At(at, "property name must not start or end with whitespace: the oslo parser strips it, "+
			"so the injected property name would differ from the one stored here")
	case utf8.RuneCountInString(k) > maxPropertyLength:
		p = problem.At(at, "property name must be at most %d characters", maxPropertyLength)
	case strings.HasPrefix(k, reservedPropertyPrefix):
		p = problem.At(at, "a property name must not start with %s: Glance reserves it and the plugin drops such a property", reservedPropertyPrefix)
	case inivalue.ValueProblem(k) != "":
		p = problem.At(at, "the property name %s", inivalue.ValueProblem(k))
	default:
		return nil
	}
	return problem.List{p}
}

// propertyValueProblems checks an injected property's value, at its
// property's path: it may be empty and may hold ':'.
func propertyValueProblems(at *field.Path, v string) problem.List {
	var p problem.Problem
	switch {
	case inivalue.LineBreak(v):
		p = problem.At(at, "property value must not contain newline or carriage-return characters: %s", injectLineBreak)
	case strings.Contains(v, ","):
		p = problem.At(at, "property value must not contain a comma: the oslo Dict syntax separates pairs on commas, "+
			"so the value would be cut short and its remainder read as another property")
	case strings.TrimSpace(v) != v:
		p = problem.At(at, "property value must not start or end with whitespace: the oslo parser strips it, "+
			"so the injected value would differ from the one stored here")
	case utf8.RuneCountInString(v) > maxPropertyLength:
		p = problem.At(at, "property value must be at most %d characters", maxPropertyLength)
	case v != "" && inivalue.ValueProblem(v) != "":
		p = problem.Invalid(at, "%s", inivalue.ValueProblem(v))
	default:
		return nil
	}
	return problem.List{p}
}

// roleProblems checks a role the inject plugin leaves alone: one item of
// ignore_user_roles.
func roleProblems(at *field.Path, r string) problem.List {
	var p problem.Problem
	switch {
	case r == "":
		p = problem.At(at, "role must not be empty")
	case inivalue.LineBreak(r):
		p = problem.At(at, "role must not contain newline or carriage-return characters: the rendered "+
			"[inject_metadata_properties] value is written verbatim, so a newline injects arbitrary config lines")
	case strings.Contains(r, ","):
		p = problem.At(at, "role must not contain a comma: the rendered ignore_user_roles list separates roles on commas, "+
			"so the entry would be read as two roles")
	case utf8.RuneCountInString(r) > maxPropertyLength:
		p = problem.At(at, "role must be at most %d characters", maxPropertyLength)
	case inivalue.ValueProblem(r) != "":
		p = problem.Invalid(at, "%s", inivalue.ValueProblem(r))
	default:
		return nil
	}
	return problem.List{p}
}

// filterPair is one attribute's allow and deny list.
type filterPair struct {
	allow, deny string
	set         func(*ImportFilteringSpec) (allow, deny bool)
}

var filterPairs = []filterPair{
	{"allowedSchemes", "disallowedSchemes", func(f *ImportFilteringSpec) (bool, bool) {
		return len(f.AllowedSchemes) > 0, len(f.DisallowedSchemes) > 0
	}},
	{"allowedHosts", "disallowedHosts", func(f *ImportFilteringSpec) (bool, bool) {
		return len(f.AllowedHosts) > 0, len(f.DisallowedHosts) > 0
	}},
	{"allowedPorts", "disallowedPorts", func(f *ImportFilteringSpec) (bool, bool) {
		return len(f.AllowedPorts) > 0, len(f.DisallowedPorts) > 0
	}},
}

// ImportFilterProblems checks spec.importFiltering: each list's items as
// Glance's option types take them, and no attribute with both lists set,
// since Glance would ignore the deny list without a word.
func ImportFilterProblems(f *ImportFilteringSpec) problem.List {
	if f == nil {
		return nil
	}
	var l problem.List
	at := field.NewPath("importFiltering")
	for _, pair := range filterPairs {
		if allow, deny := pair.set(f); allow && deny {
			l = append(l, problem.At(at.Child(pair.deny), "%s and %s are mutually exclusive: glance ignores the deny-list when the allow-list is non-empty", pair.allow, pair.deny))
		}
	}
	// In the spec's field order, so the same spec gives the same message.
	l = append(l, itemProblems(at.Child("allowedSchemes"), f.AllowedSchemes, schemeProblems)...)
	l = append(l, itemProblems(at.Child("disallowedSchemes"), f.DisallowedSchemes, schemeProblems)...)
	l = append(l, itemProblems(at.Child("allowedHosts"), f.AllowedHosts, filterHostProblems)...)
	l = append(l, itemProblems(at.Child("disallowedHosts"), f.DisallowedHosts, filterHostProblems)...)
	l = append(l, itemProblems(at.Child("allowedPorts"), f.AllowedPorts, portProblems)...)
	l = append(l, itemProblems(at.Child("disallowedPorts"), f.DisallowedPorts, portProblems)...)
	return l
}

// maxImportEntries is the most items each list of spec.importFiltering
// and of injectMetadata holds, and the most properties injectMetadata
// injects: the CRD's maxItems and maxProperties, and the reference's.
const maxImportEntries = 64

// tooMany refuses n entries where at holds at most most.
func tooMany(at *field.Path, n, most int) problem.List {
	if n <= most {
		return nil
	}
	return problem.List{problem.TooMany(at, n, most)}
}

// itemProblems checks a list of at most maxImportEntries items, then each
// item at its index.
func itemProblems[T any](at *field.Path, items []T, check func(*field.Path, T) problem.List) problem.List {
	l := tooMany(at, len(items), maxImportEntries)
	for i, v := range items {
		l = append(l, check(at.Index(i), v)...)
	}
	return l
}

// KnownScheme reports whether s is a scheme the import filter's enum
// names.
func KnownScheme(s string) bool { return s == SchemeHTTP || s == SchemeHTTPS }

func schemeProblems(at *field.Path, s string) problem.List {
	if !KnownScheme(s) {
		return problem.List{problem.NotSupported(at, SchemeHTTP, SchemeHTTPS)}
	}
	return nil
}

// filterHostProblems checks a host of the URI filter: the reference's
// refusals, then what oslo.config's HostAddress type reads.
func filterHostProblems(at *field.Path, h string) problem.List {
	var p problem.Problem
	switch {
	case h == "":
		p = problem.At(at, "host must not be empty")
	case inivalue.LineBreak(h):
		p = problem.At(at, "host must not contain newline or carriage-return characters: the rendered "+
			"[import_filtering_opts] value is written verbatim, so a newline injects arbitrary config lines")
	case len(h) > maxFilterHostLength:
		p = problem.At(at, "host must be at most %d characters", maxFilterHostLength)
	case inivalue.HostAddressProblem(h) != "":
		p = problem.Invalid(at, "%s", inivalue.HostAddressProblem(h))
	default:
		return nil
	}
	return problem.List{p}
}

func portProblems(at *field.Path, p int32) problem.List {
	if p < 1 || p > 65535 {
		return problem.List{problem.At(at, "port must be between 1 and 65535")}
	}
	return nil
}
