// Package glancestatus is what a Glance's status tells the objects that
// read it rather than write it: which of its conditions its Ready does not
// wait for, and which reasons mean it is on its way rather than at fault.
// The Glance hook writes these words (its conditions.go names them from
// here) and the ControlPlane hook reads them to mirror the Glance's
// readiness, so both stand on this package and neither imports the other.
package glancestatus

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/hook"
)

// Conditions a Glance reports beside its Ready: a False one does not stop
// glance-api from serving the current config (an override the operator
// chose, a purge that stopped, a store that does not answer while the
// others take uploads).
const (
	CondExtraConfigHealthy = "ExtraConfigHealthy"
	CondDBPurgeReady       = "DBPurgeReady"
	CondStoresReachable    = "StoresReachable"
)

// besideReady are the condition types a Glance's Ready does not wait for;
// Ready waits for every other one.
var besideReady = map[string]bool{
	CondExtraConfigHealthy: true,
	CondDBPurgeReady:       true,
	CondStoresReachable:    true,
}

// BesideReady reports whether a Glance's Ready leaves condition type
// condType out (hooks/glance's registry says the same of each condition it
// reports, by a test there).
func BesideReady(condType string) bool { return besideReady[condType] }

// Reasons a condition of a Glance is False for while it is on its way; the
// schema's and the Deployment's are the reference's.
const (
	// The schema Job runs: a db sync, or a step of a release upgrade (the
	// expand, migrate or contract Job, or the rollout between the last
	// two).
	ReasonDBSyncInProgress     = "DBSyncInProgress"
	ReasonExpandInProgress     = "ExpandInProgress"
	ReasonMigrateInProgress    = "MigrateInProgress"
	ReasonUpgradeRollingUpdate = "UpgradeRollingUpdate"
	ReasonContractInProgress   = "ContractInProgress"
	// The Deployment is about to be created.
	ReasonDeploymentMissing = "DeploymentMissing"
	// ReasonWaitingForDeployment: the Deployment rolls out and is not
	// available yet (DeploymentReady), or the autoscaler waits for the
	// Deployment it scales, which waits for the schema (HPAReady).
	ReasonWaitingForDeployment = "WaitingForDeployment"
	// ReasonStorePending marks a store on its way: its backend has not
	// reported yet, or its store Secret is not there yet. Not a fault.
	ReasonStorePending = "StorePending"
	// ReasonWaitingForNetworkPolicy: the observed policy does not allow
	// every derived endpoint yet; the stores it does not allow wait one
	// sync for it.
	ReasonWaitingForNetworkPolicy = "WaitingForNetworkPolicy"
	// No pod answers before the Deployment is there and its pods start;
	// DeploymentReady says whether they are on their way or at fault.
	ReasonEndpointNotReady = "EndpointNotReady"
	ReasonAPIUnhealthy     = "APIUnhealthy"
)

// progressReasons are the reasons above, as a set.
var progressReasons = map[string]bool{
	ReasonDBSyncInProgress:     true,
	ReasonExpandInProgress:     true,
	ReasonMigrateInProgress:    true,
	ReasonUpgradeRollingUpdate: true,
	ReasonContractInProgress:   true,
	// An upgrade's step as an earlier release wrote it, whatever the
	// step: one reason for all four.
	"SchemaUpgrading":             true,
	ReasonDeploymentMissing:       true,
	ReasonWaitingForDeployment:    true,
	ReasonStorePending:            true,
	ReasonWaitingForNetworkPolicy: true,
	ReasonEndpointNotReady:        true,
	ReasonAPIUnhealthy:            true,
}

// renamed are the reasons an earlier release of these hooks wrote where
// the reference's words are written now, by their new name. A status
// written before an upgrade is read in its words until the Glance's next
// sync writes it again.
var renamed = map[string]string{
	"SchemaSynced":        "DatabaseSynced",
	"SchemaSyncRunning":   ReasonDBSyncInProgress,
	"SchemaSyncFailed":    "DBSyncFailed",
	"DeploymentAvailable": "DeploymentReady",
	"RollingOut":          ReasonWaitingForDeployment,
	"WaitingForConfig":    "WaitingForBackends",
}

// CurrentReason is reason in this release's words: a reason an earlier
// release wrote is given its new name, any other is returned as it is.
func CurrentReason(reason string) string {
	if now, ok := renamed[reason]; ok {
		return now
	}
	return reason
}

// Progressing reports whether a Glance is not ready only because it is on
// its way: every False condition its Ready waits for has a progress reason.
// A parent that mirrors the Glance's readiness says the same thing for
// every step of the way, so one converge does not rewrite its status once
// per step (the schema Job finishing, then the rollout).
func Progressing(conds []metav1.Condition) bool {
	waiting := false
	for _, c := range conds {
		// What Ready does not wait for is not part of the way there.
		if c.Type == hook.ConditionReady || BesideReady(c.Type) || c.Status == metav1.ConditionTrue {
			continue
		}
		if !progressReasons[CurrentReason(c.Reason)] {
			return false
		}
		waiting = true
	}
	return waiting
}
