package rules

import "k8s.io/apimachinery/pkg/util/validation/field"

// The fields the rules of every kind name in their problems.
var (
	specPath     = field.NewPath("spec")
	metadataName = field.NewPath("metadata", "name")
	// releasePath is where a Glance and a ControlPlane both hold the release.
	releasePath = specPath.Child("openStackRelease")
	// glanceServicePath is the ControlPlane's part a Glance is projected
	// from.
	glanceServicePath = specPath.Child("services", "glance")
)
