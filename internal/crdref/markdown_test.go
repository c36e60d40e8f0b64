package crdref

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// tiny is a CRD with one of each thing a table shows: a required field, a
// default, an enum, a pattern with a '|', bounds, a list of objects, a map,
// a description with '<' and a line break, and CEL rules on a type, on a
// field without a table and without a message.
const tiny = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
spec:
  group: example.org
  names: {kind: Widget}
  versions:
    - name: v1beta1
      served: true
      storage: false
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              description: What the widget
                is.
              required: [size]
              x-kubernetes-validations:
                - rule: "!has(self.mode) || self.size > 1"
                  message: a mode needs a size above 1
              properties:
                size: {type: integer, format: int32, minimum: 1, maximum: 9, description: "Size, in <units>."}
                mode: {type: string, enum: [Fast, Slow], default: Fast}
                name:
                  type: string
                  pattern: "^(a|b)$"
                  x-kubernetes-validations:
                    - rule: self != 'b'
                labels:
                  type: object
                  maxProperties: 4
                  additionalProperties: {type: string, maxLength: 8}
                parts:
                  type: array
                  maxItems: 2
                  items:
                    type: object
                    properties:
                      id: {type: string}
                quantity: {x-kubernetes-int-or-string: true, anyOf: [{type: integer}, {type: string}]}
`

func TestPageOfATinyCRD(t *testing.T) {
	got, kind, err := Page("widgets.yaml", []byte(tiny))
	require.NoError(t, err)
	require.Equal(t, "Widget", kind)
	want := "# Widget field reference\n\n" +
		"<!-- Generated from schemas/widgets.yaml by `go run ./hack/crdref`; do not edit. -->\n\n" +
		"The fields of `Widget` (`example.org/v1`) as the CRD declares them, one table per object type, as `kubectl explain` shows them. " +
		"Fields are sorted by name; a type's nested types follow it, depth first. In a path, `[]` is an item of a list and `{}` a value of a map. " +
		"Admission checks more than the CRD does: see [Admission rules](../admission.md).\n" +
		"\n## `Widget`\n\n" +
		"| Field | Type | Required | Default | Description |\n|---|---|---|---|---|\n" +
		"| `spec` | [object](#widgetspec) |  |  | What the widget is. |\n" +
		"\n## `Widget.spec`\n\n" +
		"What the widget is.\n\n" +
		"| Field | Type | Required | Default | Description |\n|---|---|---|---|---|\n" +
		"| `labels` | map[string]string; entries ≤ 4; each: length ≤ 8 |  |  |  |\n" +
		"| `mode` | string; one of `Fast`, `Slow` |  | `\"Fast\"` |  |\n" +
		"| `name` | string; pattern `^(a\\|b)$` |  |  |  |\n" +
		"| `parts` | [[]object](#widgetspecparts); items ≤ 2 |  |  |  |\n" +
		"| `quantity` | int-or-string |  |  |  |\n" +
		"| `size` | integer (int32); ≥ 1; ≤ 9 | yes |  | Size, in &lt;units&gt;. |\n" +
		"\nRules:\n\n" +
		"- a mode needs a size above 1\n" +
		"- `name`: `self != 'b'`\n" +
		"\n## `Widget.spec.parts[]`\n\n" +
		"| Field | Type | Required | Default | Description |\n|---|---|---|---|---|\n" +
		"| `id` | string |  |  |  |\n"
	require.Empty(t, cmp.Diff(want, string(got)), "the page of the tiny CRD")
}

func TestCRDsWithoutAReference(t *testing.T) {
	cases := map[string]struct {
		reason, yaml, err string
	}{
		"no kind":           {"a page needs a kind", "spec: {versions: [{name: v1, storage: true}]}", "names no kind"},
		"no storage schema": {"only the storage version is shown", "spec: {names: {kind: W}, versions: [{name: v1, served: true}]}", "no storage version"},
		"not YAML":          {"", "spec: [", "reading the CRD"},
	}
	for name, tc := range cases {
		_, _, err := Page("x.yaml", []byte(tc.yaml))
		require.ErrorContains(t, err, tc.err, "%s: %s", name, tc.reason)
	}
}

func TestCode(t *testing.T) {
	require.Equal(t, "`a\\|b`", code("a|b"), "a '|' would end the cell")
	require.Equal(t, "``a`b``", code("a`b"), "a longer fence around a backtick")
	require.Equal(t, "`` `a ``", code("`a"), "a space between a fence and a backtick it holds")
}
