package crdref

import (
	"fmt"
	"strings"

	"github.com/c5c3/glance-hooks/schemas"
)

// Dir is where the pages go, relative to the repository's root.
const Dir = "docs/reference"

// Pages renders the reference page of every CRD in schemas/, by file
// name: <kind>.md, the kind in lowercase.
func Pages() (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, name := range schemas.Names() {
		raw, err := schemas.Read(name)
		if err != nil {
			return nil, err
		}
		page, kind, err := Page(name, raw)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out[strings.ToLower(kind)+".md"] = page
	}
	return out, nil
}

// Page renders one CRD's page, of its storage version, and names its kind.
func Page(source string, raw []byte) ([]byte, string, error) {
	c, version, root, err := ParseCRD(raw)
	if err != nil {
		return nil, "", err
	}
	h := Header{Kind: c.Spec.Names.Kind, Group: c.Spec.Group, Version: version, Source: source}
	return Markdown(h, Types(root)), h.Kind, nil
}
