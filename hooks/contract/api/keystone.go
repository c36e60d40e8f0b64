package api

import (
	"fmt"
	"regexp"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/c5c3/glance-hooks/hooks/contract/inivalue"
	"github.com/c5c3/glance-hooks/hooks/contract/problem"
)

// The Keystone part of a Glance spec (spec.keystoneEndpoint,
// spec.keystonePublicEndpoint, spec.region, spec.serviceUser): its
// defaults and its rules. Its type, ServiceUserSpec, stays in glance.go: a
// ControlPlane's services.glance names the service user with it too. Its
// behaviour ([keystone_authtoken], ServiceUserReady) is
// hooks/glance/keystone.go.

// The service user the guide creates, and its Secret.
const (
	DefaultServiceUsername    = "glance"
	DefaultServiceProject     = "service"
	DefaultServiceDomain      = "Default"
	DefaultServiceUserSecret  = "glance-service-user"
	DefaultServiceUserPassKey = "password"
)

// DefaultKeystoneEndpoint is the in-cluster Keystone of a namespace.
func DefaultKeystoneEndpoint(namespace string) string {
	return fmt.Sprintf("http://keystone.%s.svc.cluster.local:5000/v3", namespace)
}

// keystoneDefaults are the namespace's Keystone and the service user.
func keystoneDefaults(s *GlanceSpec, namespace string) {
	if s.KeystoneEndpoint == "" {
		s.KeystoneEndpoint = DefaultKeystoneEndpoint(namespace)
	}
	s.ServiceUser = serviceUserWithDefaults(s.ServiceUser)
}

// serviceUserWithDefaults fills each name on its own, as the reference fills
// them in: its minimal serviceUser names only the Secret.
func serviceUserWithDefaults(in *ServiceUserSpec) *ServiceUserSpec {
	user := ServiceUserSpec{SecretRef: SecretKeyRef{Name: DefaultServiceUserSecret}}
	if in != nil {
		user = *in
	}
	for _, f := range []struct {
		v   *string
		def string
	}{{&user.Username, DefaultServiceUsername}, {&user.ProjectName, DefaultServiceProject},
		{&user.UserDomainName, DefaultServiceDomain}, {&user.ProjectDomainName, DefaultServiceDomain}} {
		if *f.v == "" {
			*f.v = f.def
		}
	}
	if user.SecretRef.Key == "" {
		user.SecretRef.Key = DefaultServiceUserPassKey
	}
	return &user
}

// keystoneRules are the part's rules, on a spec with its defaults: the
// endpoints are URLs, the region an id, and the service user's names and
// Secret set. Paths are relative to the Glance settings.
func keystoneRules(s GlanceSpec) problem.List {
	l := URLProblems(field.NewPath("keystoneEndpoint"), s.KeystoneEndpoint)
	if s.KeystonePublicEndpoint != "" {
		l = append(l, URLProblems(field.NewPath("keystonePublicEndpoint"), s.KeystonePublicEndpoint)...)
	}
	l = append(l, RegionProblems(field.NewPath("region"), s.Region)...)
	user := field.NewPath("serviceUser")
	for _, f := range []struct {
		at *field.Path
		v  string
	}{{user.Child("username"), s.ServiceUser.Username}, {user.Child("projectName"), s.ServiceUser.ProjectName},
		{user.Child("userDomainName"), s.ServiceUser.UserDomainName}, {user.Child("projectDomainName"), s.ServiceUser.ProjectDomainName},
		{user.Child("secretRef", "name"), s.ServiceUser.SecretRef.Name}} {
		l = append(l, RequiredValue(f.at, f.v)...)
	}
	return l
}

// URLProblems checks an http(s) URL at a field. A URL carrying
// user:password@ is refused: credentials live in Secrets.
func URLProblems(at *field.Path, v string) problem.List {
	if why := inivalue.ValueProblem(v); why != "" {
		return problem.List{problem.Invalid(at, "%s", why)}
	}
	var l problem.List
	for _, p := range inivalue.URLProblems(v, "they belong in a Secret") {
		l = append(l, problem.At(at, "%s", p))
	}
	return l
}

// RegionProblems checks a Keystone region: a Glance's and a ControlPlane's.
func RegionProblems(at *field.Path, region string) problem.List {
	if region != "" && !regionID.MatchString(region) {
		return problem.List{problem.Invalid(at, "must be letters, digits, '.', '_' or '-', starting with a letter or digit")}
	}
	return nil
}

// regionID is a Keystone region id as the CRDs allow it.
var regionID = regexp.MustCompile(`^[A-Za-z0-9][-._A-Za-z0-9]{0,254}$`)
