package api

import (
	"strings"
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

// TestImportPluginWrittenRules: decompression's staging bound is judged on the
// spec as written; on the spec with its defaults every staging area has a
// size, so the rule would never refuse there.
func TestImportPluginWrittenRules(t *testing.T) {
	decompress := &ImportPluginsSpec{Decompression: &ImportDecompressionSpec{}}
	size := DefaultStagingSize.DeepCopy()
	// The reference's words, at the field it names.
	const refused = "staging.sizeLimit must be set explicitly while importPlugins.decompression is enabled: the plugin expands " +
		"the staged image by a ratio the caller picks and nothing caps the result, and breaching this bound evicts the glance-api pod " +
		"together with every other in-flight import on that replica, so the 10Gi default cannot be assumed to fit the largest " +
		"UNPACKED image (set staging.unbounded to deliberately keep no bound instead)"
	cases := map[string]struct {
		reason string
		spec   GlanceSpec
		want   string
	}{
		"no plugins":      {"nothing unpacks", GlanceSpec{}, ""},
		"no staging":      {"the default size is not a choice", GlanceSpec{ImportPlugins: decompress}, refused},
		"claim only":      {"a claim leaves the size to the default", GlanceSpec{ImportPlugins: decompress, Staging: &StagingSpec{VolumeClaim: &StagingVolumeClaim{}}}, refused},
		"size written":    {"the default's size, written by hand, is a choice", GlanceSpec{ImportPlugins: decompress, Staging: &StagingSpec{SizeLimit: &size}}, ""},
		"unbounded":       {"unbounded is the acknowledgement too", GlanceSpec{ImportPlugins: decompress, Staging: &StagingSpec{Unbounded: true}}, ""},
		"conversion only": {"only decompression unpacks", GlanceSpec{ImportPlugins: &ImportPluginsSpec{Conversion: &ImportConversionSpec{}}}, ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, importPluginWrittenRules(tc.spec).String()); diff != "" {
				t.Errorf("%s: -want +got:\n%s", tc.reason, diff)
			}
			defaulted := tc.spec
			importDefaults(&defaulted, "openstack")
			if got := importPluginWrittenRules(defaulted); len(got) > 0 {
				t.Errorf("%s: the defaults fill in a bound, so the spec with them passes; got %s", tc.reason, got)
			}
		})
	}
}

func TestImportPluginsProblems(t *testing.T) {
	inject := func(props map[string]string, roles ...string) *ImportPluginsSpec {
		return &ImportPluginsSpec{InjectMetadata: &ImportInjectMetadataSpec{Properties: props, IgnoreUserRoles: roles}}
	}
	cases := map[string]struct {
		reason string
		spec   *ImportPluginsSpec
		want   []string
	}{
		"nil":         {"no block, nothing to check", nil, nil},
		"all formats": {"qcow2 is a format the plugin writes", &ImportPluginsSpec{Conversion: &ImportConversionSpec{OutputFormat: "qcow2"}}, nil},
		"default":     {"an unset format is raw", &ImportPluginsSpec{Conversion: &ImportConversionSpec{}}, nil},
		"unknown format": {"the plugin's choices, as Kubernetes words an enum, without the value", &ImportPluginsSpec{Conversion: &ImportConversionSpec{OutputFormat: "iso"}},
			[]string{`importPlugins.conversion.outputFormat: Unsupported value: supported values: "qcow2", "raw", "vmdk"`}},
		"quoted line": {"parts that pass alone, a line the parser would unquote", inject(map[string]string{"\"a": "1", "b": "2\""}),
			[]string{"importPlugins.injectMetadata.properties written as one line, is wrapped in quotes, which the config parser would strip"}},
		"good properties": {"names and values oslo.config reads back: a value may hold ':' or be empty, and 255 characters beyond ASCII",
			inject(map[string]string{"src": "https://x.example/p", "tier": "", "note": strings.Repeat("é", 255)}, "admin"), nil},
		"no properties": {"nothing to inject", inject(nil),
			[]string{"importPlugins.injectMetadata.properties: at least one property must be set: the inject_image_metadata plugin has nothing to inject otherwise"}},
		"bad names": {"every bad name is named, in name order, in the reference's words where it has them", inject(map[string]string{
			"": "x", " a": "1", "a,b": "1", "a:b": "c", "a\nb": "1", "os_glance_x": "1", "t\tx": "1", strings.Repeat("n", 256): "1"}),
			[]string{
				"importPlugins.injectMetadata.properties: property name must not be empty",
				"importPlugins.injectMetadata.properties[ a]: property name must not start or end with whitespace: the oslo parser strips it, so the injected property name would differ from the one stored here",
				`importPlugins.injectMetadata.properties[a\nb]: property name must not contain newline or carriage-return characters: the rendered [inject_metadata_properties] inject value is written verbatim, so a newline injects arbitrary config lines`,
				"importPlugins.injectMetadata.properties[a,b]: property name must not contain a comma: the oslo Dict syntax separates pairs on commas, so the name would be split into a property of its own",
				"importPlugins.injectMetadata.properties[a:b]: property name must not contain a colon: the oslo Dict syntax splits each pair on the first colon, so the name would be silently truncated there and its remainder injected as part of the value",
				"importPlugins.injectMetadata.properties[" + strings.Repeat("n", 63) + "... (256 bytes)]: property name must be at most 255 characters",
				"importPlugins.injectMetadata.properties[os_glance_x]: a property name must not start with os_glance: Glance reserves it and the plugin drops such a property",
				`importPlugins.injectMetadata.properties[t\tx]: the property name contains a tab`,
			}},
		"bad values": {"every bad value is named by its property, in the reference's words where it has them", inject(map[string]string{
			"a": "1\r", "b": "1,2", "c": " 1", "d": strings.Repeat("v", 256), "e": "'q'"}),
			[]string{
				"importPlugins.injectMetadata.properties[a]: property value must not contain newline or carriage-return characters: the rendered [inject_metadata_properties] inject value is written verbatim, so a newline injects arbitrary config lines",
				"importPlugins.injectMetadata.properties[b]: property value must not contain a comma: the oslo Dict syntax separates pairs on commas, so the value would be cut short and its remainder read as another property",
				"importPlugins.injectMetadata.properties[c]: property value must not start or end with whitespace: the oslo parser strips it, so the injected value would differ from the one stored here",
				"importPlugins.injectMetadata.properties[d]: property value must be at most 255 characters",
				"importPlugins.injectMetadata.properties[e] is wrapped in quotes, which the config parser would strip",
			}},
		"bad roles": {"each bad role at its index", inject(map[string]string{"a": "b"}, "", "a\nb", "a,b", strings.Repeat("r", 256), "a\x1bb"),
			[]string{
				"importPlugins.injectMetadata.ignoreUserRoles[0]: role must not be empty",
				"importPlugins.injectMetadata.ignoreUserRoles[1]: role must not contain newline or carriage-return characters: the rendered [inject_metadata_properties] value is written verbatim, so a newline injects arbitrary config lines",
				"importPlugins.injectMetadata.ignoreUserRoles[2]: role must not contain a comma: the rendered ignore_user_roles list separates roles on commas, so the entry would be read as two roles",
				"importPlugins.injectMetadata.ignoreUserRoles[3]: role must be at most 255 characters",
				"importPlugins.injectMetadata.ignoreUserRoles[4] contains the control character U+001B",
			}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			var got []string
			for _, p := range ImportPluginsProblems(c.spec) {
				got = append(got, p.String())
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("%s: -want +got:\n%s", c.reason, diff)
			}
		})
	}
}

