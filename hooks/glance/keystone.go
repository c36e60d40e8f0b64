package glance

import (
	"errors"
	"fmt"
	"strings"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/storeconf"
	"github.com/c5c3/glance-hooks/hooks/glance/render"
)

// keystoneConf is how glance-api checks tokens with Keystone: as its
// service user, caching in memcached. The password comes from
// OS_KEYSTONE_AUTHTOKEN__PASSWORD (EnvServicePassword).
func keystoneConf(in render.ConfInput) (render.ConfPart, error) {
	spec := in.Spec
	public := spec.KeystonePublicEndpoint
	if public == "" {
		public = spec.KeystoneEndpoint
	}
	user := spec.ServiceUser
	memcached, err := memcachedServers(in.Glance, *spec.Cache)
	if err != nil {
		return render.ConfPart{}, err
	}
	return render.ConfPart{Sections: []storeconf.Section{{Name: "keystone_authtoken", Options: append([]storeconf.Option{
		{Key: "www_authenticate_uri", Value: public},
		{Key: "auth_url", Value: spec.KeystoneEndpoint},
		{Key: "auth_type", Value: "password"},
		{Key: "username", Value: user.Username},
		{Key: "project_name", Value: user.ProjectName},
		{Key: "user_domain_name", Value: user.UserDomainName},
		{Key: "project_domain_name", Value: user.ProjectDomainName},
		{Key: "interface", Value: "internal"},
		{Key: "service_token_roles_required", Value: "true"},
		{Key: "memcached_servers", Value: memcached},
	}, authtokenRegion(spec)...)}}}, nil
}

// authtokenRegion is [keystone_authtoken] region_name when spec.region is
// set; unset, keystonemiddleware takes the catalog's region.
func authtokenRegion(spec api.GlanceSpec) []storeconf.Option {
	if spec.Region == "" {
		return nil
	}
	return []storeconf.Option{{Key: "region_name", Value: spec.Region}}
}

// cacheConf is oslo.cache's [cache] on spec.cache.backend, with the same
// memcached the token cache uses; nothing without a backend.
func cacheConf(in render.ConfInput) (render.ConfPart, error) {
	if in.Spec.Cache.Backend == "" {
		return render.ConfPart{}, nil
	}
	memcached, err := memcachedServers(in.Glance, *in.Spec.Cache)
	if err != nil {
		return render.ConfPart{}, err
	}
	return render.ConfPart{Sections: []storeconf.Section{{Name: "cache", Options: []storeconf.Option{
		{Key: "enabled", Value: "true"},
		{Key: "backend", Value: in.Spec.Cache.Backend},
		{Key: "memcache_servers", Value: memcached},
	}}}}, nil
}

// memcachedServers is [keystone_authtoken] memcached_servers: the cluster's
// Service, or the servers given.
func memcachedServers(g *api.Glance, c api.CacheSpec) (string, error) {
	switch {
	case c.ClusterRef != nil && len(c.Servers) > 0:
		return "", errors.New("spec.cache: exactly one of clusterRef or servers must be set")
	case c.ClusterRef != nil:
		return fmt.Sprintf("%s.%s.svc.cluster.local:%d", c.ClusterRef.Name, g.Namespace, render.MemcachedPort), nil
	case len(c.Servers) > 0:
		return strings.Join(c.Servers, ","), nil
	}
	return "", errors.New("spec.cache needs clusterRef or servers")
}
