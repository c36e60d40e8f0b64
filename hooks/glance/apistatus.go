package glance

import (
	"fmt"

	"github.com/c5c3/glance-hooks/hooks/contract/excerpt"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/report"
)

// GlanceAPIReady is the reference's word for "glance-api answers". The
// reference dials GET /healthcheck itself; these hooks dial nothing (a sync
// is a function of its request), and every glance-api pod's readiness probe
// is that same GET (deployment.go). So the pods the Deployment counts
// available are the ones whose /healthcheck answered, and the Service sends
// requests to them only.

// glanceAPIReady is GlanceAPIReady from the observed Deployment: True while
// at least one pod passes its readiness probe. It says one thing from the
// answer that creates the Deployment until a pod is available, as
// DeploymentReady does, and its messages name no count, so a rollout does
// not rewrite the status once more for it; DeploymentReady counts.
func glanceAPIReady(in report.StatusInput) (hook.Condition, error) {
	g, d := in.Observed.Glance, in.Observed.Deployment
	c := hook.Condition{Type: model.CondGlanceAPIReady}
	switch {
	case d == nil && in.Out.RunImage == "":
		c.Reason = model.ReasonEndpointNotReady
		c.Message = "no glance-api pod answers yet: the Deployment is created once the schema is in place"
	case d == nil || d.Status.AvailableReplicas < 1:
		c.Reason = model.ReasonAPIUnhealthy
		c.Message = fmt.Sprintf("no pod of Deployment %s passes its readiness probe (GET /healthcheck); DeploymentReady says why",
			excerpt.Name(g.Name))
	default:
		c.Status, c.Reason = true, model.ReasonAPIHealthy
		c.Message = fmt.Sprintf("the pods of Deployment %s answer GET /healthcheck (their readiness probe) behind %s",
			excerpt.Name(g.Name), report.ServiceEndpoint(g))
	}
	return c, nil
}
