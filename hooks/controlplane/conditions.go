package controlplane

import "github.com/c5c3/glance-hooks/hooks/contract/hook"

// Every condition type and reason the controlplane hook reports, each defined
// once, so a reader finds what a status can say in one place.

// Condition types and reasons of the ControlPlane status.
const (
	CondGlanceProjected = "GlanceProjected"
	CondGlanceReady     = "GlanceReady"

	ReasonProjected       = "Projected"
	ReasonInvalidBackends = "InvalidBackends"
	// ReasonGlanceNotManaged: GlanceReady True without
	// spec.services.glance (unmanaged.go); the reference's reason.
	ReasonGlanceNotManaged = "GlanceNotManaged"
	ReasonGlanceReady      = "GlanceReady"
	ReasonGlanceNotReady   = "GlanceNotReady"
	// ReasonWaitingForGlance: the Glance is not ready only because it is
	// on its way (asked for, not reported yet, or glancestatus.Progressing);
	// one message for every step of it. The reference's reason while its
	// Glance is not ready.
	ReasonWaitingForGlance = "WaitingForGlance"
)

// The KeystoneRegistered condition and its reasons.
const (
	CondKeystoneRegistered = "KeystoneRegistered"

	ReasonRegistered                    = "Registered"
	ReasonWaitingForAdminCredentials    = "WaitingForAdminCredentials"
	ReasonWaitingForServiceUserPassword = "WaitingForServiceUserPassword"
	ReasonRegistrationRunning           = "RegistrationRunning"
	ReasonRegistrationFailed            = "RegistrationFailed"
	ReasonInvalidSpec                   = hook.ReasonInvalidSpec
	ReasonDeregistrationRunning         = "DeregistrationRunning"
	ReasonDeregistrationFailed          = "DeregistrationFailed"
	ReasonDeregistered                  = "Deregistered"
)
