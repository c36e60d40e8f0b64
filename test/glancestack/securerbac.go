package glancestack

import (
	"regexp"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/glance"
	"github.com/c5c3/glance-hooks/test/podrun"
)

// Debian's glance 25 (Zed) has an option the releases the hooks render for
// no longer have: [DEFAULT] enforce_secure_rbac, which must equal [oslo_policy]
// enforce_new_defaults or glance-api exits at start. The hooks render
// enforce_new_defaults for 2024.1 on; a stack runs that config on Zed, so a
// pod it starts gets the Zed switch set to the same value, through
// oslo.config's environment source, as Zed's own packaging would set it. A
// glance that no longer has the option is left alone.

// hasSecureRBACSwitch tells whether glance has [DEFAULT]
// enforce_secure_rbac (Xena to Zed, glance 23 to 25).
func (v Versions) hasSecureRBACSwitch() bool { return !atLeast(v.Glance, 26, 0) }

var enforceNewDefaults = regexp.MustCompile(`(?m)^enforce_new_defaults = (true|false)$`)

// matchSecureRBACSwitch sets OS_DEFAULT__ENFORCE_SECURE_RBAC on the
// glance-api container to the enforce_new_defaults of the config it mounts.
func (s *Stack) matchSecureRBACSwitch(t testing.TB, pod *podrun.Pod, root string) {
	t.Helper()
	v := s.Versions
	if root != s.podOpts.Root {
		v = VersionsIn(t, root)
	}
	matchSecureRBACSwitch(t, v, pod, func(configMap string) string { return s.ConfigMapData(t, configMap)[names.ConfigFile] })
}

// MatchSecureRBACSwitch is matchSecureRBACSwitch for a pod of Debian 12's
// glance started outside a Stack: conf reads the glance-api.conf of the
// config ConfigMap it names.
func MatchSecureRBACSwitch(t testing.TB, pod *podrun.Pod, conf func(configMap string) string) {
	t.Helper()
	matchSecureRBACSwitch(t, DebianVersions(t), pod, conf)
}

func matchSecureRBACSwitch(t testing.TB, v Versions, pod *podrun.Pod, conf func(configMap string) string) {
	t.Helper()
	if !v.hasSecureRBACSwitch() {
		return
	}
	cm := ""
	for _, v := range pod.Spec.Volumes {
		if v.Name == names.VolumeConfig && v.ConfigMap != nil {
			cm = v.ConfigMap.Name
		}
	}
	m := enforceNewDefaults.FindAllStringSubmatch(conf(cm), -1)
	if len(m) == 0 {
		return
	}
	for i := range pod.Spec.Containers {
		if c := &pod.Spec.Containers[i]; c.Name == glance.ContainerName {
			c.Env = append(c.Env, corev1.EnvVar{Name: "OS_DEFAULT__ENFORCE_SECURE_RBAC", Value: m[len(m)-1][1]})
		}
	}
}
