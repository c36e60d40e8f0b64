package render

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/spelling"
	"github.com/c5c3/glance-hooks/schemas"
)

// Unknown fields are refused, as the API server refuses them under
// kubectl's default --validate=strict: a misspelt field (regon: for region:)
// would otherwise vanish without a word and render would report everything
// Ready. What is known comes from the CRDs in schemas/ for the three kinds,
// and from the Go types of k8s.io/api for metadata and Secrets, which is
// what the API server checks them against.

// fieldPath is a path into an object: strings are keys, ints list indices.
type fieldPath []any

// String writes the path as kubectl does: spec.backends[0].name.
func (p fieldPath) String() string {
	var b strings.Builder
	for _, s := range p {
		switch v := s.(type) {
		case int:
			fmt.Fprintf(&b, "[%d]", v)
		default:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			fmt.Fprint(&b, v)
		}
	}
	return b.String()
}

func (p fieldPath) child(s any) fieldPath {
	return append(append(fieldPath{}, p...), s)
}

// unknownField is one field the schema does not define, with the known
// field closest to it, if one is close, and its line (0: not placed).
type unknownField struct {
	path    fieldPath
	suggest string
	// renamed is where a field of the old Glance API lives now.
	renamed string
	line    int
}

// sortByLine puts fields in the order they are written; those that could
// not be placed keep their order, last.
func sortByLine(fields []unknownField) {
	sort.SliceStable(fields, func(i, j int) bool {
		a, b := fields[i].line, fields[j].line
		return a > 0 && (b == 0 || a < b)
	})
}

// shape says which fields an object may carry.
type shape interface {
	// open reports that any field is accepted here, and nothing below is
	// checked.
	open() bool
	// keepsUnknown reports that fields the schema does not define are kept
	// here (x-kubernetes-preserve-unknown-fields), while the ones it
	// defines are still held to their schema, as the API server does.
	keepsUnknown() bool
	// property is the shape of a known field.
	property(name string) (shape, bool)
	// properties are the known field names, for suggestions.
	properties() []string
	// values is the shape of every value of a map, if this is a map.
	values() (shape, bool)
	// items is the shape of a list's elements, nil when not a list.
	items() shape
}

// unknownFields walks v against s, in key order.
func unknownFields(v any, s shape, at fieldPath, out *[]unknownField) {
	if s == nil || s.open() {
		return
	}
	switch v := v.(type) {
	case map[string]any:
		vals, isMap := s.values()
		for _, k := range sortedKeys(v) {
			child, known := vals, isMap
			if !isMap {
				child, known = s.property(k)
			}
			if !known {
				if !s.keepsUnknown() {
					*out = append(*out, unknownField{path: at.child(k), suggest: spelling.Closest(k, s.properties())})
				}
				continue
			}
			unknownFields(v[k], child, at.child(k), out)
		}
	case []any:
		for i, item := range v {
			unknownFields(item, s.items(), at.child(i), out)
		}
	}
}

// schemaShape is a node of a CRD's openAPIV3Schema.
type schemaShape map[string]any

// open is a node that keeps unknown fields and defines none: nothing in it
// is known, so nothing is checked.
func (s schemaShape) open() bool {
	_, hasProps := s["properties"]
	_, hasItems := s["items"]
	_, hasValues := s["additionalProperties"]
	return s.keepsUnknown() && !hasProps && !hasItems && !hasValues
}

func (s schemaShape) keepsUnknown() bool {
	b, _ := s["x-kubernetes-preserve-unknown-fields"].(bool)
	return b
}

func (s schemaShape) property(name string) (shape, bool) {
	props, _ := s["properties"].(map[string]any)
	p, ok := props[name].(map[string]any)
	if !ok {
		return nil, false
	}
	return schemaShape(p), true
}

func (s schemaShape) properties() []string {
	props, _ := s["properties"].(map[string]any)
	return sortedKeys(props)
}

func (s schemaShape) values() (shape, bool) {
	switch ap := s["additionalProperties"].(type) {
	case map[string]any:
		return schemaShape(ap), true
	case bool:
		return openShape{}, ap
	}
	return nil, false
}

func (s schemaShape) items() shape {
	if it, ok := s["items"].(map[string]any); ok {
		return schemaShape(it)
	}
	return nil
}

// openShape accepts anything.
type openShape struct{}

func (openShape) open() bool                    { return true }
func (openShape) keepsUnknown() bool            { return true }
func (openShape) property(string) (shape, bool) { return openShape{}, true }
func (openShape) properties() []string          { return nil }
func (openShape) values() (shape, bool)         { return openShape{}, true }
func (openShape) items() shape                  { return openShape{} }

// typeShape is a Go API type, read through its json tags.
type typeShape struct{ t reflect.Type }

var jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()

func shapeOf(t reflect.Type) shape {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	// A type that decodes itself (Time, Quantity, IntOrString, raw bytes)
	// is a value, not an object to look into.
	if reflect.PointerTo(t).Implements(jsonUnmarshaler) || t.Kind() == reflect.Interface ||
		(t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8) {
		return openShape{}
	}
	return typeShape{t}
}

func (s typeShape) open() bool { return false }

func (s typeShape) keepsUnknown() bool { return false }

// typeFields caches fields by type: a type's JSON fields never change, and
// every property of every object read asks for them (at 100,000 objects
// rebuilding the map was a tenth of all the memory render allocated).
var typeFields sync.Map // reflect.Type -> map[string]reflect.Type, read only

