package crdref

import (
	"maps"
	"slices"
)

// Type is one object type of a kind: one table of the reference.
type Type struct {
	// Path is where the type sits, from the object's root: "" for the
	// root, spec.image, spec.backends[] (an item of a list),
	// spec.extraConfig{} (a value of a map).
	Path        string
	Description string
	Fields      []Field
	// Rules are the CEL rules of the type and of its fields that have no
	// table of their own.
	Rules []Rule
}

// Field is one row of a type's table.
type Field struct {
	Name string
	// Type is the shorthand of the field's schema (typeName).
	Type string
	// Object is the Path of the field's object type when it has a table,
	// for a link; "" when it has none.
	Object      string
	Constraints string
	Required    bool
	// Default is the JSON of the schema's default, "" without one.
	Default     string
	Description string
}

// Rule is one CEL rule; Field is the field it is written on, "" for the
// type itself.
type Rule struct {
	Field string
	Validation
}

// Types lists the object types under root, the root first and each type's
// nested types after it, depth first; fields are sorted by name (the
// order of a Go map holds none of the YAML's, and `kubectl explain` sorts
// them so too).
func Types(root *Schema) []Type {
	var out []Type
	collect("", root, &out)
	return out
}

func collect(path string, s *Schema, out *[]Type) {
	t := Type{Path: path, Description: s.Description}
	for _, v := range s.Validations {
		t.Rules = append(t.Rules, Rule{Validation: v})
	}
	i := len(*out)
	*out = append(*out, t)
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		f := s.Properties[name]
		row := Field{Name: name, Type: typeName(f), Constraints: constraints(f), Required: slices.Contains(s.Required, name),
			Default: string(f.Default), Description: f.Description}
		obj, suffix := objectOf(f)
		if obj != nil {
			row.Object = join(path, name) + suffix
		}
		// A rule belongs to the table of the schema it is written on; a
		// field without a table of its own lists it with its parent.
		for n := f; n != nil && n != obj; n = elem(n) {
			for _, v := range n.Validations {
				(*out)[i].Rules = append((*out)[i].Rules, Rule{Field: name, Validation: v})
			}
		}
		(*out)[i].Fields = append((*out)[i].Fields, row)
		if obj != nil {
			collect(row.Object, obj, out)
		}
	}
}

// objectOf is the object type with fields that s is, or holds through
// lists and maps, with the path suffix that reaches it; nil when s holds
// no fields of its own.
func objectOf(s *Schema) (*Schema, string) {
	switch {
	case len(s.Properties) > 0:
		return s, ""
	case s.Items != nil:
		o, suffix := objectOf(s.Items)
		return o, "[]" + suffix
	case s.AdditionalProperties != nil:
		o, suffix := objectOf(s.AdditionalProperties)
		return o, "{}" + suffix
	}
	return nil, ""
}

// elem is what a list or map holds, nil for any other schema.
func elem(s *Schema) *Schema {
	if s.Items != nil {
		return s.Items
	}
	return s.AdditionalProperties
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}
