package podrun

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func ptr[T any](v T) *T { return &v }

func testObjects(t *testing.T) *Objects {
	return ObjectsOf(t,
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "settings", Namespace: "openstack"},
			Data: map[string]string{"workers": "2", "bad=name": "x", "LOG": "debug"}},
		// A Secret as simulate/chain holds it: a JSON-shaped map
		// with base64 data.
		map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "glance-db", "namespace": "openstack"},
			"data": map[string]any{"username": "Z2xhbmNl", "password": "cEBzczp3L28lcmQ="}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "other-ns", Namespace: "elsewhere"}, StringData: map[string]string{"k": "v"}},
	)
}

func testPod() Pod {
	return Pod{Name: "glance-abc-x1", Namespace: "openstack", UID: "u-1",
		Labels: map[string]string{"app": "glance"}, Annotations: map[string]string{"note": "a \"quoted\" value"}}
}

var testStatus = Status{PodIP: "127.20.0.7", HostIP: "127.0.0.1", NodeName: "localhost"}

func TestResolveEnvReadsEverySourceInOrder(t *testing.T) {
	ctr := &corev1.Container{
		Name: "api",
		EnvFrom: []corev1.EnvFromSource{
			{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "settings"}}, Prefix: "CFG_"},
			{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "absent"}, Optional: ptr(true)}},
		},
		Env: []corev1.EnvVar{
			{Name: "DB_USER", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "glance-db"}, Key: "username"}}},
			{Name: "DB_PASSWORD", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "glance-db"}, Key: "password"}}},
			{Name: "URL", Value: "mysql://$(DB_USER)@$(DB_HOST)/$(LATER)"},
			{Name: "DB_HOST", Value: "db"},
			{Name: "LATER", Value: "x"},
			{Name: "ESCAPED", Value: "$$(DB_USER) costs $5"},
			{Name: "WORKERS", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "settings"}, Key: "workers"}}},
			{Name: "NO_KEY", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "settings"}, Key: "nope", Optional: ptr(true)}}},
			{Name: "NO_SECRET", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "nope"}, Key: "k", Optional: ptr(true)}}},
			{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
			{Name: "POD_NAMESPACE", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace"}}},
			{Name: "POD_IP", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.podIP"}}},
			{Name: "NODE", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "spec.nodeName"}}},
			{Name: "APP", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.labels['app']"}}},
			{Name: "MEM_MI", ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{Resource: "limits.memory", Divisor: resource.MustParse("1Mi")}}},
			{Name: "CPU_REQ", ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{Resource: "requests.cpu"}}},
			{Name: "CFG_workers", Value: "overridden by env"},
		},
		Resources: corev1.ResourceRequirements{
			Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("300Mi")},
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m")},
		},
	}
	pod := testPod()
	pod.Spec.Containers = []corev1.Container{*ctr}
	got, err := ResolveEnv(pod, ctr, testObjects(t), testStatus)
	require.NoError(t, err)
	assert.Equal(t, []EnvVar{
		// envFrom first, sorted by key, prefixed; "bad=name" cannot be a name.
		{"CFG_LOG", "debug"},
		{"CFG_workers", "overridden by env"},
		{"DB_USER", "glance"},
		{"DB_PASSWORD", "p@ss:w/o%rd"},
		// Only variables defined before a value are expanded in it.
		{"URL", "mysql://glance@$(DB_HOST)/$(LATER)"},
		{"DB_HOST", "db"},
		{"LATER", "x"},
		{"ESCAPED", "$(DB_USER) costs $5"},
		{"WORKERS", "2"},
		{"POD_NAME", "glance-abc-x1"},
		{"POD_NAMESPACE", "openstack"},
		{"POD_IP", "127.20.0.7"},
		{"NODE", "localhost"},
		{"APP", "glance"},
		{"MEM_MI", "300"},
		{"CPU_REQ", "1"}, // 250m rounded up to whole cores
	}, got)

	ctr.Command = []string{"glance-api"}
	ctr.Args = []string{"--bind=$(POD_IP)", "$(UNKNOWN)", "$$(POD_IP)"}
	assert.Equal(t, []string{"glance-api", "--bind=127.20.0.7", "$(UNKNOWN)", "$(POD_IP)"}, ExpandCommand(ctr, got))
}

