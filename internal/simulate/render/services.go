package render

import (
	"fmt"
	"slices"
	"sort"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/spelling"
)

// checkServices refuses a ControlPlane whose spec.services names a service
// that does not exist. The CRD keeps every key under services (the other
// services of a ControlPlane live there), so the API server and the webhook
// only warn; a misspelt glance would then render as a ControlPlane running
// no Glance at all, and render is where such a file is checked before it
// reaches a cluster.
func checkServices(o map[string]any, r rawDoc, what string) error {
	spec, _ := o["spec"].(map[string]any)
	services, _ := spec["services"].(map[string]any)
	var names []string
	for name := range services {
		if !slices.Contains(api.KnownServices, name) {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return nil
	}
	sort.Strings(names)
	path := fieldPath{"spec", "services", names[0]}
	source := r.source
	if l := r.lineOf(path); l > 0 {
		source = fmt.Sprintf("%s:%d", r.file, l)
	}
	msg := fmt.Sprintf("%s: %s is not a known service (%v)", what, path, api.KnownServices)
	if near := spelling.Closest(names[0], api.KnownServices); near != "" {
		msg = fmt.Sprintf("%s: %s is not a known service: did you mean %s?", what, path, near)
	}
	return inputErr(source, "%s", msg)
}
