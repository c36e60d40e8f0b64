// Package model holds what every stage of the Glance hook shares, below
// them all: the condition types and reasons the hook reports, and the
// values that travel from one stage to the next.
package model

import (
	"errors"
	"fmt"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/glancestatus"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
)

// Every condition type and reason the Glance hook reports, each defined
// once: a reader looking for what a status can say finds it here, and the
// status is built from the plan by the report stage.

// Conditions of a Glance.
const (
	CondBackendsReady   = "BackendsReady"
	CondConfigRendered  = "ConfigRendered"
	CondDeploymentReady = "DeploymentReady"

	ReasonAllBackendsProjected = "AllBackendsProjected"
	ReasonWaitingForBackends   = "WaitingForBackends"
	ReasonNoDefaultBackend     = "NoDefaultBackend"
	ReasonRendered             = "Rendered"
	ReasonLastGoodKept         = "LastGoodKept"
	ReasonNotRendered          = "NotRendered"
	ReasonInvalidSpec          = hook.ReasonInvalidSpec
	ReasonDeploymentReady      = "DeploymentReady"
	ReasonDeploymentMissing    = glancestatus.ReasonDeploymentMissing
	ReasonWaitingForDeployment = glancestatus.ReasonWaitingForDeployment
	// ReasonNotInRunningConfig marks a usable store left out because the
	// config is not re-rendered while there is no valid default.
	ReasonNotInRunningConfig = "NotInRunningConfig"
	// ReasonStorePending marks a store on its way: its backend has not
	// reported yet, or its store Secret is not there yet. Not a fault.
	ReasonStorePending = glancestatus.ReasonStorePending
)

// Conditions and reasons of the credentials a Glance reads.
const (
	CondDatabaseReady    = "DatabaseReady"
	CondServiceUserReady = "ServiceUserReady"

	ReasonWaitingForDBCredentials = "WaitingForDBCredentials"
	ReasonCredentialsAvailable    = "CredentialsAvailable"
	ReasonWaitingForCredentials   = "WaitingForCredentials"
)

// Reasons of the DatabaseReady condition besides WaitingForDBCredentials.
const (
	ReasonDatabaseSynced        = "DatabaseSynced"
	ReasonDBSyncInProgress      = glancestatus.ReasonDBSyncInProgress
	ReasonDBSyncFailed          = "DBSyncFailed"
	ReasonImageReleaseMismatch  = "ImageReleaseMismatch"
	ReasonDowngradeNotSupported = "DowngradeNotSupported"
	ReasonUpgradePathInvalid    = "UpgradePathInvalid"
	ReasonUpgradeTargetChanged  = "UpgradeTargetChanged"
)

// The reasons of DatabaseReady during a release upgrade, the reference's:
// each step's Job runs, or failed; status.upgrade.phase names the step too.
const (
	ReasonExpandInProgress     = glancestatus.ReasonExpandInProgress
	ReasonMigrateInProgress    = glancestatus.ReasonMigrateInProgress
	ReasonUpgradeRollingUpdate = glancestatus.ReasonUpgradeRollingUpdate
	ReasonContractInProgress   = glancestatus.ReasonContractInProgress
	ReasonExpandFailed         = "ExpandFailed"
	ReasonMigrateFailed        = "MigrateFailed"
	ReasonContractFailed       = "ContractFailed"
)

// upgradeSteps are the reasons of each phase of an upgrade: its step in
// progress, and failed (the rollout between migrate and contract runs no
// Job that could fail).
var upgradeSteps = map[string]struct{ running, failed string }{
	api.PhaseExpanding:     {ReasonExpandInProgress, ReasonExpandFailed},
	api.PhaseMigrating:     {ReasonMigrateInProgress, ReasonMigrateFailed},
	api.PhaseRollingUpdate: {ReasonUpgradeRollingUpdate, ""},
	api.PhaseContracting:   {ReasonContractInProgress, ReasonContractFailed},
}

// UpgradeRunning is DatabaseReady's reason while phase runs.
func UpgradeRunning(phase string) string { return upgradeSteps[phase].running }

// UpgradeFailedIn is DatabaseReady's reason once phase's Job failed.
func UpgradeFailedIn(phase string) string { return upgradeSteps[phase].failed }

