package glance

import (
	"errors"
	"fmt"
	"strings"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/contract/storeconf"
)

// Paths inside the glance-api container. The image has nothing under
// /etc/glance, and the two launch modes find their config differently: the
// eventlet server and glance-manage take --config-file and --config-dir
// arguments, while Glance's WSGI application (uWSGI) takes none and reads
// the fixed names glance-api-paste.ini and glance-api.conf from
// $OS_GLANCE_CONFIG_DIR, plus every *.conf in oslo.config's default config
// directory of project glance, /etc/glance/glance.conf.d. So the config
// ConfigMap (volume "config": glance-api.conf, the paste pipeline and the
// uWSGI ini) is mounted whole at ConfigDir, named by OS_GLANCE_CONFIG_DIR,
// and the backends Secret (volume "backends": backends.conf) whole at
// BackendsDir, the default config directory, which the eventlet server and
// glance-manage are also given as --config-dir. Two sibling directory mounts
// of the guide's two volumes: no subPath (which Kubernetes never refreshes
// and a local runner must emulate), no projected volume (which would hide
// the names the guide reads with kubectl), and no mount inside another
// volume's mount.
const (
	ConfigDir     = "/etc/glance/config"
	PasteFile     = "glance-api-paste.ini"
	UWSGIFile     = "glance-api-uwsgi.ini"
	BackendsDir   = "/etc/glance/glance.conf.d"
	StateDir      = "/var/lib/glance"
	StagingDir    = StateDir + "/staging"
	TasksDir      = StateDir + "/tasks"
	LockDir       = StateDir + "/lock"
	PasteConfig   = ConfigDir + "/" + PasteFile
	APIPort       = api.GlanceAPIPort
	MemcachedPort = 11211
)

// configData is the config ConfigMap's data for a launch mode: everything
// glance-api reads besides the store sections.
func configData(conf string, spec api.GlanceSpec, mode LaunchMode) map[string]string {
	data := map[string]string{names.ConfigFile: conf, PasteFile: PasteIni}
	if mode == UWSGI {
		data[UWSGIFile] = renderUWSGI(spec)
	}
	if ownLoggingConfig(spec.Logging) {
		data[LoggingFile] = renderLoggingConfig(*spec.Logging)
	}
	return data
}

