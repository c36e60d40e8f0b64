package api

import "slices"

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
