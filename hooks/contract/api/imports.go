package api

import (
	"path"
	"slices"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/c5c3/glance-hooks/hooks/contract/inivalue"
	"github.com/c5c3/glance-hooks/hooks/contract/problem"
)

// The imports feature's part of a Glance spec: its defaults (the metadata
// definitions' path, the import methods, the staging area) and its rules
// on the spec with them. The import plugins' and the URI filter's rules
// are storeconf's, which imports this package, so they stay in
// hooks/contract/rules and run on the spec as written.

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
func defaultAllowedSchemes() []string { return []string{SchemeHTTPS} }
func defaultAllowedPorts() []int32    { return []int32{443} }

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
		AllowedSchemes:    orDefault(f.AllowedSchemes, defaultAllowedSchemes),
		DisallowedSchemes: orEmpty(f.DisallowedSchemes),
		AllowedHosts:      orEmpty(f.AllowedHosts),
		AllowedPorts:      orDefault(f.AllowedPorts, defaultAllowedPorts),
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