// UpgradeStepRunning reports whether reason is an upgrade's step in
// progress.
func UpgradeStepRunning(reason string) bool { return stepRunning[reason] }

// UpgradeStepFailed reports whether reason is an upgrade's step failed.
func UpgradeStepFailed(reason string) bool { return stepFailed[reason] }

// stepRunning and stepFailed are the reasons of upgradeSteps, as sets (the
// rollout's phase has no failed reason, so "" is none).
var stepRunning, stepFailed = stepReasons()

func stepReasons() (running, failed map[string]bool) {
	running, failed = map[string]bool{}, map[string]bool{}
	for _, s := range upgradeSteps {
		running[s.running] = true
		if s.failed != "" {
			failed[s.failed] = true
		}
	}
	return running, failed
}

// ReasonBackendSkipped marks an attached backend left out of the config; the
// guide calls the event of the same name GlanceBackendSkipped.
const ReasonBackendSkipped = "GlanceBackendSkipped"

// ReasonDefaultSetByControlPlane marks a hand-made backend on a
// ControlPlane's Glance whose isDefault is ignored.
const ReasonDefaultSetByControlPlane = "DefaultSetByControlPlane"

// ReasonStoreOutdated marks a store whose running section is kept while its
// store Secret catches up with a spec change.
const ReasonStoreOutdated = "StoreSecretOutdated"

// ReasonStoreRetiring marks a store whose backend is gone (a removed
// backends[] entry, a deleted GlanceBackend) while its section stays in the
// config: images in it stay readable until the store is dropped.
const ReasonStoreRetiring = "StoreRetiring"

// ReasonCABundleConflict marks, in status.backends[], a store whose CA bundle
// cannot be honoured on a release with one process-wide bundle.
const ReasonCABundleConflict = "CABundleConflict"

// Reasons a condition waiting for pods is False for when the scheduler or
// the kubelet says why they do not run. Each is a case people meet and act
// on differently (see docs/troubleshooting.md).
const (
	// ReasonPodsUnschedulable: the scheduler found no node (PodScheduled
	// False, reason Unschedulable).
	ReasonPodsUnschedulable = "PodsUnschedulable"
	// ReasonPodsNotStarting: a container cannot be created or its image
	// cannot be pulled (CreateContainerConfigError, ImagePullBackOff, ...),
	// or the pod has not started within its deadline.
	ReasonPodsNotStarting = "PodsNotStarting"
	// ReasonPodsCrashLooping: a container keeps exiting and is restarted.
	ReasonPodsCrashLooping = "PodsCrashLooping"
	// ReasonPodsFailed: a pod ended (a Job's container exited non-zero, or
	// the kubelet evicted it).
	ReasonPodsFailed = "PodsFailed"
	// ReasonPodsNotReady: containers run but are not ready within the
	// deadline.
	ReasonPodsNotReady = "PodsNotReady"
)

// ReasonPodsNotCreated: the Deployment's ReplicaSet cannot create pods at
// all (a ResourceQuota, a PodSecurity level or another admission refusal);
// the API server's refusal is in the Deployment's ReplicaFailure condition.
const ReasonPodsNotCreated = "PodsNotCreated"

// Conditions of spec.gateway and spec.networkPolicy, the reference's names;
// with the block unset each is True under its NotRequired reason.
const (
	CondHTTPRouteReady     = "HTTPRouteReady"
	CondNetworkPolicyReady = "NetworkPolicyReady"

	ReasonHTTPRouteAccepted        = "HTTPRouteAccepted"
	ReasonHTTPRouteNotAccepted     = "HTTPRouteNotAccepted"
	ReasonHTTPRouteNotRequired     = "HTTPRouteNotRequired"
	ReasonGatewayAPINotInstalled   = "GatewayAPINotInstalled"
	ReasonNetworkPolicyApplied     = "NetworkPolicyReady"
	ReasonNetworkPolicyNotRequired = "NetworkPolicyNotRequired"
	// ReasonWaitingForNetworkPolicy: the observed policy does not allow
	// every derived endpoint yet; the stores it does not allow wait.
	ReasonWaitingForNetworkPolicy = glancestatus.ReasonWaitingForNetworkPolicy
)

