package glance

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/ini.v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/optioncatalog"
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

// TestPasteFactoriesShipWithGlance holds every factory of the paste file
// the hooks render, with every feature's filter in it, to the factories
// Glance's own paste file names at each release with an option catalog,
// in the same role (testdata/paste-factories, written by `make catalogs`
// from the glance commit each option catalog was made from). A factory
// the release does not ship that way may not load: oslo.middleware from
// 2026.1 refuses its healthcheck as a filter, and Glance's own file builds
// it as an application.
func TestPasteFactoriesShipWithGlance(t *testing.T) {
	var lists []string
	for _, rel := range optioncatalog.Releases() {
		lists = append(lists, filepath.Join("testdata", "paste-factories", rel.String()+".json"))
	}
	require.NotEmpty(t, lists)
	everyFilter := testSpec(func(s *api.GlanceSpec) { s.ImageCache = &api.ImageCacheSpec{} })
	paste, err := render.RenderPaste(everyFilter, files.Paste)
	require.NoError(t, err)
	require.NotEqual(t, render.PasteIni, paste, "a feature's filter is in the file checked")
	f, err := ini.LoadSources(ini.LoadOptions{KeyValueDelimiters: "=:"}, []byte(paste))
	require.NoError(t, err)
	var rendered [][2]string
	for _, s := range f.Sections() {
		for _, k := range s.Keys() {
			if strings.HasPrefix(k.Name(), "paste.") && strings.HasSuffix(k.Name(), "_factory") {
				rendered = append(rendered, [2]string{k.Name(), k.String()})
			}
		}
	}
	require.Len(t, rendered, 12, "the factories of the sections rendered")
	for _, path := range lists {
		data, err := os.ReadFile(path)
		require.NoError(t, err, "every release with an option catalog has its paste factories (make catalogs)")
		var list struct {
			Release   string      `json:"release"`
			Factories [][2]string `json:"factories"`
		}
		require.NoError(t, json.Unmarshal(data, &list), path)
		require.NotEmpty(t, list.Factories, path)
		for _, r := range rendered {
			assert.Contains(t, list.Factories, r, "glance %s's paste file names %s = %s", list.Release, r[0], r[1])
		}
	}
}
