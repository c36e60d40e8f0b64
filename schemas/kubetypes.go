package schemas

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"sigs.k8s.io/yaml"
)

// Where a field of the API is a Kubernetes type (a Deployment's strategy,
// a pod's spread constraint, a NetworkPolicy's egress rule), or a type of
// this API whose spec part generates its CRD lines (the autoscaling, image
// cache and database purge parts, hooks/contract/api/autoscaling.go,
// imagecache.go, dbpurge.go: field comments and +kubebuilder markers), its
// schema is the one controller-gen generates for that type,
// written between two comment lines:
//
//	# Generated: the schema controller-gen writes for k8s.io/api/apps/v1.DeploymentStrategy, without its description (make crd-schemas).
//	...
//	# End of the generated schema.
//
// The hand-written lines around them (the field's description, a list's
// bounds) are this API's; the lines between are the type's properties,
// required fields and list and map types, without its description. The
// generator is hack/kubeschema; schemas' tests splice its output here and
// fail while a CRD differs from it.

var (
	kubeTypeBegin = regexp.MustCompile(`^( *)# Generated: the schema controller-gen writes for (\S+),`)
	kubeTypeEnd   = regexp.MustCompile(`^( *)# End of the generated schema\.$`)
	yamlKey       = regexp.MustCompile(`^( *)([A-Za-z0-9_-]+):\s*$`)
)

// KubeType is one place of a CRD whose schema is a Kubernetes type's.
type KubeType struct {
	// Type is the Go type, as <package path>.<Name>.
	Type string
	// Field is where it is, dotted under spec; a list's items end in
	// "[]": deployment.topologySpreadConstraints[].
	Field string
	// begin and end are the lines of the two comments; indent is theirs,
	// and the generated lines'.
	begin, end int
	indent     string
}

// KubeTypes lists the places of a CRD file whose schema is generated from
// a Kubernetes type, in the order they are written.
func KubeTypes(raw []byte) ([]KubeType, error) {
	lines := strings.Split(string(raw), "\n")
	var out []KubeType
	var stack []yamlStep
	for i := 0; i < len(lines); i++ {
		if m := yamlKey.FindStringSubmatch(lines[i]); m != nil {
			stack = push(stack, yamlStep{indent: len(m[1]), key: m[2]})
			continue
		}
		m := kubeTypeBegin.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		k := KubeType{Type: m[2], begin: i, indent: m[1], Field: specField(push(stack, yamlStep{indent: len(m[1])}))}
		for k.end = i + 1; k.end < len(lines); k.end++ {
			if e := kubeTypeEnd.FindStringSubmatch(lines[k.end]); e != nil && e[1] == k.indent {
				break
			}
		}
		if k.end == len(lines) {
			return nil, fmt.Errorf("line %d: the schema of %s has no end comment", i+1, k.Type)
		}
		out = append(out, k)
		i = k.end
	}
	return out, nil
}

// yamlStep is a key of a block mapping at its indentation.
type yamlStep struct {
	indent int
	key    string
}

// push adds a key after dropping the keys it is not below; a step without
// a key only drops them.
func push(stack []yamlStep, s yamlStep) []yamlStep {
	for len(stack) > 0 && stack[len(stack)-1].indent >= s.indent {
		stack = stack[:len(stack)-1]
	}
	if s.key == "" {
		return stack
	}
	return append(stack, s)
}

// specField is the dotted field under spec the keys lead to: the schema's
// properties and items keywords are dropped, an items keyword marks a
// list's item.
func specField(stack []yamlStep) string {
	var parts []string
	inSpec := false
	for i, s := range stack {
		switch {
		case !inSpec:
			inSpec = s.key == "spec" && i > 0 && stack[i-1].key == "properties" && i > 1 && stack[i-2].key == "openAPIV3Schema"
		case s.key == "items" && len(parts) > 0:
			parts[len(parts)-1] += "[]"
		case s.key != "properties":
			parts = append(parts, s.key)
		}
	}
	return strings.Join(parts, ".")
}

// SpliceKubeTypes writes each generated schema between its comments:
// generated maps a type's name to its schema as JSON, as hack/kubeschema
// prints it. The schema's own description is left out; the field's, above
// the comments, is the one kubectl explain shows.
func SpliceKubeTypes(raw []byte, generated map[string]json.RawMessage) ([]byte, error) {
	places, err := KubeTypes(raw)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(string(raw), "\n")
	var out []string
	next := 0
	for _, p := range places {
		schema, ok := generated[p.Type]
		if !ok {
			return nil, fmt.Errorf("no generated schema of %s", p.Type)
		}
		body, err := schemaLines(schema, p.indent)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.Type, err)
		}
		out = append(append(append(out, lines[next:p.begin+1]...), body...), lines[p.end])
		next = p.end + 1
	}
	out = append(out, lines[next:]...)
	return []byte(strings.Join(out, "\n")), nil
}

// schemaLines is a schema as controller-gen writes it (sigs.k8s.io/yaml),
// without its description, each line indented.
func schemaLines(schema json.RawMessage, indent string) ([]string, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(schema, &m); err != nil {
		return nil, err
	}
	delete(m, "description")
	js, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	y, err := yaml.JSONToYAML(js)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSuffix(string(y), "\n"), "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = indent + l
		}
	}
	return lines, nil
}