// DBPurgeReady says whether the purge runs, with the reference's reasons.
// It does not hold Ready back: a purge that stopped makes the database
// grow, it does not stop glance-api from serving. A suspended purge, and
// one that is turned off, is True, a posture and not a fault, but under a
// reason of its own, since nothing else says the backlog grows.
const (
	CondDBPurgeReady          = glancestatus.CondDBPurgeReady
	ReasonDBPurgeScheduled    = "DBPurgeScheduled"
	ReasonDBPurgeSuspended    = "DBPurgeSuspended"
	ReasonDBPurgeJobFailed    = "DBPurgeJobFailed"
	ReasonDBPurgeNotScheduled = "DBPurgeNotScheduled"
)

// SecretsReady, the reference's names: the External Secrets store
// spec.secretStoreRef names is Ready (the gate, which holds the render),
// then the database and service-user Secrets are complete. Without the
// field only the Secrets are checked.
const (
	CondSecretsReady                       = "SecretsReady"
	ReasonSecretsAvailable                 = "SecretsAvailable"
	ReasonSecretStoreNotReady              = "SecretStoreNotReady"
	ReasonWaitingForServiceUserCredentials = "WaitingForServiceUserCredentials"
)

// GlanceAPIReady, the reference's names, from what the pods' readiness
// probe (GET /healthcheck) says: the hooks dial nothing, and the kubelet
// has asked every pod the Service sends requests to.
const (
	CondGlanceAPIReady = "GlanceAPIReady"
	ReasonAPIHealthy   = "APIHealthy"
	ReasonAPIUnhealthy = glancestatus.ReasonAPIUnhealthy
	// ReasonEndpointNotReady: there is no Deployment whose pods could
	// answer yet.
	ReasonEndpointNotReady = glancestatus.ReasonEndpointNotReady
)

// HPAReady, the reference's names: the HorizontalPodAutoscaler of
// spec.autoscaling is there; True under HPANotRequired without it.
const (
	CondHPAReady         = "HPAReady"
	ReasonHPAReady       = "HPAReady"
	ReasonHPANotRequired = "HPANotRequired"
	// HPAReady says ReasonWaitingForDeployment (above) while the autoscaler
	// waits for the Deployment it scales, which waits for the schema.
)

// ExtraConfigHealthy says whether spec.extraConfig leaves the keys the
// hooks own alone; it is not part of Ready. The reference's reasons.
const (
	CondExtraConfigHealthy      = glancestatus.CondExtraConfigHealthy
	ReasonNoOwnedKeysOverridden = "NoOwnedKeysOverridden"
	ReasonOwnedKeysOverridden   = "OwnedKeysOverridden"
	ReasonStoreSectionIgnored   = "StoreSectionIgnored"
)

// StoresReachable says which stores of the Glance do not answer, as their
// GlanceBackends' StoreReachable conditions report it (the service checks
// each store's endpoint when it syncs the backend: the Glance's sync only
// reads the verdicts, so its answer stays a function of its request);
// storereach.go reports it. Ready does not wait for it: glance-api serves
// on, and its other stores take uploads; re-rendering or rolling the pods
// would mend nothing, so a store that is down keeps its section and
// nothing is rendered for it.
const (
	CondStoresReachable      = glancestatus.CondStoresReachable
	ReasonAllStoresReachable = "AllStoresReachable"
	// ReasonStoresNotChecked: no attached backend reports a check (the
	// service runs without --store-check-timeout).
	ReasonStoresNotChecked = "StoresNotChecked"
	ReasonStoreUnreachable = names.ReasonStoreUnreachable
	EventStoreUnreachable  = names.ReasonStoreUnreachable
)

// specError is a value of the Glance spec that cannot be rendered safely.
// The sync keeps the last-good config and reports it as InvalidSpec; any
// other error is the request's (an input error) and fails the call.
type specError struct{ err error }

func (e specError) Error() string { return e.err.Error() }
func (e specError) Unwrap() error { return e.err }

// InvalidSpec makes a specError; %w keeps the cause reachable.
func InvalidSpec(format string, args ...any) error {
	return specError{fmt.Errorf(format, args...)}
}

// IsSpecError reports whether err, or an error it wraps, is a specError.
func IsSpecError(err error) bool {
	var se specError
	return errors.As(err, &se)
}
