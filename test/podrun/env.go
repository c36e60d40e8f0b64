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
	r := envResolver{pod: pod, ctr: ctr, objs: objs, st: st}
	var e env
	if err := r.envFrom(&e); err != nil {
		return nil, err
	}
	for _, v := range ctr.Env {
		value, set, err := r.value(v, &e)
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

// envResolver is where a container's variables come from: its pod, the
// objects the pod reads and what the kubelet knows of the running pod.
type envResolver struct {
	pod  Pod
	ctr  *corev1.Container
	objs *Objects
	st   Status
}

// envFrom sets the variables of the container's envFrom sources, each
// object's keys in sorted order.
func (r envResolver) envFrom(e *env) error {
	for _, src := range r.ctr.EnvFrom {
		ref, ok := envFromRef(r.pod.Namespace, src)
		if !ok {
			return fmt.Errorf("container %s: an envFrom source without configMapRef or secretRef", r.ctr.Name)
		}
		data, _, err := ref.read(r.objs)
		if err != nil {
			return fmt.Errorf("container %s: envFrom: %w", r.ctr.Name, err)
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
	return nil
}

func envFromRef(namespace string, src corev1.EnvFromSource) (objectRef, bool) {
	switch {
	case src.ConfigMapRef != nil:
		return objectRef{"ConfigMap", namespace, src.ConfigMapRef.Name, src.ConfigMapRef.Optional}, true
	case src.SecretRef != nil:
		return objectRef{"Secret", namespace, src.SecretRef.Name, src.SecretRef.Optional}, true
	}
	return objectRef{}, false
}

// value is one env entry's value, and whether the variable is set at all.
func (r envResolver) value(v corev1.EnvVar, sofar *env) (string, bool, error) {
	if v.ValueFrom == nil {
		return Expand(v.Value, sofar.Get), true, nil
	}
	from := v.ValueFrom
	switch {
	case from.FieldRef != nil:
		val, err := fieldValue(r.pod, r.st, from.FieldRef.FieldPath, false)
		return val, err == nil, err
	case from.ResourceFieldRef != nil:
		val, err := resourceValue(r.pod, r.ctr.Name, from.ResourceFieldRef)
		return val, err == nil, err
	case from.ConfigMapKeyRef != nil:
		ref := from.ConfigMapKeyRef
		return keyValue(objectRef{"ConfigMap", r.pod.Namespace, ref.Name, ref.Optional}, ref.Key, r.objs)
	case from.SecretKeyRef != nil:
		ref := from.SecretKeyRef
		return keyValue(objectRef{"Secret", r.pod.Namespace, ref.Name, ref.Optional}, ref.Key, r.objs)
	}
	return "", false, fmt.Errorf("valueFrom has no source podrun knows")
}

// objectRef names a ConfigMap or Secret a pod reads, and whether the pod
// may go without it.
type objectRef struct {
	kind, namespace, name string
	optional              *bool
}

// read returns the object's keys and whether it exists. A missing object
// is an error unless the reference is optional.
func (r objectRef) read(objs *Objects) (map[string][]byte, bool, error) {
	var data map[string][]byte
	var found bool
	if r.kind == "Secret" {
		data, found = objs.secret(r.namespace, r.name)
	} else {
		data, found = objs.configMap(r.namespace, r.name)
	}
	if !found && !isTrue(r.optional) {
		return nil, false, fmt.Errorf("%s %s not found in namespace %s", r.kind, r.name, r.namespace)
	}
	return data, found, nil
}

// keyValue reads one key; messages name the object and the key, never a
// value.
func keyValue(ref objectRef, key string, objs *Objects) (string, bool, error) {
	data, found, err := ref.read(objs)
	if err != nil || !found {
		return "", false, err
	}
	val, ok, err := ref.key(data, key)
	return string(val), ok, err
}

// key is one key of the object's data and whether it is there. A missing
// key is an error unless the reference is optional.
func (r objectRef) key(data map[string][]byte, key string) ([]byte, bool, error) {
	val, ok := data[key]
	if !ok && !isTrue(r.optional) {
		return nil, false, fmt.Errorf("%s %s has no key %s", r.kind, r.name, key)
	}
	return val, ok, nil
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
