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
