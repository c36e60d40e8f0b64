// Package crdref turns the CRDs of schemas/ into the field reference in
// docs/reference: one Markdown table per object type, with what
// `kubectl explain` shows of each field (its type, whether it is required,
// its default, its description) and the CEL rules' messages.
package crdref

import (
	"encoding/json"
	"fmt"

	"sigs.k8s.io/yaml"
)

// Schema is the part of an OpenAPI v3 schema the reference shows; the
// rest of a CRD's schema (list types, nullable, ...) is left out.
type Schema struct {
	Type        string          `json:"type,omitempty"`
	Format      string          `json:"format,omitempty"`
	Description string          `json:"description,omitempty"`
	Enum        []any           `json:"enum,omitempty"`
	Pattern     string          `json:"pattern,omitempty"`
	Default     json.RawMessage `json:"default,omitempty"`

	Minimum       *float64 `json:"minimum,omitempty"`
	Maximum       *float64 `json:"maximum,omitempty"`
	MinLength     *int64   `json:"minLength,omitempty"`
	MaxLength     *int64   `json:"maxLength,omitempty"`
	MinItems      *int64   `json:"minItems,omitempty"`
	MaxItems      *int64   `json:"maxItems,omitempty"`
	MaxProperties *int64   `json:"maxProperties,omitempty"`

	Required   []string           `json:"required,omitempty"`
	Properties map[string]*Schema `json:"properties,omitempty"`
	Items      *Schema            `json:"items,omitempty"`
	// AdditionalProperties is a map's value schema; a CRD may also write
	// it as a bool, which says nothing the reference shows.
	AdditionalProperties *Schema `json:"-"`

	IntOrString     bool         `json:"x-kubernetes-int-or-string,omitempty"`
	PreserveUnknown bool         `json:"x-kubernetes-preserve-unknown-fields,omitempty"`
	Validations     []Validation `json:"x-kubernetes-validations,omitempty"`
}

// Validation is one CEL rule of a schema.
type Validation struct {
	Rule              string `json:"rule"`
	Message           string `json:"message,omitempty"`
	MessageExpression string `json:"messageExpression,omitempty"`
	FieldPath         string `json:"fieldPath,omitempty"`
}

// UnmarshalJSON reads additionalProperties as a schema when it is one.
func (s *Schema) UnmarshalJSON(b []byte) error {
	type plain Schema
	var raw struct {
		plain
		AdditionalProperties json.RawMessage `json:"additionalProperties,omitempty"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*s = Schema(raw.plain)
	if len(raw.AdditionalProperties) > 0 && raw.AdditionalProperties[0] == '{' {
		s.AdditionalProperties = new(Schema)
		return json.Unmarshal(raw.AdditionalProperties, s.AdditionalProperties)
	}
	return nil
}

// CRD is what the reference reads of a CustomResourceDefinition.
type CRD struct {
	Spec struct {
		Group string `json:"group"`
		Names struct {
			Kind string `json:"kind"`
		} `json:"names"`
		Versions []struct {
			Name    string `json:"name"`
			Storage bool   `json:"storage"`
			Schema  struct {
				OpenAPIV3Schema *Schema `json:"openAPIV3Schema"`
			} `json:"schema"`
		} `json:"versions"`
	} `json:"spec"`
}

// ParseCRD reads a CRD's YAML and returns it with the schema of its
// storage version, the one the reference shows; a CRD without a kind or
// that schema is refused, since it would give an empty reference.
func ParseCRD(b []byte) (*CRD, string, *Schema, error) {
	var c CRD
	if err := yaml.Unmarshal(b, &c); err != nil {
		return nil, "", nil, fmt.Errorf("reading the CRD: %w", err)
	}
	if c.Spec.Names.Kind == "" {
		return nil, "", nil, fmt.Errorf("the CRD names no kind")
	}
	for _, v := range c.Spec.Versions {
		if v.Storage && v.Schema.OpenAPIV3Schema != nil {
			return &c, v.Name, v.Schema.OpenAPIV3Schema, nil
		}
	}
	return nil, "", nil, fmt.Errorf("%s has no storage version with a schema", c.Spec.Names.Kind)
}
