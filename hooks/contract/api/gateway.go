package api

import (
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/c5c3/glance-hooks/hooks/contract/problem"
)

// The gateway feature's part of a Glance spec (spec.gateway): its rules.
// Its type is GatewaySpec (glance_blocks.go); its behaviour (the
// HTTPRoute, HTTPRouteReady) is hooks/glance/gateway.go. It has no
// defaults: an unset block renders no route.

// gatewayRules are the part's rules: what the HTTPRoute is made of. Paths
// are relative to the Glance settings.
func gatewayRules(s GlanceSpec) problem.List {
	if s.Gateway == nil {
		return nil
	}
	return problem.Wrap(field.NewPath("gateway"), gatewayProblems(*s.Gateway))
}

// routePath is what a route's path prefix may hold: RFC 3986 path
// characters, no query or fragment.
var routePath = regexp.MustCompile(`^/[A-Za-z0-9\-._~!$&'()*+,;=:@/%]*$`)

// gatewayProblems checks what the HTTPRoute is made of: its host name is
// also status.endpoint and, on a ControlPlane, the public endpoint in
// Keystone, so it must name one host.
func gatewayProblems(g GatewaySpec) problem.List {
	l := gatewayHostProblems(g.Hostname)
	l = append(l, parentRefProblems(g.ParentRef)...)
	if p := g.Path; p != "" {
		switch {
		case !routePath.MatchString(p):
			l = append(l, problem.Invalid(field.NewPath("path"), "must start with / and hold only URL path characters"))
		case strings.Contains(p, "//") || strings.Contains(p+"/", "/./") || strings.Contains(p+"/", "/../"):
			l = append(l, problem.Invalid(field.NewPath("path"), "must be a clean path: no //, /./ or /../"))
		}
	}
	for k := range g.Annotations {
		if len(validation.IsQualifiedName(k)) > 0 {
			l = append(l, problem.Invalid(field.NewPath("annotations"), "holds a key that is not a qualified name ([prefix/]name)"))
			break
		}
	}
	return l
}

// WildcardHostname refuses a gateway host name that is a wildcard, said
// of the field.
const WildcardHostname = "must name one host: it is the endpoint clients use, which a wildcard is not"

// gatewayHostProblems checks the route's host name: set (in the
// reference's words), one host, a DNS name. A ControlPlane's gateway is
// refused in the reference ControlPlane's words before its Glance is
// checked (hooks/contract/rules, gatewayHostnameProblems).
func gatewayHostProblems(h string) problem.List {
	at := field.NewPath("hostname")
	switch {
	case h == "":
		return problem.List{problem.At(at, "hostname must be set when spec.gateway is configured")}
	case strings.HasPrefix(h, "*."):
		return problem.List{problem.Invalid(at, WildcardHostname)}
	case len(validation.IsDNS1123Subdomain(h)) > 0:
		return problem.List{problem.Invalid(at, "must be a lower-case DNS name")}
	}
	return nil
}

// parentRefProblems checks the Gateway the route attaches to: named (in
// the reference's words), by names Kubernetes takes.
func parentRefProblems(ref GatewayParentRef) problem.List {
	var l problem.List
	at := field.NewPath("parentRef")
	switch {
	case ref.Name == "":
		l = append(l, problem.At(at.Child("name"), "parentRef.name must be set when spec.gateway is configured"))
	case len(validation.IsDNS1123Subdomain(ref.Name)) > 0:
		l = append(l, problem.Invalid(at.Child("name"), "must be the name of a Gateway (a lower-case DNS name)"))
	}
	if ns := ref.Namespace; ns != "" && len(validation.IsDNS1123Label(ns)) > 0 {
		l = append(l, problem.Invalid(at.Child("namespace"), "must be a namespace name"))
	}
	if sn := ref.SectionName; sn != "" && len(validation.IsDNS1123Subdomain(sn)) > 0 {
		l = append(l, problem.Invalid(at.Child("sectionName"), "must be a listener name (a lower-case DNS name)"))
	}
	return l
}
