package chain

import (
	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/controlplane"
	"github.com/c5c3/glance-hooks/hooks/glance"
	"github.com/c5c3/glance-hooks/hooks/glancebackend"
	"github.com/c5c3/glance-hooks/internal/buildinfo"
)

// Controllers are this service's three CompositeControllers, in the order a
// change flows down: ControlPlane, then GlanceBackends, then Glances. The
// ControlPlane's registration Jobs run this build's release image.
func Controllers() []Controller { return ControllersWith(buildinfo.Get().Image()) }

// ControllersWith are Controllers, the registration Jobs running jobImage.
func ControllersWith(jobImage string) []Controller {
	glanceType := Type{api.GlanceAPIVersion, api.KindGlance}
	backendType := Type{api.GlanceAPIVersion, api.KindGlanceBackend}
	// An Event is never updated: the hook names each one by what it says.
	eventType := Type{names.EventAPIVersion, "Event"}
	return []Controller{
		{
			Name:      "controlplane-glance",
			Parent:    Type{api.ControlPlaneAPIVersion, api.KindControlPlane},
			Children:  []Type{glanceType, backendType, {"v1", "ServiceAccount"}, {"batch/v1", "Job"}},
			Customize: controlplane.Customize,
			Sync:      controlplane.Hook{JobImage: jobImage}.Sync,
			Finalizes: true,
		},
		{
			Name:      "glancebackend",
			Parent:    backendType,
			Children:  []Type{{"v1", "Secret"}},
			Customize: glancebackend.Customize,
			Sync:      glancebackend.Sync,
		},
		{
			Name:   "glance",
			Parent: glanceType,
			Children: []Type{{"v1", "ConfigMap"}, {"v1", "Secret"}, {"apps/v1", "Deployment"}, {"v1", "Service"}, {"batch/v1", "Job"},
				{"policy/v1", "PodDisruptionBudget"}, {"autoscaling/v2", "HorizontalPodAutoscaler"}, eventType,
				{names.HTTPRouteAPIVersion, "HTTPRoute"}, {names.NetworkPolicyAPIVersion, "NetworkPolicy"}, {"batch/v1", "CronJob"}},
			OnDelete:  []Type{eventType},
			Optional:  []Type{{names.HTTPRouteAPIVersion, "HTTPRoute"}},
			Customize: glance.Customize,
			Sync:      glance.Sync,
		},
	}
}