func (s typeShape) fields() map[string]reflect.Type {
	if f, ok := typeFields.Load(s.t); ok {
		return f.(map[string]reflect.Type)
	}
	f, _ := typeFields.LoadOrStore(s.t, s.buildFields())
	return f.(map[string]reflect.Type)
}

func (s typeShape) buildFields() map[string]reflect.Type {
	out := map[string]reflect.Type{}
	if s.t.Kind() != reflect.Struct {
		return out
	}
	for i := range s.t.NumField() {
		f := s.t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-" || !f.IsExported():
			continue
		case f.Anonymous && (name == "" || strings.Contains(opts, "inline")):
			for n, t := range (typeShape{f.Type}).fields() {
				out[n] = t
			}
			continue
		case name == "":
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

func (s typeShape) property(name string) (shape, bool) {
	t, ok := s.fields()[name]
	if !ok {
		return nil, false
	}
	return shapeOf(t), true
}

func (s typeShape) properties() []string { return sortedKeys(s.fields()) }

func (s typeShape) values() (shape, bool) {
	if s.t.Kind() == reflect.Map {
		return shapeOf(s.t.Elem()), true
	}
	return nil, false
}

func (s typeShape) items() shape {
	if s.t.Kind() == reflect.Slice || s.t.Kind() == reflect.Array {
		return shapeOf(s.t.Elem())
	}
	return nil
}

// withMetadata is a CRD's root schema with metadata checked as the API
// server checks it, against ObjectMeta (CRDs leave it to the server).
type withMetadata struct{ schemaShape }

var objectMeta = shapeOf(reflect.TypeFor[metav1.ObjectMeta]())

func (s withMetadata) property(name string) (shape, bool) {
	if name == "metadata" {
		return objectMeta, true
	}
	return s.schemaShape.property(name)
}

func (s withMetadata) properties() []string {
	return mergeSorted(s.schemaShape.properties(), []string{"metadata"})
}

// shapes of every kind render reads, by kind; the CRDs are read once.
var shapes = sync.OnceValues(func() (map[string]shape, error) {
	out := map[string]shape{
		"Secret":    shapeOf(reflect.TypeFor[corev1.Secret]()),
		"ConfigMap": shapeOf(reflect.TypeFor[corev1.ConfigMap]()),
	}
	for _, name := range schemas.Names() {
		raw, err := schemas.Read(name)
		if err != nil {
			return nil, err
		}
		var crd struct {
			Spec struct {
				Names    struct{ Kind string }
				Versions []struct {
					Schema struct {
						OpenAPIV3Schema map[string]any `json:"openAPIV3Schema"`
					}
				}
			}
		}
		if err := yaml.Unmarshal(raw, &crd); err != nil {
			return nil, fmt.Errorf("schemas/%s: %w", name, err)
		}
		if len(crd.Spec.Versions) != 1 {
			return nil, fmt.Errorf("schemas/%s: render knows one served version per kind", name)
		}
		out[crd.Spec.Names.Kind] = withMetadata{schemaShape(crd.Spec.Versions[0].Schema.OpenAPIV3Schema)}
	}
	return out, nil
})

// strictFields lists the fields of o (a kind render accepts) that its
// schema does not define.
func strictFields(o map[string]any) ([]unknownField, error) {
	all, err := shapes()
	if err != nil {
		return nil, err
	}
	kind, _ := o["kind"].(string)
	s, ok := all[kind]
	if !ok {
		return nil, fmt.Errorf("no schema for kind %s", kind)
	}
	var out []unknownField
	unknownFields(o, s, nil, &out)
	for i, f := range out {
		out[i].renamed = renamedField(kind, f.path.String())
	}
	return out, nil
}

// renamedField is the new name of an old Glance field at path of an object
// of kind, for the hint; "" when it is no old field.
func renamedField(kind, path string) string {
	prefix := "spec."
	if kind == api.KindControlPlane {
		prefix = "spec.services.glance."
	} else if kind != api.KindGlance {
		return ""
	}
	rel, ok := strings.CutPrefix(path, prefix)
	if !ok {
		return ""
	}
	if to := api.RenamedTo(rel); to != "" {
		return prefix + strings.ReplaceAll(to, ", ", ", "+prefix)
	}
	return ""
}

func mergeSorted(a, b []string) []string {
	out := append(append([]string{}, a...), b...)
	sort.Strings(out)
	return out
}

// describeUnknown is the message for the unknown fields of one object of
// kind; the caller names the first one's line, the others carry theirs.
func describeUnknown(kind string, fields []unknownField) string {
	parts := make([]string, 0, len(fields))
	for i, f := range fields {
		s := strconv.Quote(f.path.String())
		switch {
		case f.renamed != "":
			s += fmt.Sprintf(" (renamed: now %s, as the reference Glance API names it; see the CHANGELOG)", f.renamed)
		case f.suggest != "":
			s += fmt.Sprintf(" (did you mean %q?)", f.suggest)
		}
		if i > 0 && f.line > 0 {
			s += fmt.Sprintf(" at line %d", f.line)
		}
		parts = append(parts, s)
	}
	if len(fields) == 1 {
		return fmt.Sprintf("unknown field %s: the %s schema does not define it (kubectl apply refuses it too)", parts[0], kind)
	}
	return fmt.Sprintf("unknown fields %s: the %s schema defines none of them (kubectl apply refuses them too)", strings.Join(parts, ", "), kind)
}
