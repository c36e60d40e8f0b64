// Package controlplane projects ControlPlane.spec.services.glance into a
// Glance and one GlanceBackend per backends[] entry.
package controlplane

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/glancestatus"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/contract/problem"
	"github.com/c5c3/glance-hooks/hooks/contract/release"
)

// Hook is the ControlPlane's sync (and finalize) hook with what it needs
// besides the request.
type Hook struct {
	// JobImage runs the registration Jobs: the image of glance-hooks
	// itself, whose `keystone` command parses the args this hook renders.
	JobImage string
}

// Sync answers /sync/controlplane, and Metacontroller's finalize calls of
// the same path (req.Finalizing). Children are returned whole every time,
// so Metacontroller reverts hand edits and deletes the child of a removed
// entry.
func (h Hook) Sync(req *metacontroller.SyncRequest, now time.Time) (*metacontroller.SyncResponse, error) {
	var cp api.ControlPlane
	if err := hook.DecodeParent(req.Parent, api.ControlPlaneAPIVersion, api.KindControlPlane, &cp); err != nil {
		return nil, err
	}
	observedGlance, glanceFound, err := metacontroller.DecodeOne[api.Glance](req.Children, names.GlancesKey, names.GlanceName(cp.Name))
	if err != nil {
		return nil, hook.Invalid("observed child: %v", err)
	}

	svc := cp.Spec.Services.Glance
	if svc == nil {
		return unmanaged(&cp, req, now)
	}

	var children []any
	projected := hook.Condition{Type: CondGlanceProjected, Status: true, Reason: ReasonProjected}
	if refused := refusal(&cp, req.Parent); refused != nil {
		// Not projected half-way: keep what was projected before, as it was.
		kept, err := req.Children.KeepAsLastApplied(names.GlancesKey, names.GlanceBackendsKey)
		if err != nil {
			return nil, hook.Invalid("%v", err)
		}
		children = kept
		projected = *refused
	} else {
		children = project(&cp)
		projected.Message = fmt.Sprintf("projected Glance %q and %s", names.GlanceName(cp.Name), hook.Plural(len(svc.Backends), "GlanceBackend", "GlanceBackends"))
	}

	ready := glanceReady(cp.Name, observedGlance, glanceFound && allObserved(children, req.Children))
	ks, err := h.keystone(&cp, req)
	if err != nil {
		return nil, err
	}
	children = append(children, ks.children...)
	all := hook.Ready("the Glance is projected, ready and registered in Keystone", projected, ready, ks.condition)
	return &metacontroller.SyncResponse{
		Status: api.ControlPlaneStatus{Conditions: hook.Conditions(cp.Status.Conditions, cp.Generation, now, projected, ready, ks.condition, all),
			Services: []api.ServiceStatus{{Name: api.GlanceServiceKey, Ready: ready.Status, Release: cp.Spec.Release()}}},
		Children:  children,
		Finalized: ks.finalized,
	}, nil
}

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

// allObserved reports whether every Glance and GlanceBackend the answer
// projects is among the observed children. One it creates now puts the
// Glance on its way (a new store re-renders its config), so the answer
// that creates it already says what the syncs until Ready say.
func allObserved(children []any, observed metacontroller.ObjectMap) bool {
	for _, child := range children {
		key, name := "", ""
		switch o := child.(type) {
		case *api.Glance:
			key, name = names.GlancesKey, o.Name
		case *api.GlanceBackend:
			key, name = names.GlanceBackendsKey, o.Name
		default:
			continue
		}
		if _, ok := observed.Get(key, name); !ok {
			return false
		}
	}
	return true
}

// glanceReady mirrors the projected Glance's Ready condition. From the
// answer that asks for the Glance (or a new GlanceBackend: found is false
// then) until its Ready turns True, a Glance on its way (not created yet,
// no status for its generation yet, or only progress among its False
// conditions) gets one reason and one message:
// its own status tells each step, and this one is written once for them
// all (docs/performance.md, "API writes per converge").
func glanceReady(cp string, g api.Glance, found bool) hook.Condition {
	name := names.GlanceName(cp)
	c := hook.Condition{Type: CondGlanceReady, Reason: ReasonWaitingForGlance,
		Message: fmt.Sprintf("Glance %q is on its way: its schema, stores or rollout are in progress", name)}
	if !found || g.Status.ObservedGeneration < g.Generation {
		return c
	}
	r, ok := hook.FindCondition(g.Status.Conditions, hook.ConditionReady)
	switch {
	case !ok || glancestatus.Progressing(g.Status.Conditions):
	case r.Status == metav1.ConditionTrue:
		c.Status, c.Reason, c.Message = true, ReasonGlanceReady, fmt.Sprintf("Glance %q is ready", name)
	default:
		c.Reason = ReasonGlanceNotReady
		c.Message = fmt.Sprintf("Glance %q is not ready: %s: %s", name, r.Reason, r.Message)
	}
	return c
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

// refusal is GlanceProjected when the ControlPlane breaks a rule admission
// has too (Problems), nil when it does not: InvalidBackends, in the guide's
// words, when only backends[] is wrong, else InvalidSpec.
func refusal(cp *api.ControlPlane, raw []byte) *hook.Condition {
	if problems := ValidateBackends(cp.Name, cp.Spec.Services.Glance.Backends); len(problems) > 0 {
		return &hook.Condition{Type: CondGlanceProjected, Reason: ReasonInvalidBackends,
			Message: "spec.services.glance.backends is invalid, keeping the previously projected children: " + problem.Wrap(glanceServicePath, problems).String()}
	}
	if problems, _ := Problems(cp, raw); len(problems) > 0 {
		return &hook.Condition{Type: CondGlanceProjected, Reason: ReasonInvalidSpec,
			Message: "the ControlPlane spec is invalid, keeping the previously projected children: " + problems.String()}
	}
	return nil
}
