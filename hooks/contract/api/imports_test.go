package api

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestResolveImportFilter(t *testing.T) {
	deny := DefaultDeniedHosts()
	cases := map[string]struct {
		reason string
		spec   *ImportFilteringSpec
		want   ImportFilter
	}{
		"nil": {"no block is the default filter", nil, ImportFilter{
			AllowedSchemes: []string{"https"}, DisallowedSchemes: []string{}, AllowedHosts: []string{}, DisallowedHosts: deny,
			AllowedPorts: []int32{443}, DisallowedPorts: []int32{}}},
		"empty block": {"an empty block resolves as no block", &ImportFilteringSpec{}, ImportFilter{
			AllowedSchemes: []string{"https"}, DisallowedSchemes: []string{}, AllowedHosts: []string{}, DisallowedHosts: deny,
			AllowedPorts: []int32{443}, DisallowedPorts: []int32{}}},
		"denied hosts added": {"a host denied is added to the default list, once", &ImportFilteringSpec{DisallowedHosts: []string{"evil.example.com", "127.0.0.1"}}, ImportFilter{
			AllowedSchemes: []string{"https"}, DisallowedSchemes: []string{}, AllowedHosts: []string{}, DisallowedHosts: append(DefaultDeniedHosts(), "evil.example.com"),
			AllowedPorts: []int32{443}, DisallowedPorts: []int32{}}},
		"allowed hosts": {"an allow list of hosts empties the deny list Glance would ignore", &ImportFilteringSpec{AllowedHosts: []string{"mirror.example.com"}}, ImportFilter{
			AllowedSchemes: []string{"https"}, DisallowedSchemes: []string{}, AllowedHosts: []string{"mirror.example.com"}, DisallowedHosts: []string{},
			AllowedPorts: []int32{443}, DisallowedPorts: []int32{}}},
		"explicit empty": {"an empty allow list stays empty, so its deny list applies", &ImportFilteringSpec{AllowedSchemes: []string{}, DisallowedSchemes: []string{"http"},
			AllowedPorts: []int32{}, DisallowedPorts: []int32{22}}, ImportFilter{
			AllowedSchemes: []string{}, DisallowedSchemes: []string{"http"}, AllowedHosts: []string{}, DisallowedHosts: deny,
			AllowedPorts: []int32{}, DisallowedPorts: []int32{22}}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(c.want, ResolveImportFilter(c.spec)); diff != "" {
				t.Errorf("%s: -want +got:\n%s", c.reason, diff)
			}
		})
	}
}

func TestResolveImportFilterDoesNotShare(t *testing.T) {
	spec := &ImportFilteringSpec{AllowedSchemes: []string{"https"}}
	r := ResolveImportFilter(spec)
	r.AllowedSchemes[0] = "http"
	r.DisallowedHosts[0] = "x"
	if spec.AllowedSchemes[0] != "https" || DefaultDeniedHosts()[0] != "localhost" {
		t.Error("the resolved filter shares its lists with the spec or the defaults")
	}
}

func TestEnabledImportPlugins(t *testing.T) {
	cases := map[string]struct {
		reason string
		spec   *ImportPluginsSpec
		want   []string
	}{
		"nil":  {"no block, no plugin", nil, nil},
		"none": {"an empty block enables none", &ImportPluginsSpec{}, nil},
		"all": {"the fixed order: unpack, convert, stamp", &ImportPluginsSpec{InjectMetadata: &ImportInjectMetadataSpec{}, Conversion: &ImportConversionSpec{}, Decompression: &ImportDecompressionSpec{}},
			[]string{PluginDecompression, PluginConversion, PluginInjectMetadata}},
		"inject only": {"one plugin alone", &ImportPluginsSpec{InjectMetadata: &ImportInjectMetadataSpec{}}, []string{PluginInjectMetadata}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(c.want, EnabledImportPlugins(c.spec)); diff != "" {
				t.Errorf("%s: -want +got:\n%s", c.reason, diff)
			}
		})
	}
}

// TestImportRules: the imports part's rules on a spec with its defaults,
// in the words both gates give: the staging area, the metadata
// definitions' path, the import methods.
func TestImportRules(t *testing.T) {
	cases := map[string]struct {
		reason string
		spec   GlanceSpec
		want   string
	}{
		"Defaults":  {"the defaults pass their own rules", GlanceSpec{}, ""},
		"Relative":  {"glance-api reads the path from its own working directory", GlanceSpec{MetadefsPath: "metadefs"}, "metadefsPath must be a clean absolute path"},
		"Unclean":   {"a path that is not clean names the same place twice over", GlanceSpec{MetadefsPath: "/etc/../metadefs"}, "metadefsPath must be a clean absolute path"},
		"Newline":   {"a newline would open another line of glance-api.conf", GlanceSpec{MetadefsPath: "/etc/metadefs\nx"}, "metadefsPath contains a newline"},
		"Twice":     {"a method named twice is a slip", GlanceSpec{ImportMethods: []string{ImportGlanceDirect, ImportGlanceDirect}}, "importMethods[1] is given twice"},
		"Unbounded": {"an unbounded area has no limit to set", GlanceSpec{Staging: &StagingSpec{Unbounded: true, VolumeClaim: &StagingVolumeClaim{}}}, "staging.unbounded excludes volumeClaim: a claim asks for a size"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := tc.spec
			importDefaults(&s, "openstack")
			if diff := cmp.Diff(tc.want, importRules(s).String()); diff != "" {
				t.Errorf("%s: -want +got:\n%s", tc.reason, diff)
			}
		})
	}
}
