package hook

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

type typedObj struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		Size int `json:"size"`
	} `json:"spec"`
}

// untypedObj does not carry its type: DecodeParent reads it separately.
type untypedObj struct {
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		Size int `json:"size"`
	} `json:"spec"`
}

// DecodeParent decodes the object once and reads its type from it; the
// answers must be those of checking the type first, whichever check fails.
func TestDecodeParentAnswers(t *testing.T) {
	cases := map[string]string{
		`{"apiVersion":"x/v1","kind":"A","metadata":{"name":"a","namespace":"n"},"spec":{"size":1}}`:     "",
		`{"apiVersion":"x/v1","kind":"B","metadata":{"name":"a","namespace":"n"},"spec":{"size":1}}`:     "parent is x/v1 B, this hook serves x/v1 A",
		`{"apiVersion":"x/v1","kind":"B","metadata":{"name":"a","namespace":"n"},"spec":{"size":"one"}}`: "parent is x/v1 B, this hook serves x/v1 A",
		`{"apiVersion":"x/v1","kind":"A","metadata":{"name":"a","namespace":"n"},"spec":{"size":"one"}}`: "parent A does not match its schema: field spec.size must be int",
		`{"apiVersion":"x/v1","kind":7,"metadata":{"name":"a","namespace":"n"}}`:                         "parent is not a Kubernetes object: field kind must be string",
		`{"metadata":{"name":"a","namespace":"n"}}`:                                                      "parent is an object without apiVersion and kind",
		`{"apiVersion":"x/v1","kind":"A","metadata":{"namespace":"n"}}`:                                  "parent A has no metadata.name",
		`[1]`: "parent is not a Kubernetes object",
	}
	for raw, want := range cases {
		for name, obj := range map[string]metav1.Object{"typed": &typedObj{}, "untyped": &untypedObj{}} {
			err := DecodeParent([]byte(raw), "x/v1", "A", obj)
			if want == "" {
				require.NoError(t, err, "%s %s", name, raw)
				assert.Equal(t, "a", obj.GetName())
				continue
			}
			if assert.Error(t, err, "%s %s", name, raw) {
				assert.Contains(t, err.Error(), want, "%s %s", name, raw)
				assert.True(t, IsInputError(err))
			}
		}
	}
}
