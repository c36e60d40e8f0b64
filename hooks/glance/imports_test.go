package glance

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/storeconf"
	"github.com/c5c3/glance-hooks/hooks/glance/render"
)

func TestPluginsConf(t *testing.T) {
	list := func(v string) storeconf.Section {
		return storeconf.Section{Name: "image_import_opts", Options: []storeconf.Option{{Key: "image_import_plugins", Value: v}}}
	}
	cases := map[string]struct {
		reason  string
		plugins *api.ImportPluginsSpec
		want    []storeconf.Section
		wantErr string
	}{
		"none": {"no plugin is said, not left to the release", nil, []storeconf.Section{list("[]")}, ""},
		"conversion default": {"an unset format is raw", &api.ImportPluginsSpec{Conversion: &api.ImportConversionSpec{}},
			[]storeconf.Section{list("[image_conversion]"), {Name: "image_conversion", Options: []storeconf.Option{{Key: "output_format", Value: "raw"}}}}, ""},
		"all": {"fixed order, properties sorted, roles without brackets", &api.ImportPluginsSpec{
			InjectMetadata: &api.ImportInjectMetadataSpec{Properties: map[string]string{"z": "1", "a": "x:y"}, IgnoreUserRoles: []string{"admin", "reader"}},
			Conversion:     &api.ImportConversionSpec{OutputFormat: "vmdk"}, Decompression: &api.ImportDecompressionSpec{}},
			[]storeconf.Section{list("[image_decompression,image_conversion,inject_image_metadata]"),
				{Name: "image_conversion", Options: []storeconf.Option{{Key: "output_format", Value: "vmdk"}}},
				{Name: "inject_metadata_properties", Options: []storeconf.Option{{Key: "inject", Value: "a:x:y,z:1"}, {Key: "ignore_user_roles", Value: "admin,reader"}}}}, ""},
		"roles default": {"nil roles are Glance's admin; an empty list would inject for everyone",
			&api.ImportPluginsSpec{InjectMetadata: &api.ImportInjectMetadataSpec{Properties: map[string]string{"a": "b"}}},
			[]storeconf.Section{list("[inject_image_metadata]"),
				{Name: "inject_metadata_properties", Options: []storeconf.Option{{Key: "inject", Value: "a:b"}, {Key: "ignore_user_roles", Value: "admin"}}}}, ""},
		"roles empty": {"an empty list is kept: every role gets the properties",
			&api.ImportPluginsSpec{InjectMetadata: &api.ImportInjectMetadataSpec{Properties: map[string]string{"a": "b"}, IgnoreUserRoles: []string{}}},
			[]storeconf.Section{list("[inject_image_metadata]"),
				{Name: "inject_metadata_properties", Options: []storeconf.Option{{Key: "inject", Value: "a:b"}, {Key: "ignore_user_roles", Value: ""}}}}, ""},
		"colon": {"a spec admission would refuse renders nothing",
			&api.ImportPluginsSpec{InjectMetadata: &api.ImportInjectMetadataSpec{Properties: map[string]string{"a:b": "c"}}}, nil,
			"spec.importPlugins.injectMetadata.properties[a:b]: property name must not contain a colon: the oslo Dict syntax splits each pair on the first colon, so the name would be silently truncated there and its remainder injected as part of the value"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := pluginsConf(render.ConfInput{Spec: api.GlanceSpec{ImportPlugins: c.plugins}, Mode: render.Eventlet})
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("%s: err = %v, want %q", c.reason, err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s: %v", c.reason, err)
			}
			if diff := cmp.Diff(c.want, got.Sections); diff != "" {
				t.Errorf("%s: -want +got:\n%s", c.reason, diff)
			}
		})
	}
}

func TestURIFilterConf(t *testing.T) {
	got, err := uriFilterConf(render.ConfInput{Spec: api.GlanceSpec{ImportFiltering: &api.ImportFilteringSpec{
		AllowedSchemes: []string{"http", "https"}, AllowedHosts: []string{"127.0.0.1"}, AllowedPorts: []int32{8080}}}})
	if err != nil {
		t.Fatal(err)
	}
	want := []storeconf.Section{{Name: "import_filtering_opts", Options: []storeconf.Option{
		{Key: "allowed_schemes", Value: "[http,https]"}, {Key: "disallowed_schemes", Value: "[]"},
		{Key: "allowed_hosts", Value: "[127.0.0.1]"}, {Key: "disallowed_hosts", Value: "[]"},
		{Key: "allowed_ports", Value: "[8080]"}, {Key: "disallowed_ports", Value: "[]"},
	}}}
	if diff := cmp.Diff(want, got.Sections); diff != "" {
		t.Errorf("all six lists, the allow lists as given: -want +got:\n%s", diff)
	}
	if _, err := uriFilterConf(render.ConfInput{Spec: api.GlanceSpec{ImportFiltering: &api.ImportFilteringSpec{AllowedHosts: []string{"a b"}}}}); err == nil {
		t.Error("a host oslo.config would not read renders nothing")
	}
}

// TestPluginsConfUnderUWSGI: conversion under uWSGI names the interpreter
// its qemu-img runs under, which would otherwise be the uWSGI binary.
func TestPluginsConfUnderUWSGI(t *testing.T) {
	conversion := &api.ImportPluginsSpec{Conversion: &api.ImportConversionSpec{}}
	got, err := pluginsConf(render.ConfInput{Spec: api.GlanceSpec{ImportPlugins: conversion}, Mode: render.UWSGI})
	if err != nil {
		t.Fatal(err)
	}
	want := storeconf.Section{Name: "wsgi", Options: []storeconf.Option{{Key: "python_interpreter", Value: "python3"}}}
	if diff := cmp.Diff(want, got.Sections[len(got.Sections)-1]); diff != "" {
		t.Errorf("-want +got:\n%s", diff)
	}
	got, err = pluginsConf(render.ConfInput{Spec: api.GlanceSpec{ImportPlugins: &api.ImportPluginsSpec{Decompression: &api.ImportDecompressionSpec{}}}, Mode: render.UWSGI})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range got.Sections {
		if s.Name == "wsgi" {
			t.Error("no conversion, no interpreter to name")
		}
	}
}
