package podrun

import (
	"encoding/json"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// Objects are the ConfigMaps and Secrets a pod's env and volumes are read
// from, as the kubelet reads them from the API server.
type Objects struct {
	configMaps map[objectKey]*corev1.ConfigMap
	secrets    map[objectKey]*corev1.Secret
}

type objectKey struct{ namespace, name string }

// NewObjects collects ConfigMaps and Secrets. Each argument is one object
// (*corev1.ConfigMap, corev1.ConfigMap, *corev1.Secret, corev1.Secret, or a
// JSON-shaped map[string]any such as simulate/chain's objects) or a
// slice of maps ([]map[string]any, e.g. World.Objects()). Objects of other
// kinds are ignored, so a whole rendered set can be passed.
func NewObjects(objs ...any) (*Objects, error) {
	o := &Objects{configMaps: map[objectKey]*corev1.ConfigMap{}, secrets: map[objectKey]*corev1.Secret{}}
	for _, obj := range objs {
		if err := o.Add(obj); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// ObjectsOf is NewObjects failing the test on an error.
func ObjectsOf(t testing.TB, objs ...any) *Objects {
	t.Helper()
	o, err := NewObjects(objs...)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// Add adds objects as NewObjects takes them; a later object of the same
// kind, namespace and name replaces an earlier one.
func (o *Objects) Add(obj any) error {
	switch v := obj.(type) {
	case *corev1.ConfigMap:
		c := v.DeepCopy()
		o.configMaps[objectKey{c.Namespace, c.Name}] = c
	case corev1.ConfigMap:
		return o.Add(&v)
	case *corev1.Secret:
		o.addSecret(v)
	case corev1.Secret:
		return o.Add(&v)
	case []map[string]any:
		for _, m := range v {
			if err := o.Add(m); err != nil {
				return err
			}
		}
	case map[string]any:
		return o.addJSON(v)
	default:
		return fmt.Errorf("podrun: cannot read %T as a ConfigMap or Secret", obj)
	}
	return nil
}

func (o *Objects) addSecret(v *corev1.Secret) {
	s := v.DeepCopy()
	// The API server folds stringData into data; so does this.
	for k, val := range s.StringData {
		if s.Data == nil {
			s.Data = map[string][]byte{}
		}
		s.Data[k] = []byte(val)
	}
	s.StringData = nil
	o.secrets[objectKey{s.Namespace, s.Name}] = s
}

// addJSON adds a JSON-shaped object if it is a ConfigMap or a Secret.
func (o *Objects) addJSON(v map[string]any) error {
	kind, _ := v["kind"].(string)
	if api, _ := v["apiVersion"].(string); api != "v1" || (kind != "ConfigMap" && kind != "Secret") {
		return nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if kind == "ConfigMap" {
		var c corev1.ConfigMap
		if err := json.Unmarshal(raw, &c); err != nil {
			return fmt.Errorf("reading a ConfigMap: %w", err)
		}
		return o.Add(&c)
	}
	var s corev1.Secret
	if err := json.Unmarshal(raw, &s); err != nil {
		return fmt.Errorf("reading a Secret: %w", err)
	}
	return o.Add(&s)
}

// configMap returns a ConfigMap's keys (data and binaryData) and whether it
// exists.
func (o *Objects) configMap(namespace, name string) (map[string][]byte, bool) {
	c, ok := o.configMaps[objectKey{namespace, name}]
	if !ok {
		return nil, false
	}
	out := make(map[string][]byte, len(c.Data)+len(c.BinaryData))
	for k, v := range c.Data {
		out[k] = []byte(v)
	}
	for k, v := range c.BinaryData {
		out[k] = v
	}
	return out, true
}

// secret returns a Secret's data and whether it exists.
func (o *Objects) secret(namespace, name string) (map[string][]byte, bool) {
	s, ok := o.secrets[objectKey{namespace, name}]
	if !ok {
		return nil, false
	}
	return s.Data, true
}
