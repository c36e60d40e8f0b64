package glance

import (
	"fmt"
	"strings"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/storeconf"
)

// Paths inside the glance-api container. The ConfigMap and the backends
// Secret are mounted as separate directories and passed as two
// --config-file arguments; glance-api merges them.
const (
	ConfigDir      = "/etc/glance/config"
	BackendsDir    = "/etc/glance/backends"
	StateDir       = "/var/lib/glance"
	StagingDir     = StateDir + "/staging"
	TasksDir       = StateDir + "/tasks"
	LockDir        = StateDir + "/lock"
	PasteConfig    = "/etc/glance/glance-api-paste.ini"
	APIPort        = 9292
	MemcachedPort  = 11211
	DefaultWorkers = "2"
)

// renderConfig renders glance-api.conf. Secrets never appear in it: the
// database URL and the service user's password reach glance-api as
// environment variables (oslo.config reads OS_<GROUP>__<OPTION>).
func renderConfig(g *api.Glance, spec api.GlanceSpec, stores []*store, def *store) (string, error) {
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
	return storeconf.Write(
		storeconf.Section{Name: "DEFAULT", Options: []storeconf.Option{
			{Key: "bind_host", Value: "0.0.0.0"},
			{Key: "bind_port", Value: fmt.Sprint(APIPort)},
			{Key: "workers", Value: DefaultWorkers},
			{Key: "enabled_backends", Value: strings.Join(enabled, ",")},
			// glance_store writes S3 locations as s3://KEY:SECRET@host/...:
			// exposing locations would hand the S3 keys to API clients.
			{Key: "show_image_direct_url", Value: "false"},
			{Key: "show_multiple_locations", Value: "false"},
		}},
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
		storeconf.Section{Name: "keystone_authtoken", Options: []storeconf.Option{
			{Key: "www_authenticate_uri", Value: public},
			{Key: "auth_url", Value: spec.KeystoneEndpoint},
			{Key: "auth_type", Value: "password"},
			{Key: "username", Value: user.Username},
			{Key: "project_name", Value: user.ProjectName},
			{Key: "user_domain_name", Value: user.UserDomainName},
			{Key: "project_domain_name", Value: user.ProjectDomainName},
			{Key: "interface", Value: "internal"},
			{Key: "service_token_roles_required", Value: "true"},
			{Key: "memcached_servers", Value: fmt.Sprintf("%s.%s.svc.cluster.local:%d", spec.Cache.ClusterRef.Name, g.Namespace, MemcachedPort)},
		}},
		storeconf.Section{Name: "oslo_concurrency", Options: []storeconf.Option{
			{Key: "lock_path", Value: LockDir},
		}},
		storeconf.Section{Name: "oslo_messaging_notifications", Options: []storeconf.Option{
			{Key: "driver", Value: "noop"},
		}},
		storeconf.Section{Name: "paste_deploy", Options: []storeconf.Option{
			{Key: "flavor", Value: "keystone"},
			// The config files live in their own directories, where
			// glance-api does not look for its paste pipeline.
			{Key: "config_file", Value: PasteConfig},
		}},
	)
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
