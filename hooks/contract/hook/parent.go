package hook

import (
	"bytes"
	"encoding/json"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/c5c3/glance-hooks/hooks/contract/excerpt"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
)

// DecodeParent decodes a hook's parent into obj and checks it is the kind
// the hook serves and has a name and namespace. Every failure is an InputError
// whose message names the problem but not the body.
func DecodeParent(raw json.RawMessage, apiVersion, kind string, obj metav1.Object) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return Invalid("request has no parent: expected a %s %s", apiVersion, kind)
	}
	// The object is decoded once, and its type read from the decoded
	// object: a parent is decoded on every call, and a second pass over it
	// only for its type would cost as much again. Only when that decode
	// fails (or obj does not carry its type) is the type decoded on its own,
	// to tell a parent of the wrong kind or no Kubernetes object at all from
	// a malformed one of the right kind.
	objErr := metacontroller.DecodeObject(raw, obj)
	tm, typed := typeOf(obj)
	if objErr != nil || !typed {
		tm = metav1.TypeMeta{}
		if err := json.Unmarshal(raw, &tm); err != nil {
			return Invalid("parent is not a Kubernetes object: %s", DescribeJSONError(err))
		}
	}
	if tm.APIVersion != apiVersion || tm.Kind != kind {
		return Invalid("parent is %s, this hook serves %s", describeGVK(tm), apiVersion+" "+kind)
	}
	if objErr != nil {
		return Invalid("parent %s does not match its schema: %s", kind, DescribeJSONError(objErr))
	}
	if obj.GetName() == "" {
		return Invalid("parent %s has no metadata.name", kind)
	}
	if errs := validation.IsDNS1123Subdomain(obj.GetName()); len(errs) > 0 {
		return Invalid("parent %s metadata.name is not a valid object name: %s", kind, errs[0])
	}
	if obj.GetNamespace() == "" {
		return Invalid("parent %s %q has no metadata.namespace", kind, obj.GetName())
	}
	if errs := validation.IsDNS1123Label(obj.GetNamespace()); len(errs) > 0 {
		return Invalid("parent %s %q metadata.namespace is not a valid namespace: %s", kind, obj.GetName(), errs[0])
	}
	return nil
}

// typeOf reads the type of a decoded object that embeds metav1.TypeMeta.
func typeOf(obj metav1.Object) (metav1.TypeMeta, bool) {
	if o, ok := obj.(interface{ GetObjectKind() schema.ObjectKind }); ok {
		if tm, ok := o.GetObjectKind().(*metav1.TypeMeta); ok && tm != nil {
			return *tm, true
		}
	}
	return metav1.TypeMeta{}, false
}

// describeGVK names what a parent says it is, each part a short excerpt:
// both come from the request.
func describeGVK(tm metav1.TypeMeta) string {
	if tm.APIVersion == "" && tm.Kind == "" {
		return "an object without apiVersion and kind"
	}
	return strings.TrimSpace(excerpt.Token(tm.APIVersion, excerpt.MaxKind) + " " + excerpt.Token(tm.Kind, excerpt.MaxKind))
}

// DescribeJSONError says where and why JSON decoding failed without
// quoting the input (see excerpt.JSONError).
func DescribeJSONError(err error) string { return excerpt.JSONError(err) }
