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
)

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
