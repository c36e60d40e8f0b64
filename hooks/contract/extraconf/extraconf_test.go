package extraconf

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestGuarded(t *testing.T) {
	cases := map[string]struct {
		reason              string
		section, key, value string
		field               string // "" with guarded: a key nobody may set
		guarded             bool
	}{
		"service password":   {"stays in its Secret", "keystone_authtoken", "password", "x", FieldServiceUser, true},
		"service user name":  {"owned, not guarded: reported by the hook", "keystone_authtoken", "username", "u", "", false},
		"database password":  {"a URL with a password", "database", "connection", "mysql+pymysql://u:p@db/g", FieldDatabase, true},
		"database no secret": {"a URL without one is an owned key", "database", "connection", "mysql+pymysql://db/g", "", false},
		"database garbage":   {"an unreadable URL with '@' may hold one", "database", "connection", "u:p@%zz", FieldDatabase, true},
		"import filtering":   {"its own field", "import_filtering_opts", "allowed_hosts", "hosts-x", FieldImportFiltering, true},
		"image cache":        {"its own field", "DEFAULT", "image_cache_dir", "/c", FieldImageCache, true},
		"import plugins":     {"its own field", "image_import_opts", "image_import_plugins", "[]", FieldImportPlugins, true},
		"plugin section":     {"a plugin's section", "inject_metadata_properties", "ignore_user_roles", "admin", FieldImportPlugins, true},
		"locations":          {"they carry S3 keys", "DEFAULT", "show_image_direct_url", "true", "", true},
		"policy file":        {"rendered from policyOverrides", "oslo_policy", "policy_file", "/p", FieldPolicyOverrides, true},
		"secure RBAC":        {"the switch is the operator's", "oslo_policy", "enforce_scope", "false", "", false},
		"paste":              {"the hooks' pipeline", "paste_deploy", "flavor", "x", FieldMiddleware, true},
		"task work dir":      {"the tasks volume, sized by staging", "task", "work_dir", "/w", FieldStaging, true},
		"python interpreter": {"conversion under uWSGI", "wsgi", "python_interpreter", "/usr/bin/uwsgi", FieldImportPlugins, true},
		"other wsgi option":  {"an option like any other", "wsgi", "task_pool_threads", "16", "", false},
		"anonymous":          {"an option like any other", "DEFAULT", "allow_anonymous_access", "true", "", false},
	}
	for name, tc := range cases {
		g, ok := Guarded(tc.section, tc.key, tc.value)
		assert.Equal(t, tc.guarded, ok, "%s: %s", name, tc.reason)
		assert.Equal(t, tc.field, g.Field, "%s: %s", name, tc.reason)
		if ok {
			assert.NotContains(t, g.Message(tc.section, tc.key, OnGlance), tc.value, "%s: the message never repeats the value", name)
		}
	}
}

func TestOwned(t *testing.T) {
	assert.True(t, Owned("DEFAULT", "enabled_backends"))
	assert.True(t, Owned("os_glance_staging_store", "anything"))
	assert.True(t, Owned("keystone_authtoken", "memcached_servers"))
	assert.False(t, Owned("DEFAULT", "workers"), "a default the operator may tune")
	assert.False(t, Owned("oslo_policy", "enforce_new_defaults"), "the secure-RBAC switch")
}

func TestFilterProblems(t *testing.T) {
	assert.Empty(t, FilterNameProblem("unauthenticated_context"))
	assert.NotEmpty(t, FilterNameProblem("authtoken"), "the hooks' own")
	assert.NotEmpty(t, FilterNameProblem("rootapp"), "the hooks' application")
	assert.NotEmpty(t, FilterNameProblem("a b"))
	assert.Empty(t, FilterFactoryProblem("glance.api.middleware.context:UnauthenticatedContextMiddleware.factory"))
	assert.NotEmpty(t, FilterFactoryProblem("egg:glance#context"))
	assert.NotEmpty(t, FilterFactoryProblem("a:b\n[filter:x]"))
	assert.Empty(t, FilterKeyProblem("oslo_config_project"))
	assert.NotEmpty(t, FilterKeyProblem("paste.filter_factory"))
	assert.NotEmpty(t, FilterKeyProblem("k\r"))
	assert.True(t, LineBreak("a\rb"))
	assert.False(t, LineBreak("a b"))
}

func TestMessageNamesTheObjectsPath(t *testing.T) {
	cases := map[string]struct {
		reason string
		g      Guard
		root   string
		want   string
	}{
		"glance":           {"a Glance's own field", Guard{FieldServiceUser, "why"}, OnGlance, "[s] k is owned by spec.serviceUser.secretRef: why"},
		"controlplane":     {"the same field under services.glance", Guard{FieldServiceUser, "why"}, OnControlPlane, "[s] k is owned by spec.services.glance.serviceUser.secretRef: why"},
		"glance only":      {"a field a ControlPlane lacks is the Glance's", Guard{FieldMiddleware, "why"}, OnControlPlane, "[s] k is owned by a Glance's spec.middleware, which a ControlPlane does not set: why"},
		"nobody's on a cp": {"no field, no path", Guard{"", "why"}, OnControlPlane, "[s] k cannot be set here: why"},
	}
	for name, tc := range cases {
		assert.Equal(t, tc.want, tc.g.Message("s", "k", tc.root), "%s: %s", name, tc.reason)
	}
}
