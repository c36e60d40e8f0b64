package podrun

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Status is what the kubelet knows about a running pod beyond its spec,
// for downward-API fields.
type Status struct {
	PodIP, HostIP, NodeName string
}

// fieldValue is a downward-API fieldRef's value. Whole label and annotation
// maps (allowed only in volumes) are formatted as the kubelet writes them:
// key="value" lines, sorted by key.
func fieldValue(pod Pod, st Status, path string, inVolume bool) (string, error) {
	switch path {
	case "metadata.name":
		return pod.Name, nil
	case "metadata.namespace":
		return pod.Namespace, nil
	case "metadata.uid":
		return pod.UID, nil
	case "spec.nodeName":
		return st.NodeName, nil
	case "spec.serviceAccountName":
		sa := pod.Spec.ServiceAccountName
		if sa == "" {
			sa = "default"
		}
		return sa, nil
	case "status.podIP", "status.podIPs":
		return st.PodIP, nil
	case "status.hostIP", "status.hostIPs":
		return st.HostIP, nil
	case "metadata.labels", "metadata.annotations":
		if !inVolume {
			return "", fmt.Errorf("fieldRef %s is only allowed in a downwardAPI volume", path)
		}
		if path == "metadata.labels" {
			return formatMap(pod.Labels), nil
		}
		return formatMap(pod.Annotations), nil
	}
	for _, m := range []struct {
		prefix string
		values map[string]string
	}{{"metadata.labels", pod.Labels}, {"metadata.annotations", pod.Annotations}} {
		if key, ok := strings.CutPrefix(path, m.prefix+"['"); ok {
			if key, ok = strings.CutSuffix(key, "']"); ok {
				return m.values[key], nil
			}
		}
	}
	return "", fmt.Errorf("fieldRef %q is not a field the downward API offers", path)
}

func formatMap(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	lines := make([]string, len(keys))
	for i, k := range keys {
		lines[i] = k + "=" + strconv.Quote(m[k])
	}
	return strings.Join(lines, "\n")
}

// resourceValue is a resourceFieldRef's value: the container's limit or
// request, divided by the divisor and rounded up. An unset limit is this
// machine's capacity, as it is the node's allocatable for the kubelet.
func resourceValue(pod Pod, defaultContainer string, ref *corev1.ResourceFieldSelector) (string, error) {
	name := ref.ContainerName
	if name == "" {
		name = defaultContainer
	}
	ctr := podContainer(pod, name)
	if ctr == nil {
		return "", fmt.Errorf("resourceFieldRef: no container %q", name)
	}
	kind, res, ok := strings.Cut(ref.Resource, ".")
	if !ok || (kind != "limits" && kind != "requests") {
		return "", fmt.Errorf("resourceFieldRef: unsupported resource %q", ref.Resource)
	}
	q, err := resourceQuantity(ctr, kind, res)
	if err != nil {
		return "", err
	}
	divisor := ref.Divisor
	if divisor.IsZero() {
		divisor = resource.MustParse("1")
	}
	if res == "cpu" {
		return strconv.FormatInt(int64(math.Ceil(float64(q.MilliValue())/float64(divisor.MilliValue()))), 10), nil
	}
	return strconv.FormatInt(int64(math.Ceil(float64(q.Value())/float64(divisor.Value()))), 10), nil
}

// podContainer is the container or init container of that name, nil if
// the pod has none.
func podContainer(pod Pod, name string) *corev1.Container {
	var ctr *corev1.Container
	for _, list := range [][]corev1.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
		for i := range list {
			if list[i].Name == name {
				ctr = &list[i]
			}
		}
	}
	return ctr
}

// resourceQuantity is the container's limit or request (kind) of res, as
// the kubelet fills in what is unset.
func resourceQuantity(ctr *corev1.Container, kind, res string) (resource.Quantity, error) {
	list := ctr.Resources.Limits
	if kind == "requests" {
		list = ctr.Resources.Requests
	}
	q, set := list[corev1.ResourceName(res)]
	if !set && kind == "requests" {
		// An unset request defaults to the limit, and without one to 0.
		q, set = ctr.Resources.Limits[corev1.ResourceName(res)]
		if !set {
			q, set = resource.Quantity{}, true
		}
	}
	if !set {
		return capacity(res)
	}
	return q, nil
}

func capacity(res string) (resource.Quantity, error) {
	switch res {
	case "cpu":
		return *resource.NewQuantity(int64(runtime.NumCPU()), resource.DecimalSI), nil
	case "memory":
		f, err := os.Open("/proc/meminfo")
		if err != nil {
			return resource.Quantity{}, err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
				kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
				if err != nil {
					return resource.Quantity{}, err
				}
				return *resource.NewQuantity(kb*1024, resource.BinarySI), nil
			}
		}
		return resource.Quantity{}, fmt.Errorf("no MemTotal in /proc/meminfo")
	}
	return resource.Quantity{}, fmt.Errorf("resourceFieldRef: no capacity known here for %q", res)
}
