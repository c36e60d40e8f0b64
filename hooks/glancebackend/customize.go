// Package glancebackend implements the GlanceBackend hooks: check the
// backend's credentials, render its store section into a Secret its Glance
// aggregates, and report whether the Glance's running config holds it.
package glancebackend

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/contract/problem"
	"github.com/c5c3/glance-hooks/hooks/contract/storeconf"
)

// Customize answers /customize/glancebackend. Metacontroller caches the
// answer per parent UID and generation, so it is built from the backend's
// spec only: its credentials Secret and its Glance by name, the Glance's
// Deployment by name (it is named after the Glance), and the Glance's hashed
// backends Secrets by label (their names carry a content hash).
func Customize(req *metacontroller.CustomizeRequest) (*metacontroller.CustomizeResponse, error) {
	var b customizeParent
	if err := hook.DecodeParent(req.Parent, api.GlanceAPIVersion, api.KindGlanceBackend, &b); err != nil {
		return nil, err
	}
	if problems := storeconf.GlanceRefProblems(b.Spec.GlanceRef.Name); len(problems) > 0 {
		// It would become a label selector's value: Metacontroller would
		// fail on it, and it names no Glance anyway.
		return nil, hook.Invalid("GlanceBackend %q: %s", b.Name, problem.Wrap(field.NewPath("spec"), problems))
	}
	glance := b.Spec.GlanceRef.Name
	var related []metacontroller.RelatedResource
	if b.Spec.S3 != nil && b.Spec.S3.CredentialsSecretRef.Name != "" {
		related = append(related, metacontroller.RelatedResource{
			APIVersion: "v1", Resource: "secrets", Namespace: b.Namespace,
			Names: []string{b.Spec.S3.CredentialsSecretRef.Name},
		})
	}
	related = append(related,
		metacontroller.RelatedResource{
			APIVersion: api.GlanceAPIVersion, Resource: "glances", Namespace: b.Namespace,
			Names: []string{glance},
		},
		metacontroller.RelatedResource{
			APIVersion: "apps/v1", Resource: "deployments", Namespace: b.Namespace,
			Names: []string{glance},
		},
		metacontroller.RelatedResource{
			APIVersion: "v1", Resource: "secrets", Namespace: b.Namespace,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{names.LabelBackendsOf: glance}},
		},
	)
	return &metacontroller.CustomizeResponse{RelatedResources: related}, nil
}

// customizeParent is a GlanceBackend without its status: customize answers
// from the spec (Metacontroller caches the answer per generation), so the
// status conditions are not decoded.
type customizeParent struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              api.GlanceBackendSpec `json:"spec"`
}
