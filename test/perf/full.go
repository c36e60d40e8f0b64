package perf

import (
	"encoding/json"
	"errors"
	"fmt"

	"sigs.k8s.io/yaml"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/controlplane"
	"github.com/c5c3/glance-hooks/test/guide"
)

// FullCase names the requests of GlanceFull(n).
func FullCase(n int) string { return fmt.Sprintf("full-%d", n) }

// fullGlanceName is the guide's projected Glance.
const fullGlanceName = "controlplane-glance"

// withEveryOptionalFeature turns on, in the guide's ControlPlane, each
// feature whose children or files are optional: the image cache, a gateway
// route, a NetworkPolicy and extraConfig. The purge and the policy file are
// not projected from a ControlPlane; fullGlanceSpec sets them on the Glance.
func withEveryOptionalFeature(svc map[string]any) {
	svc["imageCache"] = map[string]any{"sizeLimit": "20Gi", "maintenanceInterval": "10m"}
	svc["gateway"] = map[string]any{"hostname": "images.example.com",
		"parentRef": map[string]any{"name": "edge", "namespace": "gateways", "sectionName": "https"}}
	svc["networkPolicy"] = map[string]any{"ingress": []any{map[string]any{
		"namespaceSelector": map[string]any{"matchLabels": map[string]any{"kubernetes.io/metadata.name": "gateways"}}}}}
	svc["extraConfig"] = map[string]any{"DEFAULT": map[string]any{"allow_anonymous_access": "false"}}
}

// fullGlanceSpec is the spec the guide's ControlPlane, every optional
// feature on, projects into its Glance (controlplane.GlanceSpec: every field
// explicit), with a purge other than the default and policy overrides.
func fullGlanceSpec() (map[string]any, error) {
	var cp map[string]any
	if err := yaml.Unmarshal([]byte(guide.ControlPlane), &cp); err != nil {
		return nil, err
	}
	withEveryOptionalFeature(cp["spec"].(map[string]any)["services"].(map[string]any)["glance"].(map[string]any))
	raw, err := json.Marshal(cp)
	if err != nil {
		return nil, err
	}
	var typed api.ControlPlane
	if err := json.Unmarshal(raw, &typed); err != nil {
		return nil, err
	}
	spec := controlplane.GlanceSpec(&typed)
	spec.DBPurge = &api.DBPurgeSpec{RetentionDays: ptr(int32(14)), Schedule: "30 3 * * *"}
	spec.PolicyOverrides = &api.PolicySpec{Rules: map[string]string{"delete_image": "role:admin"}}
	if raw, err = json.Marshal(spec); err != nil {
		return nil, err
	}
	var out map[string]any
	return out, json.Unmarshal(raw, &out)
}

func ptr[T any](v T) *T { return &v }

// GlanceFull is the world a cluster holds for the guide's ControlPlane
// with every optional feature on (fullGlanceSpec) and n GlanceBackends
// attached to its Glance, every Secret the Glance names present: its
// converged /sync/glance and /customize/glance requests. A ControlPlane
// holds at most api.MaxBackendEntries entries, so the backends are
// attached by glanceRef, as hand-made ones are (the guide's Step 4).
func GlanceFull(n int) ([]Request, error) {
	spec, err := fullGlanceSpec()
	if err != nil {
		return nil, err
	}
	out, err := glanceWorldNamed(fullGlanceName, n, spec, FullCase(n), 2)
	if err != nil {
		return nil, err
	}
	// The request must carry what the features render, or it measures a
	// Glance without them.
	var req metacontroller.SyncRequest
	if err := json.Unmarshal(out[0].Body, &req); err != nil {
		return nil, err
	}
	for _, want := range []struct{ key, name string }{
		{names.CronJobsKey, names.DBPurgeCronJobName(fullGlanceName)},
		{names.HTTPRoutesKey, fullGlanceName},
		{names.NetworkPoliciesKey, fullGlanceName},
		{names.DeploymentsKey, fullGlanceName},
	} {
		if _, ok := req.Children.Get(want.key, want.name); !ok {
			return nil, fmt.Errorf("the converged full Glance has no %s %s", want.key, want.name)
		}
	}
	if len(req.Children[names.ConfigMapsKey]) == 0 {
		return nil, errors.New("the converged full Glance has no config ConfigMap")
	}
	return out, nil
}
