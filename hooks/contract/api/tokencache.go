package api

import (
	"net"
	"regexp"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/c5c3/glance-hooks/hooks/contract/inivalue"
	"github.com/c5c3/glance-hooks/hooks/contract/problem"
)

// The token cache's part of a Glance spec (spec.cache): its defaults and
// its rules. Its type, CacheSpec, stays in glance.go: a ControlPlane's
// infrastructure names a memcached with it too. Its behaviour (oslo.cache
// on the memcached) is hooks/glance/keystone.go.

// DefaultCacheCluster is the memcached the guide's standalone Glance uses.
const DefaultCacheCluster = "openstack-memcached"

// cacheDefault names the conventional memcached when the spec names none.
func cacheDefault(s *GlanceSpec, _ string) {
	if s.Cache == nil {
		s.Cache = &CacheSpec{ClusterRef: &LocalObjectReference{Name: DefaultCacheCluster}}
	}
}

// cacheRules are the part's rules, on a spec with its defaults: where the
// memcached is, and the oslo.cache backend. Paths are relative to the
// Glance settings.
func cacheRules(s GlanceSpec) problem.List {
	at := field.NewPath("cache")
	l := cacheProblems(at, *s.Cache)
	return append(l, cacheBackendProblems(at, *s.Cache)...)
}

// cacheLineBreak is the reference's refusal of a newline or carriage
// return in the memcached's name or a server: both end up in
// memcached_servers as they are written.
const cacheLineBreak = "value must not contain a newline or carriage return: it is rendered verbatim " +
	"into the service configuration file, so a newline injects arbitrary config lines"

// cacheProblems checks the memcached: a cluster in the namespace or
// explicit servers, not both.
func cacheProblems(at *field.Path, c CacheSpec) problem.List {
	var l problem.List
	switch {
	case (c.ClusterRef != nil) == (len(c.Servers) > 0):
		l = append(l, problem.At(at, "exactly one of clusterRef or servers must be set"))
	case c.ClusterRef != nil && inivalue.LineBreak(c.ClusterRef.Name):
		l = append(l, problem.At(at.Child("clusterRef", "name"), cacheLineBreak))
	case c.ClusterRef != nil:
		l = append(l, RequiredValue(at.Child("clusterRef", "name"), c.ClusterRef.Name)...)
	}
	for i, srv := range c.Servers {
		switch {
		case inivalue.LineBreak(srv):
			l = append(l, problem.At(at.Child("servers").Index(i), cacheLineBreak))
		case !isHostPort(srv):
			l = append(l, problem.Invalid(at.Child("servers").Index(i), "must be host:port (an IPv6 address in brackets)"))
		}
	}
	return l
}

// isHostPort says whether s is a host and a port from 1 to 65535, an IPv6
// address in brackets.
func isHostPort(s string) bool {
	host, port, err := net.SplitHostPort(s)
	if err != nil || !IsHost(host) || strings.Trim(port, "0123456789") != "" {
		return false
	}
	n, err := strconv.Atoi(port)
	return err == nil && n >= 1 && n <= 65535
}

// cacheBackend is an oslo.cache backend: a dotted Python name.
var cacheBackend = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$`)

// cacheBackendProblems checks spec.cache.backend.
func cacheBackendProblems(at *field.Path, c CacheSpec) problem.List {
	if c.Backend != "" && !cacheBackend.MatchString(c.Backend) {
		return problem.List{problem.Invalid(at.Child("backend"), "must be an oslo.cache backend's dotted name, e.g. dogpile.cache.pymemcache")}
	}
	return nil
}

// IsHost says whether host is a DNS name or an IP address: the parts and
// the checks in hooks/contract/rules hold servers' addresses to it.
func IsHost(host string) bool {
	return net.ParseIP(host) != nil || len(validation.IsDNS1123Subdomain(host)) == 0
}

// RequiredValue checks a value that must be set and is written into the
// config as it is.
func RequiredValue(at *field.Path, v string) problem.List {
	if v == "" {
		return problem.List{problem.Required(at)}
	}
	if why := inivalue.ValueProblem(v); why != "" {
		return problem.List{problem.Invalid(at, "%s", why)}
	}
	return nil
}

// ValueProblems checks a value that is written into the config as it is,
// set or not; the rules check theirs the same way.
func ValueProblems(at *field.Path, v string) problem.List {
	if why := inivalue.ValueProblem(v); why != "" {
		return problem.List{problem.Invalid(at, "%s", why)}
	}
	return nil
}
