// Package schemas holds the CustomResourceDefinitions of the three kinds this
// service reconciles, as the YAML files in this directory. They are the API's
// single source of truth: schemas_test.go keeps them and the Go types in
// hooks/contract/api in step, and the integration tests apply them to a real
// kube-apiserver and exercise every CEL rule.
package schemas

import (
	"embed"
	"io/fs"
	"sort"
)

//go:embed *.yaml
var files embed.FS

// File names of the CRDs, one kind each.
const (
	ControlPlaneFile  = "controlplanes.c5c3.io.yaml"
	GlanceFile        = "glances.glance.openstack.c5c3.io.yaml"
	GlanceBackendFile = "glancebackends.glance.openstack.c5c3.io.yaml"
)

// Names returns the CRD file names, sorted.
func Names() []string {
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		panic(err) // the embedded directory always exists
	}
	out := make([]string, 0, len(entries))
	for _, e := range entries {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

// Read returns one CRD file's YAML.
func Read(name string) ([]byte, error) { return files.ReadFile(name) }