// renderConfig renders glance-api.conf. Secrets never appear in it: the
// database URL and the service user's password reach glance-api as
// environment variables (oslo.config reads OS_<GROUP>__<OPTION>).
func renderConfig(g *api.Glance, spec api.GlanceSpec, mode LaunchMode, stores []*store, def *store) (string, error) {
	var enabled []string
	for _, s := range stores {
		if s.rendered {
			enabled = append(enabled, s.id+":s3")
		}
	}
	public := spec.KeystonePublicEndpoint
	if public == "" {
		public = spec.KeystoneEndpoint
	}
	user := spec.ServiceUser
	memcached, err := memcachedServers(g, *spec.Cache)
	if err != nil {
		return "", err
	}
	// bind_host comes from OS_DEFAULT__BIND_HOST (the pod's IP).
	defaults := []storeconf.Option{{Key: "bind_port", Value: fmt.Sprint(APIPort)}}
	if mode == Eventlet {
		// uWSGI has its own processes; from 2026.2 Glance has no workers option.
		defaults = append(defaults, storeconf.Option{Key: "workers", Value: fmt.Sprint(*spec.APIServer.Workers)})
	}
	defaults = append(defaults,
		storeconf.Option{Key: "enabled_backends", Value: strings.Join(enabled, ",")},
		// Explicit, so a release changing its default changes nothing here.
		// oslo.config wants this list in brackets.
		storeconf.Option{Key: "enabled_import_methods", Value: "[" + strings.Join(spec.ImportMethods, ",") + "]"},
		// glance_store writes S3 locations as s3://KEY:SECRET@host/...:
		// exposing locations would hand the S3 keys to API clients.
		storeconf.Option{Key: "show_image_direct_url", Value: "false"},
		storeconf.Option{Key: "show_multiple_locations", Value: "false"},
	)
	defaults = append(defaults, loggingOptions(spec.Logging)...)
	sections := []storeconf.Section{
		storeconf.Section{Name: "DEFAULT", Options: defaults},
		storeconf.Section{Name: "glance_store", Options: []storeconf.Option{
			{Key: "default_backend", Value: def.id},
		}},
		storeconf.Section{Name: "os_glance_staging_store", Options: []storeconf.Option{
			{Key: "filesystem_store_datadir", Value: StagingDir},
		}},
		storeconf.Section{Name: "os_glance_tasks_store", Options: []storeconf.Option{
			{Key: "filesystem_store_datadir", Value: TasksDir},
		}},
		// connection comes from OS_DATABASE__CONNECTION.
		storeconf.Section{Name: "database", Options: []storeconf.Option{
			{Key: "max_retries", Value: "-1"},
		}},
		// password comes from OS_KEYSTONE_AUTHTOKEN__PASSWORD.
		storeconf.Section{Name: "keystone_authtoken", Options: append([]storeconf.Option{
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
		}, authtokenRegion(spec)...)},
		storeconf.Section{Name: "oslo_concurrency", Options: []storeconf.Option{
			{Key: "lock_path", Value: LockDir},
		}},
		storeconf.Section{Name: "oslo_messaging_notifications", Options: []storeconf.Option{
			{Key: "driver", Value: "noop"},
		}},
		storeconf.Section{Name: "paste_deploy", Options: []storeconf.Option{
			{Key: "flavor", Value: PasteFlavor},
			// Named, not searched for: glance looks for it next to the last
			// config file it read, which differs by release and launch mode.
			{Key: "config_file", Value: PasteConfig},
		}},
	}
	if spec.Cache.Backend != "" {
		sections = append(sections, cacheSection(spec, memcached))
	}
	return storeconf.Write(sections...)
}

// memcachedServers is [keystone_authtoken] memcached_servers: the cluster's
// Service, or the servers given.
func memcachedServers(g *api.Glance, c api.CacheSpec) (string, error) {
	switch {
	case c.ClusterRef != nil && len(c.Servers) > 0:
		return "", errors.New("spec.cache sets both clusterRef and servers")
	case c.ClusterRef != nil:
		return fmt.Sprintf("%s.%s.svc.cluster.local:%d", c.ClusterRef.Name, g.Namespace, MemcachedPort), nil
	case len(c.Servers) > 0:
		return strings.Join(c.Servers, ","), nil
	}
	return "", errors.New("spec.cache needs clusterRef or servers")
}

// renderBackends concatenates the rendered store sections, sorted by store
// id. It does not depend on which store is the default, so switching the
// default leaves the backends Secret's name unchanged.
func renderBackends(stores []*store) string {
	var parts []string
	for _, s := range stores {
		if s.rendered {
			parts = append(parts, strings.TrimSuffix(s.section, "\n")+"\n")
		}
	}
	return strings.Join(parts, "\n")
}

// authtokenRegion is [keystone_authtoken] region_name when spec.region is
// set; unset, keystonemiddleware takes the catalog's region.
func authtokenRegion(spec api.GlanceSpec) []storeconf.Option {
	if spec.Region == "" {
		return nil
	}
	return []storeconf.Option{{Key: "region_name", Value: spec.Region}}
}

// cacheSection is oslo.cache's [cache] on spec.cache.backend, with the same
// memcached the token cache uses.
func cacheSection(spec api.GlanceSpec, memcached string) storeconf.Section {
	return storeconf.Section{Name: "cache", Options: []storeconf.Option{
		{Key: "enabled", Value: "true"},
		{Key: "backend", Value: spec.Cache.Backend},
		{Key: "memcache_servers", Value: memcached},
	}}
}
