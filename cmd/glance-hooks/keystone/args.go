package keystone

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/c5c3/glance-hooks/hooks/contract/inivalue"
	reg "github.com/c5c3/glance-hooks/hooks/contract/registration"
)

// maxNameBytes is Keystone's limit on the names and types it stores (users,
// projects, domains, roles, services, regions: 255 characters); a longer one
// is refused here rather than by Keystone after the admin has logged in.
const maxNameBytes = 255

// ArgError is one argument of a registration that must not reach Keystone:
// the flag and what is wrong, never the value (a URL may carry a password).
type ArgError struct {
	Flag, Problem string
}

func (e *ArgError) Error() string { return fmt.Sprintf("--%s %s", e.Flag, e.Problem) }

// EnvError is one environment value a run would send to Keystone that must
// not reach it: the variable's name and what is wrong, never the value (it
// may be a password).
type EnvError struct {
	Name, Problem string
}

func (e *EnvError) Error() string { return fmt.Sprintf("%s %s", e.Name, e.Problem) }

// CheckInput checks everything a run of register or deregister (s.Deregister)
// would send to Keystone before anything is: its arguments
// (CheckRegistration), then the environment values it reads
// (sentEnv). The first problem is an *ArgError or an *EnvError.
func CheckInput(s reg.Spec, getenv func(string) string) error {
	if err := CheckRegistration(s); err != nil {
		return err
	}
	for _, k := range sentEnv(s.Deregister) {
		if p := inivalue.CharacterProblem(getenv(k)); p != "" {
			return &EnvError{Name: k, Problem: p}
		}
	}
	return nil
}

// sentEnv are the environment variables a run sends on to Keystone: the
// admin's credentials and scope and, for a registration, the service
// user's password. OS_CACERT is not among them: it is read here, never
// sent, and a PEM bundle spans lines.
func sentEnv(deregister bool) []string {
	var keys []string
	for _, k := range append(append([]string{}, reg.RequiredAdminKeys...), reg.OptionalAdminKeys...) {
		if k != reg.EnvCACert {
			keys = append(keys, k)
		}
	}
	if !deregister {
		keys = append(keys, reg.EnvServiceUserPassword)
	}
	return keys
}

// CheckRegistration checks every argument of a registration before any of
// it is sent: the endpoint URLs (http or https, a host, a port from 1 to
// 65535, no user info), the names (plain text, at most 255 bytes) and the
// owner (NAMESPACE/NAME as Kubernetes names them). A deregistration
// (s.Deregister) sends only the owner, the service's name and its type,
// and only those are checked, the same way. The first problem, in the
// order of the flags, is an *ArgError.
func CheckRegistration(s reg.Spec) error {
	if p := ownerProblem(s.Owner); p != "" {
		return &ArgError{Flag: reg.FlagOwner, Problem: p}
	}
	if s.Deregister {
		return checkNames([]flagValue{{reg.FlagServiceName, s.ServiceName}, {reg.FlagServiceType, s.ServiceType}})
	}
	names := []flagValue{
		{reg.FlagUser, s.User}, {reg.FlagUserDomain, s.UserDomain},
		{reg.FlagProject, s.Project}, {reg.FlagProjectDomain, s.ProjectDomain},
		{reg.FlagRole, s.Role}, {reg.FlagServiceName, s.ServiceName}, {reg.FlagServiceType, s.ServiceType},
		{reg.FlagRegion, s.Region},
	}
	if err := checkNames(names); err != nil {
		return err
	}
	for _, u := range []flagValue{{reg.FlagPublicURL, s.PublicURL}, {reg.FlagInternalURL, s.InternalURL}} {
		ps := inivalue.URLProblems(u.value, "an endpoint URL holds no credentials")
		if p := inivalue.CharacterProblem(u.value); p != "" {
			// url.Parse refuses ASCII controls only; a U+2028 or a C1
			// control in a host would reach the catalog.
			ps = []string{p}
		}
		if len(ps) > 0 {
			return &ArgError{Flag: u.flag, Problem: strings.Join(ps, "; ")}
		}
	}
	// The Secret's name only appears in messages, but a message must not
	// carry what a terminal would act on.
	return checkNames([]flagValue{{reg.FlagPasswordFrom, s.PasswordSecret}})
}

// flagValue is one flag and the value it was given.
type flagValue struct{ flag, value string }

// checkNames is the first of names that is no Keystone name, as an
// *ArgError.
func checkNames(names []flagValue) error {
	for _, n := range names {
		if p := nameProblem(n.value); p != "" {
			return &ArgError{Flag: n.flag, Problem: p}
		}
	}
	return nil
}

// nameProblem is what keeps a value from being a Keystone name, or "".
func nameProblem(v string) string {
	if p := inivalue.CharacterProblem(v); p != "" {
		return p
	}
	switch {
	case v == "":
		return "must not be empty"
	case strings.TrimSpace(v) != v:
		return "must not start or end with blanks"
	case len(v) > maxNameBytes:
		return fmt.Sprintf("must be at most %d bytes", maxNameBytes)
	}
	return ""
}

// ownerProblem is what keeps v from being NAMESPACE/NAME of a ControlPlane.
func ownerProblem(v string) string {
	ns, name, ok := strings.Cut(v, "/")
	if !ok || strings.Contains(name, "/") {
		return "must be NAMESPACE/NAME"
	}
	if len(validation.IsDNS1123Label(ns)) > 0 {
		return "must be NAMESPACE/NAME: the namespace is not a Kubernetes namespace name (lowercase letters, digits and '-', at most 63)"
	}
	if len(validation.IsDNS1123Subdomain(name)) > 0 {
		return "must be NAMESPACE/NAME: the name is not a Kubernetes object name (lowercase letters, digits, '-' and '.', at most 253)"
	}
	return ""
}
