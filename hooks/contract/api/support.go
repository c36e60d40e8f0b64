package api

// A Glance field the reference API has and these hooks do not build yet.
// Admission refuses it when set, naming what it would do, so a CR written
// for the reference never runs here with a part of it silently dropped.
type LaterField struct {
	// Path under a Glance's spec, e.g. "imageCache".
	Path string
	// What the field asks for, for the refusal's message.
	What string
	// set reports whether a spec sets it.
	set func(GlanceSpec) bool
	// Example sets it, as dotted paths under spec and their values: the
	// reference tests apply it for every leaf of the field's block and
	// expect the refusal, so lifting one is deleting its line here.
	Example map[string]any
}

// IsSet reports whether spec s sets the field.
func (f LaterField) IsSet(s GlanceSpec) bool { return f.set(s) }

// LaterFields are the reference's Glance fields admission refuses as not
// supported yet, in the spec's order.
var LaterFields = []LaterField{
	{"targetClusterRef", "children on another cluster; these hooks create them beside the Glance", func(s GlanceSpec) bool { return s.TargetClusterRef != nil },
		map[string]any{"targetClusterRef.name": "edge"}},
}

// ControlPlaneLaterField is a field of the reference ControlPlane's
// services.glance these hooks do not build: admission and the sync hook
// refuse it when set, naming what it would do.
type ControlPlaneLaterField struct {
	// Path under spec.services.glance, e.g. "namespace".
	Path string
	// What the field asks for, for the refusal's message.
	What string
	// set reports whether services.glance sets it.
	set func(GlanceService) bool
}

// IsSet reports whether svc sets the field.
func (f ControlPlaneLaterField) IsSet(svc GlanceService) bool { return f.set(svc) }

// ControlPlaneLaterFields are the reference ControlPlane's services.glance
// fields refused as not supported yet, in its spec's order.
var ControlPlaneLaterFields = []ControlPlaneLaterField{
	{"dedicatedBackingServices", "database or cache instances of their own: services.glance.database and services.glance.cache name the ones this Glance uses",
		func(s GlanceService) bool { return len(s.DedicatedBackingServices) > 0 }},
	{"namespace", "a Glance in another namespace: Metacontroller creates a ControlPlane's children in its own namespace",
		func(s GlanceService) bool { return len(s.Namespace) > 0 }},
	{"targetClusterRef", "children on another cluster; these hooks create them beside the ControlPlane",
		func(s GlanceService) bool { return len(s.TargetClusterRef) > 0 }},
}