func TestImportFilterProblems(t *testing.T) {
	cases := map[string]struct {
		reason string
		spec   *ImportFilteringSpec
		want   []string
	}{
		"nil":    {"no block, the default filter", nil, nil},
		"pinned": {"allow lists alone", &ImportFilteringSpec{AllowedHosts: []string{"m.example.com"}, AllowedPorts: []int32{443}, AllowedSchemes: []string{"https"}}, nil},
		"deny":   {"deny lists beside empty allow lists", &ImportFilteringSpec{AllowedSchemes: []string{}, DisallowedSchemes: []string{"http"}, DisallowedHosts: []string{"x.example.com"}}, nil},
		"pairs": {"every pair set on both sides", &ImportFilteringSpec{AllowedSchemes: []string{"https"}, DisallowedSchemes: []string{"http"},
			AllowedHosts: []string{"a.example.com"}, DisallowedHosts: []string{"b.example.com"}, AllowedPorts: []int32{443}, DisallowedPorts: []int32{80}},
			[]string{
				"importFiltering.disallowedSchemes: allowedSchemes and disallowedSchemes are mutually exclusive: glance ignores the deny-list when the allow-list is non-empty",
				"importFiltering.disallowedHosts: allowedHosts and disallowedHosts are mutually exclusive: glance ignores the deny-list when the allow-list is non-empty",
				"importFiltering.disallowedPorts: allowedPorts and disallowedPorts are mutually exclusive: glance ignores the deny-list when the allow-list is non-empty",
			}},
		"items": {"each item as Glance's types take it, in the reference's words where it has them", &ImportFilteringSpec{
			AllowedSchemes: []string{"ftp"}, AllowedHosts: []string{"a_b", "", "a\nb", strings.Repeat("a", 254), "0:0::1"}, DisallowedPorts: []int32{70000, 0}},
			[]string{
				`importFiltering.allowedSchemes[0]: Unsupported value: supported values: "http", "https"`,
				"importFiltering.allowedHosts[0] must be an IP address or a host name: labels of letters, digits and '-', neither starting nor ending with '-'",
				"importFiltering.allowedHosts[1]: host must not be empty",
				"importFiltering.allowedHosts[2]: host must not contain newline or carriage-return characters: the rendered [import_filtering_opts] value is written verbatim, so a newline injects arbitrary config lines",
				"importFiltering.allowedHosts[3]: host must be at most 253 characters",
				"importFiltering.allowedHosts[4] is an IP address not in its canonical form, which Glance compares URI hosts in",
				"importFiltering.disallowedPorts[0]: port must be between 1 and 65535",
				"importFiltering.disallowedPorts[1]: port must be between 1 and 65535",
			}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			var got []string
			for _, p := range ImportFilterProblems(c.spec) {
				got = append(got, p.String())
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("%s: -want +got:\n%s", c.reason, diff)
			}
		})
	}
}
