// Package glance implements the Glance hooks: aggregate the store sections of
// the attached GlanceBackends into a content-hashed backends Secret, render
// glance-api.conf into a content-hashed ConfigMap, and run glance-api as a
// Deployment and Service that mount both.
package glance

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/glance/observe"
)

// Customize answers /customize/glance: every GlanceBackend in the namespace
// (a Glance cannot know its backends' names; sync keeps those whose glanceRef
// names it), the store Secrets labelled for this Glance, by name the
// database Secret and the service user's Secret its spec names, and its
// pods (the Deployment's and the schema Jobs', by label), so sync can say
// why they do not run, and what the features ask for (their related).
func Customize(req *metacontroller.CustomizeRequest) (*metacontroller.CustomizeResponse, error) {
	var g customizeParent
	if err := hook.DecodeParent(req.Parent, api.GlanceAPIVersion, api.KindGlance, &g); err != nil {
		return nil, err
	}
	related := []metacontroller.RelatedResource{
		{
			APIVersion: api.GlanceAPIVersion, Resource: "glancebackends", Namespace: g.Namespace,
			LabelSelector: &metav1.LabelSelector{},
		},
		{
			APIVersion: "v1", Resource: "secrets", Namespace: g.Namespace,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{names.LabelGlance: g.Name}},
		},
		{
			APIVersion: "v1", Resource: "secrets", Namespace: g.Namespace,
			Names: credentialSecrets(g.Spec.WithDefaults(g.Namespace)),
		},
		observe.PodsRelated(&api.Glance{ObjectMeta: g.ObjectMeta}),
	}
	for _, f := range features {
		if f.related != nil {
			related = append(related, f.related(g.Spec, g.Namespace)...)
		}
	}
	return &metacontroller.CustomizeResponse{RelatedResources: related}, nil
}

// customizeParent is a Glance without its status. Customize answers from the
// spec (Metacontroller caches the answer per generation), and the status
// lists every attached backend: decoding it would be most of this hook's work.
type customizeParent struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              api.GlanceSpec `json:"spec"`
}

// credentialSecrets are the Secrets a Glance spec names, once each, sorted:
// the database's, the service user's and those of the database TLS.
func credentialSecrets(spec api.GlanceSpec) []string {
	all := append([]string{spec.Database.SecretRef.Name, spec.ServiceUser.SecretRef.Name}, databaseTLSSecrets(spec)...)
	slices.Sort(all)
	return slices.Compact(all)
}
