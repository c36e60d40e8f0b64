package crdref

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// typeName is a schema's type as `kubectl explain` writes it: []T for a
// list, map[string]T for a map, the format after the type.
func typeName(s *Schema) string {
	switch {
	case s.IntOrString:
		return "int-or-string"
	case s.Type == "array" && s.Items != nil:
		return "[]" + typeName(s.Items)
	case s.Type == "object" && len(s.Properties) == 0 && s.AdditionalProperties != nil:
		return "map[string]" + typeName(s.AdditionalProperties)
	case s.Type == "object" && len(s.Properties) == 0 && s.PreserveUnknown:
		return "object (any fields)"
	case s.Format != "":
		return s.Type + " (" + s.Format + ")"
	case s.Type == "":
		return "any"
	}
	return s.Type
}

// constraints is the shorthand of what a value must be: its enum, pattern
// and bounds, and those of a list's or map's values after "each:".
func constraints(s *Schema) string {
	var parts []string
	if len(s.Enum) > 0 {
		vals := make([]string, len(s.Enum))
		for i, v := range s.Enum {
			b, _ := json.Marshal(v) // values read from JSON write back
			vals[i] = code(strings.Trim(string(b), `"`))
		}
		parts = append(parts, "one of "+strings.Join(vals, ", "))
	}
	if s.Pattern != "" {
		parts = append(parts, "pattern "+code(s.Pattern))
	}
	parts = append(parts, bounds(s.Minimum, s.Maximum)...)
	parts = append(parts, lengths("length", s.MinLength, s.MaxLength)...)
	parts = append(parts, lengths("items", s.MinItems, s.MaxItems)...)
	parts = append(parts, lengths("entries", nil, s.MaxProperties)...)
	if e := elem(s); e != nil && len(e.Properties) == 0 {
		if c := constraints(e); c != "" {
			parts = append(parts, "each: "+c)
		}
	}
	return strings.Join(parts, "; ")
}

func bounds(lo, hi *float64) []string {
	var out []string
	if lo != nil {
		out = append(out, "≥ "+strconv.FormatFloat(*lo, 'f', -1, 64))
	}
	if hi != nil {
		out = append(out, "≤ "+strconv.FormatFloat(*hi, 'f', -1, 64))
	}
	return out
}

func lengths(what string, lo, hi *int64) []string {
	var out []string
	if lo != nil {
		out = append(out, fmt.Sprintf("%s ≥ %d", what, *lo))
	}
	if hi != nil {
		out = append(out, fmt.Sprintf("%s ≤ %d", what, *hi))
	}
	return out
}

// code writes s as inline code, with a fence of backticks it does not
// hold and '|' escaped, which would end a table cell even inside code.
func code(s string) string {
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	pad := ""
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		pad = " "
	}
	return fence + pad + strings.ReplaceAll(s, "|", `\|`) + pad + fence
}