func TestResolveEnvNamesWhatIsMissingNeverAValue(t *testing.T) {
	objs := testObjects(t)
	ref := func(kind, name, key string) corev1.EnvVar {
		v := corev1.EnvVar{Name: "X", ValueFrom: &corev1.EnvVarSource{}}
		if kind == "Secret" {
			v.ValueFrom.SecretKeyRef = &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: name}, Key: key}
		} else {
			v.ValueFrom.ConfigMapKeyRef = &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: name}, Key: key}
		}
		return v
	}
	cases := map[string]struct {
		env  []corev1.EnvVar
		from []corev1.EnvFromSource
		want string
	}{
		"missing Secret":           {env: []corev1.EnvVar{ref("Secret", "glance-db-x", "password")}, want: "container api: env X: Secret glance-db-x not found in namespace openstack"},
		"missing Secret key":       {env: []corev1.EnvVar{ref("Secret", "glance-db", "connection")}, want: "container api: env X: Secret glance-db has no key connection"},
		"Secret of another ns":     {env: []corev1.EnvVar{ref("Secret", "other-ns", "k")}, want: "Secret other-ns not found in namespace openstack"},
		"missing ConfigMap key":    {env: []corev1.EnvVar{ref("ConfigMap", "settings", "threads")}, want: "ConfigMap settings has no key threads"},
		"unknown field":            {env: []corev1.EnvVar{{Name: "X", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "spec.hostname"}}}}, want: `fieldRef "spec.hostname" is not a field`},
		"labels only in a volume":  {env: []corev1.EnvVar{{Name: "X", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.labels"}}}}, want: "only allowed in a downwardAPI volume"},
		"missing envFrom Secret":   {from: []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "gone"}}}}, want: "envFrom: Secret gone not found"},
		"resource of no container": {env: []corev1.EnvVar{{Name: "X", ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{ContainerName: "other", Resource: "limits.cpu"}}}}, want: `no container "other"`},
	}
	for name, c := range cases {
		ctr := &corev1.Container{Name: "api", Env: c.env, EnvFrom: c.from}
		pod := testPod()
		pod.Spec.Containers = []corev1.Container{*ctr}
		_, err := ResolveEnv(pod, ctr, objs, testStatus)
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), c.want, name)
		assert.NotContains(t, err.Error(), "p@ss", name)
	}
}

func TestPodOfNamesPodsAsControllersDo(t *testing.T) {
	d := map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "glance", "namespace": "openstack"},
		"spec": map[string]any{"template": map[string]any{
			"metadata": map[string]any{"labels": map[string]any{"app": "glance"}},
			"spec":     map[string]any{"containers": []any{map[string]any{"name": "api", "image": "x"}}},
		}}}
	p, err := PodOf(d)
	require.NoError(t, err)
	assert.Regexp(t, `^glance-[0-9a-f]{10}-[a-z2-7]{5}$`, p.Name)
	assert.Equal(t, "openstack", p.Namespace)
	assert.Equal(t, "glance", p.Labels["app"])
	assert.Equal(t, "api", p.Spec.Containers[0].Name)

	j := map[string]any{"apiVersion": "batch/v1", "kind": "Job", "metadata": map[string]any{"name": "db-sync", "namespace": "openstack"},
		"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"containers": []any{map[string]any{"name": "sync"}}}}}}
	p, err = PodOf(j)
	require.NoError(t, err)
	assert.Regexp(t, `^db-sync-[a-z2-7]{5}$`, p.Name)
	assert.Equal(t, "db-sync", p.Labels["job-name"])

	_, err = PodOf(map[string]any{"apiVersion": "v1", "kind": "Service"})
	assert.ErrorContains(t, err, `no pod template in a "Service"`)
}
