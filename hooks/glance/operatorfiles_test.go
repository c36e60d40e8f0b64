package glance

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/ini.v1"
	"sigs.k8s.io/yaml"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/glance/render"
)

// TestRenderPaste: no filter keeps PasteIni byte for byte; filters go
// before the hooks' own or just before the application, each with its
// section, and the file reads back.
func TestRenderPaste(t *testing.T) {
	got, err := render.RenderPaste(api.GlanceSpec{}, files.Paste)
	require.NoError(t, err)
	assert.Equal(t, render.PasteIni, got)

	spec := api.GlanceSpec{Middleware: []api.MiddlewareSpec{
		{Name: "unauth", FilterFactory: "glance.api.middleware.context:UnauthenticatedContextMiddleware.factory", Position: api.MiddlewareAfter},
		{Name: "first", FilterFactory: "a.b:c", Position: api.MiddlewareBefore, Config: map[string]string{"rate": "50%", "z": "1"}},
	}}
	got, err = render.RenderPaste(spec, files.Paste)
	require.NoError(t, err)
	f, err := ini.LoadSources(ini.LoadOptions{KeyValueDelimiters: "=:"}, []byte(got))
	require.NoError(t, err)
	assert.Equal(t, "first cors healthcheck http_proxy_to_wsgi versionnegotiation osprofiler authtoken context unauth rootapp",
		f.Section("pipeline:glance-api-"+render.PasteFlavor).Key("pipeline").String())
	assert.Equal(t, "glance.api.middleware.context:UnauthenticatedContextMiddleware.factory", f.Section("filter:unauth").Key("paste.filter_factory").String())
	assert.Equal(t, "50%%", f.Section("filter:first").Key("rate").String(), "'%' is doubled for PasteDeploy's interpolation")

	for name, bad := range map[string]api.MiddlewareSpec{
		"the hooks' filter": {Name: "authtoken", FilterFactory: "a:b", Position: "after"},
		"factory":           {Name: "x", FilterFactory: "a b", Position: "after"},
		"position":          {Name: "x", FilterFactory: "a:b", Position: "middle"},
		"newline":           {Name: "x", FilterFactory: "a:b", Position: "after", Config: map[string]string{"k": "v\n[filter:authtoken]"}},
	} {
		_, err := render.RenderPaste(api.GlanceSpec{Middleware: []api.MiddlewareSpec{bad}}, files.Paste)
		assert.Error(t, err, name)
	}
}

// TestPasteBasePipeline keeps pasteBasePipeline PasteIni's pipeline.
func TestPasteBasePipeline(t *testing.T) {
	f, err := ini.LoadSources(ini.LoadOptions{KeyValueDelimiters: "=:"}, []byte(render.PasteIni))
	require.NoError(t, err)
	want := append(append([]string{}, render.PasteBasePipeline...), render.PasteApp)
	assert.Equal(t, want, f.Section("pipeline:glance-api-"+render.PasteFlavor).Key("pipeline").Strings(" "))
}

// TestPolicy: [oslo_policy] from the release and the overrides; the rules
// of a ConfigMap with the inline ones over them; what cannot be read.
func TestPolicy(t *testing.T) {
	part, err := render.PolicyConf(render.ConfInput{Spec: api.GlanceSpec{OpenStackRelease: "2025.2"}})
	require.NoError(t, err)
	require.Len(t, part.Sections, 1)
	assert.Equal(t, "enforce_new_defaults", part.Sections[0].Options[0].Key)
	assert.Equal(t, "enforce_scope", part.Sections[0].Options[1].Key)
	part, err = render.PolicyConf(render.ConfInput{Spec: api.GlanceSpec{OpenStackRelease: "2023.2"}})
	require.NoError(t, err)
	assert.Empty(t, part.Sections, "before secure RBAC nothing is rendered")

	cm := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"p"},"data":{"policy.yaml":"get_images: role:reader\ndelete_image: role:admin\n"}}`
	related := metacontroller.ObjectMap{names.ConfigMapsKey: {"p": []byte(cm)}}
	spec := api.GlanceSpec{PolicyOverrides: &api.PolicySpec{ConfigMapRef: &api.LocalObjectReference{Name: "p"},
		Rules: map[string]string{"delete_image": "!", "x\"y": "a\nb"}}}
	rules, err := render.PolicyRules(spec, related)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"get_images": "role:reader", "delete_image": "!", "x\"y": "a\nb"}, rules)
	var back map[string]string
	require.NoError(t, yaml.Unmarshal([]byte(render.RenderPolicy(rules)), &back))
	assert.Equal(t, rules, back, "the rendered file reads back as the rules, whatever they hold")

	spec.PolicyOverrides.ConfigMapRef.Name = "missing"
	_, err = render.PolicyRules(spec, related)
	assert.ErrorContains(t, err, `ConfigMap "missing" does not exist`)
	bad := metacontroller.ObjectMap{names.ConfigMapsKey: {"p": []byte(`{"metadata":{"name":"p"},"data":{"policy.yaml":"- a list"}}`)}}
	spec.PolicyOverrides.ConfigMapRef.Name = "p"
	_, err = render.PolicyRules(spec, bad)
	assert.ErrorContains(t, err, "is not a map of rule names to rules")
}
