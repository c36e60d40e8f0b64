package glancebackend

import (
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
)

// Every condition type and reason the glancebackend hook reports, each defined
// once, so a reader finds what a status can say in one place.

// Condition types of a GlanceBackend.
const (
	CondCredentialsReady = names.ConditionCredentialsReady
	CondCABundleReady    = names.ConditionCABundleReady
	CondStoreRendered    = "StoreRendered"
	CondConfigProjected  = "ConfigProjected"

	ReasonRendered    = "Rendered"
	ReasonInvalidSpec = hook.ReasonInvalidSpec
)

// Reasons of CredentialsReady.
const (
	ReasonCredentialsAvailable  = "CredentialsAvailable"
	ReasonWaitingForCredentials = "WaitingForCredentials"
	ReasonInvalidCredentials    = "InvalidCredentials"
)

// Reasons of CABundleReady.
const (
	ReasonCABundleAvailable  = "CABundleAvailable"
	ReasonNoCABundle         = "NoCABundle"
	ReasonWaitingForCABundle = "WaitingForCABundle"
	ReasonInvalidCABundle    = "InvalidCABundle"
)

// Reasons of ConfigProjected, the reference's: True once the Deployment of
// the Glance mounts a backends Secret holding this store's section, False
// until then, the Glance missing included (the message says which).
const (
	ReasonConfigProjected      = "ConfigProjected"
	ReasonWaitingForProjection = "WaitingForProjection"
)

// StoreReachable and its reasons: whether the store's S3 endpoint answered
// the service's last check (reach.go). Reported on every sync: a service
// that checks no store (no Hook.Check) says StoreNotChecked, True, as a
// Glance reports a feature that is off, so `kubectl wait` on it returns.
// The reference reports no such condition.
const (
	CondStoreReachable     = names.ConditionStoreReachable
	ReasonStoreReachable   = "StoreReachable"
	ReasonStoreUnreachable = names.ReasonStoreUnreachable
	ReasonStoreNotChecked  = names.ReasonStoreNotChecked
)
