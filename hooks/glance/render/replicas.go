package render

import (
	appsv1 "k8s.io/api/apps/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
)

// DesiredReplicas is the Deployment's spec.replicas. Without an autoscaler
// it is the spec's. With one, the autoscaler owns the number, and the hook
// returns what it observes: Metacontroller's InPlace apply removes a field
// that was in the last-applied record but is no longer desired, so simply
// leaving replicas out after a Glance switched to autoscaling would have the
// API server default it to 1 and scale the pods down once; returning the
// observed number keeps it in the record and changes nothing. Before there
// is a Deployment, the autoscaler's minimum.
func DesiredReplicas(spec api.GlanceSpec, current *appsv1.Deployment) *int32 {
	a := spec.Autoscaling
	if a == nil {
		return spec.Deployment.Replicas
	}
	if current != nil && current.Spec.Replicas != nil {
		n := *current.Spec.Replicas
		return &n
	}
	n := *a.MinReplicas
	return &n
}
