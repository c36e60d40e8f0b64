package kubeletstatus

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"
)

// Every status is a corev1.PodStatus field for field (no misspelt key) and
// carries the pod's names and times.
func TestStatusesAreCoreV1PodStatuses(t *testing.T) {
	created := time.Date(2025, 12, 31, 23, 50, 0, 0, time.UTC)
	p := Pod{Name: "glance-5d8f-abcde", Namespace: "openstack", UID: "0f3b6f3e-7f3c-4a5e-9a51-0d1f0a2b3c4d",
		Container: "glance-api", Image: "ghcr.io/c5c3/glance:2025.2", Created: created, QOSClass: corev1.PodQOSBurstable, InitContainer: "db-sync"}
	require.NotEmpty(t, Names())
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			raw, err := Render(name, p)
			require.NoError(t, err)
			var st corev1.PodStatus
			require.NoError(t, yaml.UnmarshalStrict(raw, &st))
			assert.NotEmpty(t, st.Phase)
			assert.NotEmpty(t, st.Conditions)
			for _, c := range st.Conditions {
				assert.False(t, c.LastTransitionTime.Time.Before(created), "%s: times count from the pod's creation", c.Type)
			}
			for _, cs := range st.ContainerStatuses {
				assert.Equal(t, p.Container, cs.Name)
				assert.Equal(t, p.Image, cs.Image)
			}
			for _, cs := range st.InitContainerStatuses {
				assert.Equal(t, p.InitContainer, cs.Name)
			}
			m, err := Status(name, p)
			require.NoError(t, err)
			assert.Equal(t, string(st.Phase), m["phase"])
		})
	}
	raw, err := Render("crash-loop-backoff", p)
	require.NoError(t, err)
	assert.Contains(t, string(raw), "pod=glance-5d8f-abcde_openstack(0f3b6f3e-7f3c-4a5e-9a51-0d1f0a2b3c4d)")
	p.InitContainer = ""
	_, err = Render("job-failed", p)
	assert.ErrorContains(t, err, "init container")
	p.QOSClass = ""
	_, err = Render("ready", p)
	assert.ErrorContains(t, err, "QoS class")
	_, err = Render("no-such-status", p)
	assert.ErrorContains(t, err, `no status "no-such-status"`)
	assert.False(t, strings.Contains(strings.Join(Names(), " "), ".yaml"))
}

func TestQOSClass(t *testing.T) {
	res := func(requests, limits corev1.ResourceList) corev1.PodSpec {
		return corev1.PodSpec{Containers: []corev1.Container{{Resources: corev1.ResourceRequirements{Requests: requests, Limits: limits}}}}
	}
	q := resource.MustParse
	cases := map[string]struct {
		spec corev1.PodSpec
		want corev1.PodQOSClass
	}{
		"nothing":             {res(nil, nil), corev1.PodQOSBestEffort},
		"requests only":       {res(corev1.ResourceList{"cpu": q("100m")}, nil), corev1.PodQOSBurstable},
		"memory limit only":   {res(nil, corev1.ResourceList{"memory": q("1Gi")}), corev1.PodQOSBurstable},
		"limits only":         {res(nil, corev1.ResourceList{"cpu": q("1"), "memory": q("1Gi")}), corev1.PodQOSGuaranteed},
		"requests are limits": {res(corev1.ResourceList{"cpu": q("1"), "memory": q("1024Mi")}, corev1.ResourceList{"cpu": q("1000m"), "memory": q("1Gi")}), corev1.PodQOSGuaranteed},
		"requests below":      {res(corev1.ResourceList{"cpu": q("500m")}, corev1.ResourceList{"cpu": q("1"), "memory": q("1Gi")}), corev1.PodQOSBurstable},
	}
	for name, tc := range cases {
		assert.Equal(t, tc.want, QOSClass(tc.spec), name)
	}
}
