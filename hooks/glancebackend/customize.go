// Package glancebackend implements the GlanceBackend hooks: check the
// backend's credentials, render its store section into a Secret its Glance
// aggregates, and report whether the Glance's running config holds it.
package glancebackend

import (
	"slices"

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
	related := namedObjects(b.Namespace, b.Spec.S3)
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

// namedObjects asks for the objects a store's S3 settings name: its
// credentials Secret, and its CA bundle's ConfigMap or Secret (once, when
// one Secret holds both). A CA reference that cannot name an object is
// left out; the sync hook reports it.
func namedObjects(namespace string, s3 *api.S3Store) []metacontroller.RelatedResource {
	if s3 == nil {
		return nil
	}
	var secrets, configMaps []string
	if s3.CredentialsSecretRef.Name != "" {
		secrets = append(secrets, s3.CredentialsSecretRef.Name)
	}
	if ref := s3.CABundleRef; ref != nil && len(storeconf.CABundleRefProblems(*ref)) == 0 {
		switch {
		case ref.EffectiveKind() == api.CABundleKindConfigMap:
			configMaps = append(configMaps, ref.Name)
		case !slices.Contains(secrets, ref.Name):
			secrets = append(secrets, ref.Name)
		}
	}
	var out []metacontroller.RelatedResource
	if len(secrets) > 0 {
		slices.Sort(secrets)
		out = append(out, metacontroller.RelatedResource{APIVersion: "v1", Resource: "secrets", Namespace: namespace, Names: secrets})
	}
	if len(configMaps) > 0 {
		out = append(out, metacontroller.RelatedResource{APIVersion: "v1", Resource: "configmaps", Namespace: namespace, Names: configMaps})
	}
	return out
}

// customizeParent is a GlanceBackend without its status: customize answers
// from the spec (Metacontroller caches the answer per generation), so the
// status conditions are not decoded.
type customizeParent struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              api.GlanceBackendSpec `json:"spec"`
}
