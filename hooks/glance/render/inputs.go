package render

import (
	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/glance/decide"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
)

// PodInput is what the pod features read: the Glance, its spec with
// defaults, every store the config renders and the process-wide CA bundle.
type PodInput struct {
	Glance        *api.Glance
	Spec          api.GlanceSpec
	Stores        []*model.Store
	ProcessWideCA string
}

// DeploymentInput is what the children that come with the Deployment
// read: the Glance, its spec with defaults, what glance-api runs and what
// its pods mount.
type DeploymentInput struct {
	Glance *api.Glance
	Spec   api.GlanceSpec
	Run    decide.RunTarget
	Pod    PodInputs
}
