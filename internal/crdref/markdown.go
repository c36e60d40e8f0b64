package crdref

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
)

// Header is what a reference page says of itself before its tables.
type Header struct {
	Kind, Group, Version string
	// Source is the CRD file the page is generated from, named in it.
	Source string
}

// Markdown writes one kind's reference page: a heading and a table per
// type, in the order of types.
func Markdown(h Header, types []Type) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s field reference\n\n", h.Kind)
	fmt.Fprintf(&b, "<!-- Generated from schemas/%s by `go run ./hack/crdref`; do not edit. -->\n\n", h.Source)
	fmt.Fprintf(&b, "The fields of `%s` (`%s/%s`) as the CRD declares them, one table per object type, "+
		"as `kubectl explain` shows them. Fields are sorted by name; a type's nested types follow it, depth first. "+
		"In a path, `[]` is an item of a list and `{}` a value of a map. Admission checks more than the CRD does: see [Admission rules](../admission.md).\n",
		h.Kind, h.Group, h.Version)
	for _, t := range types {
		writeType(&b, h.Kind, t)
	}
	return b.Bytes()
}

func writeType(b *bytes.Buffer, kind string, t Type) {
	fmt.Fprintf(b, "\n## `%s`\n\n", title(kind, t.Path))
	if t.Description != "" {
		b.WriteString(text(t.Description) + "\n\n")
	}
	if len(t.Fields) > 0 {
		b.WriteString("| Field | Type | Required | Default | Description |\n|---|---|---|---|---|\n")
	}
	for _, f := range t.Fields {
		typ := f.Type
		if f.Object != "" {
			typ = fmt.Sprintf("[%s](#%s)", f.Type, anchor(title(kind, f.Object)))
		}
		if f.Constraints != "" {
			typ += "; " + f.Constraints
		}
		req, def := "", ""
		if f.Required {
			req = "yes"
		}
		if f.Default != "" {
			def = code(f.Default)
		}
		fmt.Fprintf(b, "| `%s` | %s | %s | %s | %s |\n", f.Name, typ, req, def, text(f.Description))
	}
	if len(t.Rules) > 0 {
		b.WriteString("\nRules:\n\n")
	}
	for _, r := range t.Rules {
		at := ""
		if r.Field != "" {
			at = code(r.Field) + ": "
		}
		fmt.Fprintf(b, "- %s%s\n", at, ruleText(r.Validation))
	}
}

// title is a type's heading: the kind for the root, Kind.path below it.
func title(kind, path string) string {
	if path == "" {
		return kind
	}
	return kind + "." + path
}

// ruleText is what a rule tells the user: its message, else the
// expression that makes it, else the rule itself.
func ruleText(v Validation) string {
	switch {
	case v.Message != "":
		return text(v.Message)
	case v.MessageExpression != "":
		return "message from " + code(v.MessageExpression)
	}
	return code(v.Rule)
}

var space = regexp.MustCompile(`\s+`)

// text is a description as one table cell: on one line, with what
// Markdown would read as a cell's end or as HTML escaped.
func text(s string) string {
	s = space.ReplaceAllString(strings.TrimSpace(s), " ")
	return strings.NewReplacer("|", `\|`, "<", "&lt;", ">", "&gt;").Replace(s)
}

var notAnchor = regexp.MustCompile(`[^a-z0-9 _-]`)

// anchor is the id GitHub gives a heading: lowercase, punctuation
// dropped, spaces as '-'.
func anchor(heading string) string {
	return strings.ReplaceAll(notAnchor.ReplaceAllString(strings.ToLower(heading), ""), " ", "-")
}
