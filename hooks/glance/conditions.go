package glance

import "github.com/c5c3/glance-hooks/hooks/glance/model"

// The condition types, reasons and Event reasons of a Glance that other
// packages read, under the names they always had here; each is defined
// once, with the others, in model/conditions.go, below every stage.
const (
	CondDatabaseReady           = model.CondDatabaseReady
	CondDeploymentReady         = model.CondDeploymentReady
	CondExtraConfigHealthy      = model.CondExtraConfigHealthy
	CondGlanceAPIReady          = model.CondGlanceAPIReady
	CondSecretsReady            = model.CondSecretsReady
	CondStoresReachable         = model.CondStoresReachable
	ReasonBackendSkipped        = model.ReasonBackendSkipped
	ReasonNoOwnedKeysOverridden = model.ReasonNoOwnedKeysOverridden
	ReasonPodsCrashLooping      = model.ReasonPodsCrashLooping
	ReasonPodsFailed            = model.ReasonPodsFailed
	ReasonPodsNotReady          = model.ReasonPodsNotReady
	ReasonPodsNotStarting       = model.ReasonPodsNotStarting
	ReasonPodsUnschedulable     = model.ReasonPodsUnschedulable
	ReasonWaitingForDeployment  = model.ReasonWaitingForDeployment
	ReasonSecretStoreNotReady   = model.ReasonSecretStoreNotReady
	ReasonStorePending          = model.ReasonStorePending
)
