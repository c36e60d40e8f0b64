package api

// A ControlPlane's services.glance spells most of its Glance's spec under
// the Glance's own names. Every field the two types share by Go name, JSON
// name and type is copied onto the projected Glance by SharedSpec, which is
// generated from the types (projection_gen.go, by `make
// controlplane-projection`), so a Glance field added to GlanceService too
// reaches the ControlPlane's Glance with no projection code written by
// hand. What the ControlPlane sets from elsewhere (its release, region and
// secret store) or changes on the way (replicas, globalExtraConfig) is the
// ControlPlane hook's (controlplane.GlanceSpec). projection_test.go fails
// while the generated file is stale, and on a Glance field that is neither
// shared nor listed there as deliberately not projected, with the reason.
