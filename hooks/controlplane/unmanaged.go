package controlplane

import (
	"fmt"
	"strconv"
	"time"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
)

// A ControlPlane without spec.services.glance runs no Glance, as the
// reference's does: its GlanceReady condition says so, True, so Ready is
// not held by a service it does not run, and removing the block does not
// delete the Glance it projected unless the ControlPlane says so.
const (
	// AnnotationAllowGlanceDeletion, true (as strconv.ParseBool reads it)
	// on a ControlPlane without spec.services.glance, lets the sync delete
	// the Glance and GlanceBackends it projected, and the registration's
	// ServiceAccount and Job. The reference's name.
	AnnotationAllowGlanceDeletion = "c5c3.io/allow-glance-deletion"
	// notManaged is GlanceReady's message then, in the reference's words.
	notManaged = "spec.services.glance is unset; no Glance image service is managed by this ControlPlane"
)

// unmanaged answers for a ControlPlane without spec.services.glance. What
// it projected before stays as it was last applied: a block removed by
// mistake, or by a tool that rewrites the ControlPlane, must not take a
// running image service and its images' availability down with it.
// Deleting them is asked for with AnnotationAllowGlanceDeletion.
func unmanaged(cp *api.ControlPlane, req *metacontroller.SyncRequest, now time.Time) (*metacontroller.SyncResponse, error) {
	children, message := []any{}, notManaged
	if allowed, err := strconv.ParseBool(cp.Annotations[AnnotationAllowGlanceDeletion]); err != nil || !allowed {
		kept, err := req.Children.KeepAsLastApplied(names.GlancesKey, names.GlanceBackendsKey, names.ServiceAccountsKey, names.JobsKey)
		if err != nil {
			return nil, hook.Invalid("%v", err)
		}
		children = kept
		message += fmt.Sprintf("; any previously-projected Glance child is preserved (set annotation %s=true to allow deletion)", AnnotationAllowGlanceDeletion)
	}
	glance := hook.Condition{Type: CondGlanceReady, Status: true, Reason: ReasonGlanceNotManaged, Message: message}
	return &metacontroller.SyncResponse{
		Status: api.ControlPlaneStatus{Conditions: hook.Conditions(cp.Status.Conditions, cp.Generation, now,
			glance, hook.Ready("no Glance is managed by this ControlPlane", glance))},
		Children:  children,
		Finalized: req.Finalizing,
	}, nil
}
