package storeconf

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
)

func TestImportPluginsProblems(t *testing.T) {
	inject := func(props map[string]string, roles ...string) *api.ImportPluginsSpec {
		return &api.ImportPluginsSpec{InjectMetadata: &api.ImportInjectMetadataSpec{Properties: props, IgnoreUserRoles: roles}}
	}
	cases := map[string]struct {
		reason string
		spec   *api.ImportPluginsSpec
		want   []string
	}{
		"nil":         {"no block, nothing to check", nil, nil},
		"all formats": {"qcow2 is a format the plugin writes", &api.ImportPluginsSpec{Conversion: &api.ImportConversionSpec{OutputFormat: "qcow2"}}, nil},
		"default":     {"an unset format is raw", &api.ImportPluginsSpec{Conversion: &api.ImportConversionSpec{}}, nil},
		"unknown format": {"the plugin's choices", &api.ImportPluginsSpec{Conversion: &api.ImportConversionSpec{OutputFormat: "iso"}},
			[]string{"importPlugins.conversion.outputFormat must be one of qcow2, raw, vmdk"}},
		"quoted line": {"parts that pass alone, a line the parser would unquote", inject(map[string]string{"\"a": "1", "b": "2\""}),
			[]string{"importPlugins.injectMetadata.properties written as one line, is wrapped in quotes, which the config parser would strip"}},
		"good properties": {"names and values oslo.config reads back", inject(map[string]string{"src": "https://x.example/p", "tier": ""}, "admin"), nil},
		"no properties":   {"nothing to inject", inject(nil), []string{"importPlugins.injectMetadata.properties must name at least one property"}},
		"bad properties": {"every bad pair is named, in name order", inject(map[string]string{"a:b": "c", "os_glance_x": "1", "z": "1,2"}, "admin", ""),
			[]string{
				"importPlugins.injectMetadata.properties[a:b]: the property name contains ':': each pair is split at its first ':', so the name would end there",
				"importPlugins.injectMetadata.properties[os_glance_x]: a property name must not start with os_glance: Glance reserves it and the plugin drops such a property",
				"importPlugins.injectMetadata.properties[z] contains ',', which separates the list's items",
				"importPlugins.injectMetadata.ignoreUserRoles[1] is empty",
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
		spec   *api.ImportFilteringSpec
		want   []string
	}{
		"nil":    {"no block, the default filter", nil, nil},
		"pinned": {"allow lists alone", &api.ImportFilteringSpec{AllowedHosts: []string{"m.example.com"}, AllowedPorts: []int32{443}, AllowedSchemes: []string{"https"}}, nil},
		"deny":   {"deny lists beside empty allow lists", &api.ImportFilteringSpec{AllowedSchemes: []string{}, DisallowedSchemes: []string{"http"}, DisallowedHosts: []string{"x.example.com"}}, nil},
		"pairs": {"every pair set on both sides", &api.ImportFilteringSpec{AllowedSchemes: []string{"https"}, DisallowedSchemes: []string{"http"},
			AllowedHosts: []string{"a.example.com"}, DisallowedHosts: []string{"b.example.com"}, AllowedPorts: []int32{443}, DisallowedPorts: []int32{80}},
			[]string{
				"importFiltering.disallowedSchemes: allowedSchemes and disallowedSchemes are mutually exclusive: glance ignores the deny-list when the allow-list is non-empty",
				"importFiltering.disallowedHosts: allowedHosts and disallowedHosts are mutually exclusive: glance ignores the deny-list when the allow-list is non-empty",
				"importFiltering.disallowedPorts: allowedPorts and disallowedPorts are mutually exclusive: glance ignores the deny-list when the allow-list is non-empty",
			}},
		"items": {"each item as Glance's types take it", &api.ImportFilteringSpec{AllowedSchemes: []string{"ftp"}, AllowedHosts: []string{"a_b"}, DisallowedPorts: []int32{70000}},
			[]string{
				"importFiltering.allowedSchemes[0] must be http or https",
				"importFiltering.allowedHosts[0] must be an IP address or a host name: labels of letters, digits and '-', neither starting nor ending with '-'",
				"importFiltering.disallowedPorts[0] must be a port, 1 to 65535",
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
