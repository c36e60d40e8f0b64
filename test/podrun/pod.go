package podrun

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// Pod is what the kubelet gets: a pod's identity and its spec.
type Pod struct {
	Name, Namespace, UID string
	Labels, Annotations  map[string]string
	Spec                 corev1.PodSpec
}

// PodOf makes the pod a controller would create from a Deployment,
// ReplicaSet, StatefulSet, DaemonSet or Job (its pod template), or takes a
// Pod as it is. obj is a typed object (pointer or value) or a JSON-shaped
// map. Names follow the controllers' patterns: <deployment>-<template
// hash>-<random>, <job>-<random>, <statefulset>-0.
func PodOf(obj any) (Pod, error) {
	if m, ok := obj.(map[string]any); ok {
		return podOfMap(m)
	}
	switch v := obj.(type) {
	case *appsv1.Deployment:
		return fromTemplate(v.Namespace, v.Name+"-"+templateHash(v.Spec.Template)+"-"+suffix(), v.Spec.Template), nil
	case *appsv1.ReplicaSet:
		return fromTemplate(v.Namespace, v.Name+"-"+suffix(), v.Spec.Template), nil
	case *appsv1.StatefulSet:
		return fromTemplate(v.Namespace, v.Name+"-0", v.Spec.Template), nil
	case *appsv1.DaemonSet:
		return fromTemplate(v.Namespace, v.Name+"-"+suffix(), v.Spec.Template), nil
	case *batchv1.Job:
		p := fromTemplate(v.Namespace, v.Name+"-"+suffix(), v.Spec.Template)
		p.Labels["job-name"] = v.Name
		p.Labels["batch.kubernetes.io/job-name"] = v.Name
		return p, nil
	case *corev1.Pod:
		return Pod{Name: v.Name, Namespace: v.Namespace, UID: uid(v.Namespace, v.Name),
			Labels: copyMap(v.Labels), Annotations: copyMap(v.Annotations), Spec: *v.Spec.DeepCopy()}, nil
	case appsv1.Deployment:
		return PodOf(&v)
	case batchv1.Job:
		return PodOf(&v)
	case corev1.Pod:
		return PodOf(&v)
	}
	return Pod{}, fmt.Errorf("podrun: no pod template in %T", obj)
}

// MustPodOf is PodOf failing the test on an error.
func MustPodOf(t testing.TB, obj any) Pod {
	t.Helper()
	p, err := PodOf(obj)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func podOfMap(m map[string]any) (Pod, error) {
	raw, err := json.Marshal(m)
	if err != nil {
		return Pod{}, err
	}
	kind, _ := m["kind"].(string)
	var typed any
	switch kind {
	case "Deployment":
		typed = &appsv1.Deployment{}
	case "ReplicaSet":
		typed = &appsv1.ReplicaSet{}
	case "StatefulSet":
		typed = &appsv1.StatefulSet{}
	case "DaemonSet":
		typed = &appsv1.DaemonSet{}
	case "Job":
		typed = &batchv1.Job{}
	case "Pod":
		typed = &corev1.Pod{}
	default:
		return Pod{}, fmt.Errorf("podrun: no pod template in a %q", kind)
	}
	if err := json.Unmarshal(raw, typed); err != nil {
		return Pod{}, fmt.Errorf("podrun: %s: %w", kind, err)
	}
	return PodOf(typed)
}

func fromTemplate(namespace, name string, tpl corev1.PodTemplateSpec) Pod {
	labels := copyMap(tpl.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	return Pod{Name: name, Namespace: namespace, UID: uid(namespace, name), Labels: labels,
		Annotations: copyMap(tpl.Annotations), Spec: *tpl.Spec.DeepCopy()}
}

// templateHash stands for the pod-template-hash label: it changes with the
// template, as the Deployment controller's does.
func templateHash(tpl corev1.PodTemplateSpec) string {
	raw, _ := json.Marshal(tpl)
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:])[:10]
}

func suffix() string { return strings.ToLower(rand.Text()[:5]) }

// uid is a UUID-shaped identifier derived from the name, so a pod's uid is
// stable for its name.
func uid(namespace, name string) string {
	s := sha256.Sum256([]byte(namespace + "/" + name))
	h := hex.EncodeToString(s[:16])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

func copyMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
