package glance

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/ini.v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
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
	assert.Equal(t, "first cors http_proxy_to_wsgi versionnegotiation osprofiler authtoken context unauth rootapp",
		f.Section("pipeline:"+render.PastePipeline).Key("pipeline").String())
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
	assert.Equal(t, want, f.Section("pipeline:"+render.PastePipeline).Key("pipeline").Strings(" "))
}
