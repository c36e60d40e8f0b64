package glance

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/report"
)

// progressReasons are the reasons a condition of a Glance is False for while
// it is on its way rather than at fault: the schema Job runs, the Deployment
// is about to be created or rolls out, a store is arriving.
var progressReasons = map[string]bool{
	model.ReasonSchemaSyncRunning: true,
	model.ReasonSchemaUpgrading:   true,
	model.ReasonDeploymentMissing: true,
	model.ReasonRollingOut:        true,
	model.ReasonStorePending:      true,
	// A store waits one sync for the NetworkPolicy to allow its endpoint.
	model.ReasonWaitingForNetworkPolicy: true,
	// No pod answers before the Deployment is there and its pods start;
	// DeploymentReady says whether they are on their way or at fault.
	model.ReasonEndpointNotReady:     true,
	model.ReasonAPIUnhealthy:         true,
	model.ReasonWaitingForDeployment: true,
}

// Progressing reports whether a Glance is not ready only because it is on
// its way: every False condition besides Ready has a progress reason. A
// parent that mirrors the Glance's readiness says the same thing for every
// step of the way, so one converge does not rewrite its status once per step
// (the schema Job finishing, then the rollout).
func Progressing(conds []metav1.Condition) bool {
	waiting := false
	for _, c := range conds {
		// What Ready does not wait for is not part of the way there: an
		// override the operator chose, a purge that failed.
		if c.Type == hook.ConditionReady || !readyWaitsFor(c.Type) || c.Status == metav1.ConditionTrue {
			continue
		}
		if !progressReasons[c.Reason] {
			return false
		}
		waiting = true
	}
	return waiting
}

// readyWaitsFor reports whether Ready waits for a condition type.
func readyWaitsFor(condType string) bool {
	for _, f := range statuses {
		if f.CondType == condType {
			return f.Ready == report.HoldsReady
		}
	}
	return false
}
