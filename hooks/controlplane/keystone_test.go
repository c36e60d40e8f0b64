package controlplane

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	reg "github.com/c5c3/glance-hooks/hooks/contract/registration"
)

// The registration Job reads OS_CACERT from the admin Secret when it is
// there, so `keystone register` trusts the CA of an https Keystone the
// image's roots do not hold; a Secret without it still runs the Job.
func TestRegistrationJobReadsTheAdminSecretsCACert(t *testing.T) {
	cp := &api.ControlPlane{Spec: api.ControlPlaneSpec{Services: api.Services{Glance: &api.GlanceService{}}}}
	cp.Name, cp.Namespace = "cp", "openstack"
	g := GlanceSpec(cp).WithDefaults(cp.Namespace)
	r := &registration{cp: cp, settings: cp.Spec.Services.Glance.Registration(cp.Name, cp.Namespace), user: *g.ServiceUser}
	for _, deregister := range []bool{false, true} {
		job := r.job("example.test/glance-hooks:v0", deregister)
		var got *corev1.EnvVar
		for i, e := range job.Spec.Template.Spec.Containers[0].Env {
			if e.Name == reg.EnvCACert {
				got = &job.Spec.Template.Spec.Containers[0].Env[i]
			}
		}
		optional := true
		want := &corev1.EnvVar{Name: reg.EnvCACert, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: "keystone-admin"}, Key: reg.EnvCACert, Optional: &optional}}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("deregister=%v: OS_CACERT comes from the admin Secret, optional: -want, +got:\n%s", deregister, diff)
		}
	}
}
