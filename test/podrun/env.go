package podrun

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// EnvVar is one variable of a container's environment.
type EnvVar struct{ Name, Value string }

// env is an ordered environment: a later Set of a name replaces its value
// where it first appeared.
type env struct {
	vars  []EnvVar
	index map[string]int
}

func (e *env) Set(name, value string) {
	if e.index == nil {
		e.index = map[string]int{}
	}
	if i, ok := e.index[name]; ok {
		e.vars[i].Value = value
		return
	}
	e.index[name] = len(e.vars)
	e.vars = append(e.vars, EnvVar{name, value})
}

func (e *env) Get(name string) (string, bool) {
	i, ok := e.index[name]
	if !ok {
		return "", false
	}
	return e.vars[i].Value, true
}

// ResolveEnv is the environment the kubelet gives a container: envFrom
// sources first (prefixed keys; keys that cannot be variable names are
// skipped), then env in order. A value's $(VAR) references see the
// variables defined before it. secretKeyRef and configMapKeyRef read objs; a
// missing object or key is an error unless the reference is optional, in
// which case the variable is not set. fieldRef and resourceFieldRef come
// from the pod and st.
func ResolveEnv(pod Pod, ctr *corev1.Container, objs *Objects, st Status) ([]EnvVar, error) {
	var e env
	for _, src := range ctr.EnvFrom {
		var data map[string][]byte
		var found bool
		var what string
		var optional *bool
		switch {
		case src.ConfigMapRef != nil:
			what, optional = "ConfigMap "+src.ConfigMapRef.Name, src.ConfigMapRef.Optional
			data, found = objs.configMap(pod.Namespace, src.ConfigMapRef.Name)
		case src.SecretRef != nil:
			what, optional = "Secret "+src.SecretRef.Name, src.SecretRef.Optional
			data, found = objs.secret(pod.Namespace, src.SecretRef.Name)
		default:
			return nil, fmt.Errorf("container %s: an envFrom source without configMapRef or secretRef", ctr.Name)
		}
		if !found {
			if isTrue(optional) {
				continue
			}
			return nil, fmt.Errorf("container %s: envFrom: %s not found in namespace %s", ctr.Name, what, pod.Namespace)
		}
		keys := make([]string, 0, len(data))
		for k := range data {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			name := src.Prefix + k
			if name == "" || strings.ContainsAny(name, "=\x00") {
				continue
			}
			e.Set(name, string(data[k]))
		}
	}
	for _, v := range ctr.Env {
		value, set, err := envValue(pod, ctr, objs, st, v, &e)
		if err != nil {
			return nil, fmt.Errorf("container %s: env %s: %w", ctr.Name, v.Name, err)
		}
		if set {
			if strings.ContainsRune(value, 0) {
				return nil, fmt.Errorf("container %s: env %s: the value holds a NUL byte, which no environment can carry", ctr.Name, v.Name)
			}
			e.Set(v.Name, value)
		}
	}
	return e.vars, nil
}

func envValue(pod Pod, ctr *corev1.Container, objs *Objects, st Status, v corev1.EnvVar, sofar *env) (string, bool, error) {
	if v.ValueFrom == nil {
		return Expand(v.Value, sofar.Get), true, nil
	}
	from := v.ValueFrom
	switch {
	case from.FieldRef != nil:
		val, err := fieldValue(pod, st, from.FieldRef.FieldPath, false)
		return val, err == nil, err
	case from.ResourceFieldRef != nil:
		val, err := resourceValue(pod, ctr.Name, from.ResourceFieldRef)
		return val, err == nil, err
	case from.ConfigMapKeyRef != nil:
		ref := from.ConfigMapKeyRef
		data, found := objs.configMap(pod.Namespace, ref.Name)
		return keyValue("ConfigMap", pod.Namespace, ref.Name, ref.Key, data, found, ref.Optional)
	case from.SecretKeyRef != nil:
		ref := from.SecretKeyRef
		data, found := objs.secret(pod.Namespace, ref.Name)
		return keyValue("Secret", pod.Namespace, ref.Name, ref.Key, data, found, ref.Optional)
	}
	return "", false, fmt.Errorf("valueFrom has no source podrun knows")
}

// keyValue reads one key; messages name the object and the key, never a
// value.
func keyValue(kind, namespace, name, key string, data map[string][]byte, found bool, optional *bool) (string, bool, error) {
	if !found {
		if isTrue(optional) {
			return "", false, nil
		}
		return "", false, fmt.Errorf("%s %s not found in namespace %s", kind, name, namespace)
	}
	val, ok := data[key]
	if !ok {
		if isTrue(optional) {
			return "", false, nil
		}
		return "", false, fmt.Errorf("%s %s has no key %s", kind, name, key)
	}
	return string(val), true, nil
}

func isTrue(b *bool) bool { return b != nil && *b }

// ExpandCommand is the command line the kubelet hands the runtime: command
// then args, each expanded with the container's resolved environment.
func ExpandCommand(ctr *corev1.Container, vars []EnvVar) []string {
	var e env
	for _, v := range vars {
		e.Set(v.Name, v.Value)
	}
	out := make([]string, 0, len(ctr.Command)+len(ctr.Args))
	for _, s := range ctr.Command {
		out = append(out, Expand(s, e.Get))
	}
	for _, s := range ctr.Args {
		out = append(out, Expand(s, e.Get))
	}
	return out
}
