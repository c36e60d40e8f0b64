package admission

import (
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/problem"
	"github.com/c5c3/glance-hooks/hooks/contract/release"
)

var (
	specPath     = field.NewPath("spec")
	metadataName = field.NewPath("metadata", "name")
	// releasePath is where a Glance and a ControlPlane both hold the release.
	releasePath = specPath.Child("openStackRelease")
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
	spec := g.Spec.WithDefaults(namespaceOf(req, &g.ObjectMeta))
	l := glanceNameProblems(name)
	l = append(l, requiredValue(releasePath, spec.OpenStackRelease)...)
	l = append(l, releaseProblems(spec, specPath.Child("image", "tag"))...)
	l = append(l, problem.Wrap(specPath, glanceServiceProblems(spec))...)
	if len(l) > 0 {
		return invalid(api.KindGlance, name, l)
	}
	return decision{}
}

// glanceNameProblems checks a Glance's name, which is also its Service's.
func glanceNameProblems(name string) problem.List {
	if name == "" {
		return problem.List{problem.Invalid(metadataName, "is required: it is also the name of the glance-api Service, so it cannot be generated")}
	}
	if errs := validation.IsDNS1035Label(name); len(errs) > 0 {
		return problem.List{problem.New("the name is also the name of its glance-api Service, which must be a DNS-1035 label: %s", shortValidation(errs[0]))}
	}
	return nil
}

// releaseProblems checks the release, at releasePath, and that the image
// tag, at tagPath, names no other release: the schema Jobs prepare the
// database for the release, and the release picks the launch mode.
func releaseProblems(s api.GlanceSpec, tagPath *field.Path) problem.List {
	if s.OpenStackRelease == "" {
		return nil // requiredValue says so
	}
	rel, err := release.Parse(s.OpenStackRelease)
	if err != nil {
		return problem.List{problem.Invalid(releasePath, "must be an OpenStack release, YYYY.1 or YYYY.2")}
	}
	if p := release.TagProblem(s.Image.Tag, rel); p != "" {
		return problem.List{problem.Invalid(tagPath, "%s (%s): the schema Jobs prepare the database for %s, so the image must be of that release",
			p, releasePath, releasePath)}
	}
	return nil
}

// maxAPIConcurrency bounds spec.api.processes and threads, as the CRD does.
const maxAPIConcurrency = 64

// glanceServiceProblems checks a Glance spec, with the conventional defaults
// filled in, the way its sync hook will use it: what glance-api needs must
// be there, in values that can be written into glance-api.conf. Paths are
// relative to where the settings are (a Glance's spec, a ControlPlane's
// spec.services.glance); the release, which a ControlPlane holds on its
// spec, is checked at releasePath.
func glanceServiceProblems(s api.GlanceSpec) problem.List {
	var l problem.List
	required := func(at *field.Path, v string) { l = append(l, requiredValue(at, v)...) }
	l = append(l, urlProblems(field.NewPath("keystoneEndpoint"), s.KeystoneEndpoint)...)
	if s.KeystonePublicEndpoint != "" {
		l = append(l, urlProblems(field.NewPath("keystonePublicEndpoint"), s.KeystonePublicEndpoint)...)
	}
	if *s.Replicas < 0 {
		l = append(l, problem.Invalid(field.NewPath("replicas"), "must not be negative"))
	}
	for _, f := range []struct {
		at *field.Path
		n  int32
	}{{field.NewPath("api", "processes"), *s.API.Processes}, {field.NewPath("api", "threads"), *s.API.Threads}} {
		if f.n < 1 || f.n > maxAPIConcurrency {
			l = append(l, problem.Invalid(f.at, "must be between 1 and %d", maxAPIConcurrency))
		}
	}
	image := field.NewPath("image")
	required(image.Child("repository"), s.Image.Repository)
	required(image.Child("tag"), s.Image.Tag)
	db := field.NewPath("database")
	required(db.Child("clusterRef", "name"), s.Database.ClusterRef.Name)
	required(db.Child("database"), s.Database.Database)
	required(db.Child("secretRef", "name"), s.Database.SecretRef.Name)
	required(field.NewPath("cache", "clusterRef", "name"), s.Cache.ClusterRef.Name)
	user := field.NewPath("serviceUser")
	required(user.Child("username"), s.ServiceUser.Username)
	required(user.Child("projectName"), s.ServiceUser.ProjectName)
	required(user.Child("userDomainName"), s.ServiceUser.UserDomainName)
	required(user.Child("projectDomainName"), s.ServiceUser.ProjectDomainName)
	required(user.Child("secretRef", "name"), s.ServiceUser.SecretRef.Name)
	return l
}
