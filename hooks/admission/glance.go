package admission

import (
	"fmt"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
)

func reviewGlance(req *admissionv1.AdmissionRequest) decision {
	var g api.Glance
	if err := decodeObject(req.Object.Raw, &g); err != nil {
		return undecodable(api.KindGlance, "object", err)
	}
	if g.DeletionTimestamp != nil {
		return decision{}
	}
	name := nameOf(req, &g.ObjectMeta)
	if out := glanceProblems(name, namespaceOf(req, &g.ObjectMeta), g.Spec); len(out) > 0 {
		return invalid(api.KindGlance, name, out)
	}
	return decision{}
}

// glanceProblems checks a Glance the way its sync hook will use it: the name
// is also its Service's, and the spec with the conventional defaults filled in
// must hold what glance-api needs, in values that can be written into
// glance-api.conf.
func glanceProblems(name, namespace string, spec api.GlanceSpec) []string {
	var out []string
	add := func(p string) {
		if p != "" {
			out = append(out, p)
		}
	}
	if name == "" {
		add("metadata.name is required: it is also the name of the glance-api Service, so it cannot be generated")
	} else if errs := validation.IsDNS1035Label(name); len(errs) > 0 {
		add(fmt.Sprintf("the name is also the name of its glance-api Service, which must be a DNS-1035 label: %s", shortValidation(errs[0])))
	}

	s := spec.WithDefaults(namespace)
	required := func(field, v string) {
		if v == "" {
			add(field + " is required")
		} else {
			add(checkValue(field, v))
		}
	}
	required("spec.openStackRelease", s.OpenStackRelease)
	add(checkURL("spec.keystoneEndpoint", s.KeystoneEndpoint))
	if s.KeystonePublicEndpoint != "" {
		add(checkURL("spec.keystonePublicEndpoint", s.KeystonePublicEndpoint))
	}
	if *s.Replicas < 0 {
		add("spec.replicas must not be negative")
	}
	required("spec.image.repository", s.Image.Repository)
	required("spec.image.tag", s.Image.Tag)
	required("spec.database.clusterRef.name", s.Database.ClusterRef.Name)
	required("spec.database.database", s.Database.Database)
	required("spec.database.secretRef.name", s.Database.SecretRef.Name)
	required("spec.cache.clusterRef.name", s.Cache.ClusterRef.Name)
	u := s.ServiceUser
	required("spec.serviceUser.username", u.Username)
	required("spec.serviceUser.projectName", u.ProjectName)
	required("spec.serviceUser.userDomainName", u.UserDomainName)
	required("spec.serviceUser.projectDomainName", u.ProjectDomainName)
	required("spec.serviceUser.secretRef.name", u.SecretRef.Name)
	return out
}
