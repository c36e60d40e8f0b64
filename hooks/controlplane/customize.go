package controlplane

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
)

// Customize answers /customize/controlplane: the sync hook reads the admin
// credentials Secret and the service user's Secret the spec names (by
// name), and the pods of its registration Jobs (by label), whose
// termination messages say why an attempt failed. All three depend on the
// spec only, as a customize answer must (Metacontroller caches it per
// generation).
func Customize(req *metacontroller.CustomizeRequest) (*metacontroller.CustomizeResponse, error) {
	var cp api.ControlPlane
	if err := hook.DecodeParent(req.Parent, api.ControlPlaneAPIVersion, api.KindControlPlane, &cp); err != nil {
		return nil, err
	}
	if cp.Spec.Services.Glance == nil {
		return &metacontroller.CustomizeResponse{RelatedResources: []metacontroller.RelatedResource{}}, nil
	}
	admin := cp.Spec.Services.Glance.Registration(cp.Name, cp.Namespace).AdminCredentialsSecretRef.Name
	password := GlanceSpec(&cp).ServiceUser.SecretRef.Name
	secrets := []string{admin}
	if password != admin {
		secrets = append(secrets, password)
	}
	return &metacontroller.CustomizeResponse{RelatedResources: []metacontroller.RelatedResource{
		{APIVersion: "v1", Resource: "secrets", Namespace: cp.Namespace, Names: secrets},
		{APIVersion: "v1", Resource: "pods", Namespace: cp.Namespace, LabelSelector: &metav1.LabelSelector{
			MatchLabels: map[string]string{names.LabelControlPlane: cp.Name, names.LabelName: registrationAppName}}},
	}}, nil
}
