// Package api holds the Go types of the three kinds this service reconciles:
// ControlPlane (c5c3.io/v1alpha1), Glance and GlanceBackend
// (glance.openstack.c5c3.io/v1alpha1). The CRDs in schemas/ are the API's
// single source of truth; a test keeps these types and those schemas in step.
package api

const (
	// ControlPlaneAPIVersion is the apiVersion of ControlPlane objects.
	ControlPlaneAPIVersion = "c5c3.io/v1alpha1"
	// GlanceAPIVersion is the apiVersion of Glance and GlanceBackend objects.
	GlanceAPIVersion = "glance.openstack.c5c3.io/v1alpha1"

	KindControlPlane  = "ControlPlane"
	KindGlance        = "Glance"
	KindGlanceBackend = "GlanceBackend"

	// GlanceGroup is the API group of Glance and GlanceBackend; labels and
	// annotations this service owns live under it.
	GlanceGroup = "glance.openstack.c5c3.io"
)
