package api

import "strings"

// RoutePath is the path prefix a gateway routes to glance-api: the spec's,
// "/" when unset.
func (g GatewaySpec) RoutePath() string {
	if g.Path == "" {
		return "/"
	}
	return g.Path
}

// URL is where clients reach glance-api through the gateway: https on the
// route's host name, under its path. The route strips the path before
// glance-api sees the request, so the URL ends in "/" as the reference's
// https://<hostname>/ does.
func (g GatewaySpec) URL() string {
	p := g.RoutePath()
	if !strings.HasSuffix(p, "/") {
		p += "/"
	}
	return "https://" + g.Hostname + p
}

// Registration is how the ControlPlane registers its Glance in Keystone:
// keystone's settings with defaults, the public URL being, in this order,
// keystone.publicURL, publicEndpoint, the gateway's URL, the Service's.
// The internal URL stays in the cluster whatever the gateway.
func (s *GlanceService) Registration(cp, namespace string) KeystoneRegistration {
	out := s.Keystone.WithDefaults(cp, namespace)
	if s.Keystone != nil && s.Keystone.PublicURL != "" {
		return out
	}
	switch {
	case s.PublicEndpoint != "":
		out.PublicURL = s.PublicEndpoint
	case s.Gateway != nil:
		out.PublicURL = s.Gateway.URL()
	}
	return out
}
