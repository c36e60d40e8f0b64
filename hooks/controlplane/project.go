package controlplane

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/contract/release"
)

// project builds the desired children from a spec ValidateBackends has
// nothing to say about.
func project(cp *api.ControlPlane) []any {
	svc := cp.Spec.Services.Glance
	glanceName := names.GlanceName(cp.Name)
	labels := map[string]string{names.LabelControlPlane: cp.Name, names.LabelManagedBy: names.ManagedBy}
	children := []any{&api.Glance{
		TypeMeta:   metav1.TypeMeta{APIVersion: api.GlanceAPIVersion, Kind: api.KindGlance},
		ObjectMeta: metav1.ObjectMeta{Name: glanceName, Namespace: cp.Namespace, Labels: labels},
		Spec:       GlanceSpec(cp),
	}}
	for _, e := range svc.Backends {
		children = append(children, &api.GlanceBackend{
			TypeMeta:   metav1.TypeMeta{APIVersion: api.GlanceAPIVersion, Kind: api.KindGlanceBackend},
			ObjectMeta: metav1.ObjectMeta{Name: names.BackendName(cp.Name, e.Name), Namespace: cp.Namespace, Labels: labels},
			Spec:       backendSpec(glanceName, e),
		})
	}
	return children
}

// backendSpec is the spec of the GlanceBackend projected from one entry:
// the entry name is its store id, and the entry's s3.endpoint its s3.host.
func backendSpec(glance string, e api.BackendEntry) api.GlanceBackendSpec {
	spec := api.GlanceBackendSpec{
		GlanceRef:    api.LocalObjectReference{Name: glance},
		Type:         e.Type,
		IsDefault:    e.IsDefault,
		StoreID:      e.Name,
		ExtraOptions: e.ExtraOptions,
	}
	if e.S3 != nil {
		spec.S3 = &api.S3Store{Host: e.S3.Endpoint, S3Options: e.S3.S3Options}
	}
	return spec
}

// GlanceSpec is the projected Glance's spec: every field explicit, so the
// child says exactly what it runs and a default changed later in this service
// shows up as a diff on the child. Admission checks it the way it checks a
// hand-made Glance's. services.glance gives every field it shares with a
// Glance's spec (api.GlanceService.SharedSpec, found from the types); the
// ControlPlane gives the rest, and folds its own knobs in.
func GlanceSpec(cp *api.ControlPlane) api.GlanceSpec {
	spec := writtenGlanceSpec(cp).WithDefaults(cp.Namespace)
	if mode := cp.Spec.Services.Glance.DatabaseCredentialsMode; mode != "" {
		spec.Database.CredentialsMode = mode
	}
	// Only the launch mode the release runs is spelled out: the other's
	// knob is inert, and admission would warn of it on every update.
	if rel, err := release.Parse(spec.OpenStackRelease); err == nil {
		if rel.Before(release.UWSGIFrom) {
			spec.APIServer.UWSGI = nil
		} else {
			spec.APIServer.Workers = nil
		}
	}
	return spec
}

// writtenGlanceSpec is the projected Glance's spec before its defaults:
// what the ControlPlane writes of it. The spec parts' rules on a spec as
// written (api.SpecPart.WrittenRules) judge this, as they judge a
// hand-made Glance's spec as written.
func writtenGlanceSpec(cp *api.ControlPlane) api.GlanceSpec {
	svc := cp.Spec.Services.Glance
	spec := svc.SharedSpec()
	spec.OpenStackRelease = cp.Spec.OpenStackRelease
	spec.Region = cp.Spec.Region
	spec.SecretStoreRef = cp.Spec.SecretStoreRef
	spec.Deployment = projectedDeployment(svc)
	spec.ExtraConfig = mergedExtraConfig(cp.Spec.GlobalExtraConfig, svc.ExtraConfig)
	spec.Database = projectedDatabase(cp)
	if spec.Cache == nil {
		spec.Cache = cp.Spec.Infrastructure.SharedCache()
	}
	return spec
}

// projectedDatabase is services.glance's database block, else the one
// the reference derives from spec.infrastructure.database, with the
// reference's services.glance.databaseCredentialsMode folded in as its
// credentialsMode (admission refuses a ControlPlane that sets both). With
// neither block there is none to fold it into yet: GlanceSpec folds it
// into the conventional database the defaults name.
func projectedDatabase(cp *api.ControlPlane) *api.DatabaseSpec {
	svc := cp.Spec.Services.Glance
	db := svc.Database
	if db == nil {
		db = cp.Spec.Infrastructure.SharedDatabase(names.GlanceName(cp.Name))
	}
	if svc.DatabaseCredentialsMode == "" || db == nil {
		return db
	}
	d := *db
	d.CredentialsMode = svc.DatabaseCredentialsMode
	return &d
}

// projectedDeployment is services.glance's deployment block with its
// replicas, the reference's services.glance.replicas, folded in (admission
// refuses a ControlPlane that sets both).
func projectedDeployment(svc *api.GlanceService) *api.DeploymentSpec {
	if svc.Replicas == nil {
		return svc.Deployment
	}
	d := api.DeploymentSpec{}
	if svc.Deployment != nil {
		d = *svc.Deployment
	}
	d.Replicas = svc.Replicas
	return &d
}

// mergedExtraConfig is the service's extraConfig over the ControlPlane's
// globalExtraConfig, key by key; nil when both are empty.
func mergedExtraConfig(global, own map[string]map[string]string) map[string]map[string]string {
	if len(global) == 0 && len(own) == 0 {
		return nil
	}
	out := map[string]map[string]string{}
	for _, layer := range []map[string]map[string]string{global, own} {
		for section, keys := range layer {
			if out[section] == nil {
				out[section] = map[string]string{}
			}
			for k, v := range keys {
				out[section][k] = v
			}
		}
	}
	return out
}
