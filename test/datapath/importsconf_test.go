package datapath

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/test/proc"
	"github.com/c5c3/glance-hooks/test/services"
)

// readImportOptions loads a glance-api.conf with Glance's own option
// definitions (Debian's glance and oslo.config) and prints the import
// options as Glance reads them.
const readImportOptions = `
import json, sys
from oslo_config import cfg
import glance.async_.flows._internal_plugins
import glance.async_.flows.api_image_import
import glance.async_.flows.plugins.image_conversion
import glance.async_.flows.plugins.inject_image_metadata
CONF = cfg.CONF
CONF(['--config-file', sys.argv[1]], project='glance', default_config_files=[], default_config_dirs=[])
f = CONF.import_filtering_opts
m = CONF.inject_metadata_properties
print(json.dumps({
    'allowed_schemes': f.allowed_schemes, 'disallowed_schemes': f.disallowed_schemes,
    'allowed_hosts': f.allowed_hosts, 'disallowed_hosts': f.disallowed_hosts,
    'allowed_ports': f.allowed_ports, 'disallowed_ports': f.disallowed_ports,
    'plugins': CONF.image_import_opts.image_import_plugins,
    'output_format': CONF.image_conversion.output_format,
    'inject': m.inject, 'ignore_user_roles': m.ignore_user_roles,
}))
`

// TestImportOptionsReadBack: the glance-api.conf of the fixture with every
// import block set, read by Glance's own option types, holds what the spec
// says: lists split where they should be, the URL-valued property whole.
func TestImportOptionsReadBack(t *testing.T) {
	python := services.Python
	if _, err := os.Stat("/usr/lib/python3/dist-packages/glance"); err != nil {
		proc.Missing(t, "Debian's glance (package python3-glance)", "hack/install-glance.sh installs it")
	}
	raw, err := os.ReadFile(filepath.Join("..", "fixtures", "sync-glance", "import-plugins-and-filter", "response.json"))
	require.NoError(t, err)
	var resp struct {
		Body struct {
			Children []struct {
				Kind string            `json:"kind"`
				Data map[string]string `json:"data"`
			} `json:"children"`
		} `json:"body"`
	}
	require.NoError(t, json.Unmarshal(raw, &resp))
	conf := ""
	for _, c := range resp.Body.Children {
		if c.Kind == "ConfigMap" && c.Data["glance-api.conf"] != "" {
			conf = c.Data["glance-api.conf"]
		}
	}
	require.NotEmpty(t, conf, "the fixture renders a glance-api.conf")
	dir := t.TempDir()
	file := filepath.Join(dir, "glance-api.conf")
	require.NoError(t, os.WriteFile(file, []byte(conf), 0o600))
	out, err := proc.Run(time.Minute, proc.Options{Argv: []string{python, "-c", readImportOptions, file}, Dir: dir, Log: filepath.Join(dir, "read.log")})
	require.NoError(t, err, "%s", out)
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(lastLine(out)), &got), "%s", out)
	want := map[string]any{
		"allowed_schemes": []any{"https"}, "disallowed_schemes": []any{},
		"allowed_hosts": []any{"images.example.com", "10.20.0.5"}, "disallowed_hosts": []any{},
		"allowed_ports": []any{443.0, 8443.0}, "disallowed_ports": []any{},
		"plugins":           []any{"image_decompression", "image_conversion", "inject_image_metadata"},
		"output_format":     "qcow2",
		"inject":            map[string]any{"provenance": "https://images.example.com:8443/catalog", "hw_disk_bus": "scsi"},
		"ignore_user_roles": []any{"admin", "image-publisher"},
	}
	assert.Equal(t, want, got)
}

// lastLine is the last non-empty line of a program's output.
func lastLine(out string) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return lines[len(lines)-1]
}
