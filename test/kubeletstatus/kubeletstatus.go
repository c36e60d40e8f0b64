package kubeletstatus

import (
	"bytes"
	"embed"
	"fmt"
	"sort"
	"strings"
	"text/template"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

//go:embed statuses/*.yaml
var files embed.FS

// Pod is what a status names: the pod, its namespace and uid, its
// container (and init container) and image, when the pod was created (every time in the status
// is counted from it), and its QoS class (the API server sets it when the
// pod is created and refuses another; QOSClass computes it).
type Pod struct {
	Name, Namespace, UID string
	Container, Image     string
	// InitContainer is the init container of the statuses of a schema
	// Job's pod (job-*), which run one before Container.
	InitContainer string
	Created       time.Time
	QOSClass      corev1.PodQOSClass
}

// Node and pod addresses the statuses carry: a pod bound to a node has
// them; they mean nothing else here.
const (
	Node   = "worker-1"
	HostIP = "172.18.0.3"
	PodIP  = "10.244.1.17"
)

// Names lists the statuses, sorted.
func Names() []string {
	entries, _ := files.ReadDir("statuses")
	var out []string
	for _, e := range entries {
		out = append(out, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	sort.Strings(out)
	return out
}

// Status is the named status for p, as JSON-shaped maps (what a pod's
// .status holds).
func Status(name string, p Pod) (map[string]any, error) {
	raw, err := Render(name, p)
	if err != nil {
		return nil, err
	}
	var st map[string]any
	if err := yaml.Unmarshal(raw, &st); err != nil {
		return nil, fmt.Errorf("status %s: %w", name, err)
	}
	return st, nil
}

// Render is the named status for p as YAML.
func Render(name string, p Pod) ([]byte, error) {
	text, err := files.ReadFile("statuses/" + name + ".yaml")
	if err != nil {
		return nil, fmt.Errorf("no status %q", name)
	}
	tmpl, err := template.New(name).Option("missingkey=error").Funcs(template.FuncMap{
		// at is a time after the pod's creation: {{at "2s"}}.
		"at": func(after string) (string, error) {
			d, err := time.ParseDuration(after)
			if err != nil {
				return "", err
			}
			return p.Created.Add(d).UTC().Format(time.RFC3339), nil
		},
	}).Parse(string(text))
	if err != nil {
		return nil, fmt.Errorf("status %s: %w", name, err)
	}
	if p.QOSClass == "" {
		return nil, fmt.Errorf("status %s: the pod's QoS class is not given", name)
	}
	if p.InitContainer == "" && strings.Contains(string(text), ".InitContainer") {
		return nil, fmt.Errorf("status %s: the pod's init container is not given", name)
	}
	var out bytes.Buffer
	data := map[string]string{"QOSClass": string(p.QOSClass), "InitContainer": p.InitContainer, "Name": p.Name, "Namespace": p.Namespace, "UID": p.UID, "Container": p.Container,
		"Image": p.Image, "Node": Node, "HostIP": HostIP, "PodIP": PodIP}
	if err := tmpl.Execute(&out, data); err != nil {
		return nil, fmt.Errorf("status %s: %w", name, err)
	}
	return out.Bytes(), nil
}

// QOSClass is the QoS class the API server gives a pod with this spec:
// BestEffort without any request or limit, Guaranteed when every container
// limits CPU and memory and requests no other amount, Burstable otherwise.
func QOSClass(spec corev1.PodSpec) corev1.PodQOSClass {
	containers := append(append([]corev1.Container(nil), spec.InitContainers...), spec.Containers...)
	some, guaranteed := false, true
	for _, c := range containers {
		r := c.Resources
		if len(r.Requests) > 0 || len(r.Limits) > 0 {
			some = true
		}
		for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			limit, limited := r.Limits[name]
			request, requested := r.Requests[name]
			if !limited || (requested && request.Cmp(limit) != 0) {
				guaranteed = false
			}
		}
	}
	switch {
	case !some:
		return corev1.PodQOSBestEffort
	case guaranteed:
		return corev1.PodQOSGuaranteed
	}
	return corev1.PodQOSBurstable
}
