package render

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
)

// Parts are what the render stage runs of the features, in their order:
// the hook gathers them once from its list of features, so render never
// reads that list.
type Parts struct {
	// Files are the contributions to the config's files.
	Files FileParts
	// EveryPod changes every pod template, APIPod glance-api's, JobPod
	// every glance-manage Job's.
	EveryPod []func(*corev1.PodSpec, api.GlanceSpec)
	APIPod   []func(PodInput, *DeploymentChild)
	JobPod   []func(*corev1.PodSpec, api.GlanceSpec)
	// WithDeployment are the children that come with the Deployment.
	WithDeployment []func(DeploymentInput) []any
	// LastGood are the kinds of children kept as last applied when
	// nothing is re-rendered.
	LastGood []string
}

// childrenWithDeployment are the features' children that come with the
// Deployment, in the features' order.
func childrenWithDeployment(p Parts, in DeploymentInput) []any {
	var out []any
	for _, with := range p.WithDeployment {
		out = append(out, with(in)...)
	}
	return out
}

// mountAPIPod runs the features' changes to the glance-api pod template.
func mountAPIPod(p Parts, in PodInput, d *DeploymentChild) {
	for _, change := range p.APIPod {
		change(in, d)
	}
}
