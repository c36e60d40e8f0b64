package keystone

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/util/validation"

	reg "github.com/c5c3/glance-hooks/hooks/contract/registration"
	"github.com/c5c3/glance-hooks/hooks/contract/storeconf"
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

// CheckRegistration checks every argument of a registration before any of
// it is sent: the endpoint URLs (http or https, a host, a port from 1 to
// 65535, no user info), the names (no control characters, at most 255
// bytes) and the owner (NAMESPACE/NAME as Kubernetes names them). The first
// problem, in the order of the flags, is an *ArgError.
func CheckRegistration(s reg.Spec) error {
	if p := ownerProblem(s.Owner); p != "" {
		return &ArgError{Flag: reg.FlagOwner, Problem: p}
	}
	names := []struct{ flag, value string }{
		{reg.FlagUser, s.User}, {reg.FlagUserDomain, s.UserDomain},
		{reg.FlagProject, s.Project}, {reg.FlagProjectDomain, s.ProjectDomain},
		{reg.FlagRole, s.Role}, {reg.FlagServiceName, s.ServiceName}, {reg.FlagServiceType, s.ServiceType},
		{reg.FlagRegion, s.Region},
	}
	for _, n := range names {
		if p := nameProblem(n.value); p != "" {
			return &ArgError{Flag: n.flag, Problem: p}
		}
	}
	for _, u := range []struct{ flag, value string }{{reg.FlagPublicURL, s.PublicURL}, {reg.FlagInternalURL, s.InternalURL}} {
		if ps := storeconf.URLProblems(u.value, "an endpoint URL holds no credentials"); len(ps) > 0 {
			return &ArgError{Flag: u.flag, Problem: strings.Join(ps, "; ")}
		}
	}
	// The Secret's name only appears in messages, but a message must not
	// carry what a terminal would act on.
	if p := nameProblem(s.PasswordSecret); p != "" {
		return &ArgError{Flag: reg.FlagPasswordFrom, Problem: p}
	}
	return nil
}

// nameProblem is what keeps a value from being a Keystone name, or "".
func nameProblem(v string) string {
	switch {
	case v == "":
		return "must not be empty"
	case !utf8.ValidString(v):
		return "must be UTF-8"
	case strings.IndexFunc(v, unicode.IsControl) >= 0:
		return "must not hold control characters"
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
