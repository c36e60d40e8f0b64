package extraconf

import (
	"strings"
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
		"service password":   {"stays in its Secret", "keystone_authtoken", "password", "hunter2", FieldServiceUser, true},
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
		"paste":              {"the hooks' pipeline", "paste_deploy", "flavor", "keystone+cachemanagement", FieldMiddleware, true},
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
			assert.NotContains(t, g.Message(tc.section, tc.key, OnGlance, InExtraConfig), tc.value, "%s: the message never repeats the value", name)
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

// TestFilterNameProblem holds the filter name rule: every name the
// reference accepts that PasteDeploy and oslo.config read back as written
// is accepted; what would split the pipeline line, be read as a URI, be
// interpolated, or replace the hooks' own filters is refused.
func TestFilterNameProblem(t *testing.T) {
	cases := map[string]struct {
		reason string
		name   string
		refuse bool
	}{
		"ReferenceTokenless": {reason: "the reference's token-less example names its filter with '-'", name: "unauthenticated-context"},
		"Underscore":         {reason: "the form this project took before", name: "unauthenticated_context"},
		"Dotted":             {reason: "PasteDeploy takes '.' in a filter name", name: "audit.v2"},
		"UpperCase":          {reason: "section names are case-sensitive and PasteDeploy keeps the case", name: "Audit"},
		"LeadingDigit":       {reason: "nothing in the pipeline needs a letter first", name: "2fa"},
		"Punctuation":        {reason: "PasteDeploy 3.0.1 and oslo.config read '!', '/', '=', ',' and brackets back as written", name: "a!b/c=d,e[f]"},
		"NonASCII":           {reason: "the file is UTF-8 and Python 3 reads it as such", name: "prüfung"},
		"MaxLength":          {reason: "the longest name the CRD takes", name: strings.Repeat("a", MaxFilterNameLength)},
		"Empty":              {reason: "an empty word vanishes from the pipeline line", name: "", refuse: true},
		"TooLong":            {reason: "one more than the CRD takes", name: strings.Repeat("a", MaxFilterNameLength+1), refuse: true},
		"Space":              {reason: "the pipeline line is split at whitespace: one filter would become two", name: "a b", refuse: true},
		"NoBreakSpace":       {reason: "Python's str.split splits at Unicode spaces too", name: "a\u00a0b", refuse: true},
		"Newline":            {reason: "a newline would end the pipeline line", name: "a\nb", refuse: true},
		"LineSeparator":      {reason: "U+2028 is a line break to Python", name: "a\u2028b", refuse: true},
		"ByteOrderMark":      {reason: "an invisible character cannot be told apart in the file", name: "a\ufeffb", refuse: true},
		"InvalidUTF8":        {reason: "the file is read as UTF-8", name: "a\xffb", refuse: true},
		"Colon":              {reason: "PasteDeploy loads x:y as a URI of scheme x and fails", name: "x:y", refuse: true},
		"EggURI":             {reason: "egg:... would load a package's entry point instead of the section", name: "egg:glance", refuse: true},
		"Percent":            {reason: "the pipeline line is %-interpolated; PasteDeploy fails on a lone %", name: "x%y", refuse: true},
		"HooksFilter":        {reason: "the hooks' own authtoken filter would be replaced", name: "authtoken", refuse: true},
		"HooksApplication":   {reason: "the pipeline's application is no filter", name: "rootapp", refuse: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := FilterNameProblem(tc.name)
			if (got != "") != tc.refuse {
				t.Errorf("%s\nFilterNameProblem(%q) = %q, refuse %v", tc.reason, tc.name, got, tc.refuse)
			}
		})
	}
}

func TestFilterProblems(t *testing.T) {
	assert.Empty(t, FilterFactoryProblem("glance.api.middleware.context:UnauthenticatedContextMiddleware.factory"))
	assert.NotEmpty(t, FilterFactoryProblem("egg:glance#context"))
	assert.NotEmpty(t, FilterFactoryProblem("a:b\n[filter:x]"))
	assert.Empty(t, FilterKeyProblem("oslo_config_project"))
	assert.NotEmpty(t, FilterKeyProblem("paste.filter_factory"))
	assert.NotEmpty(t, FilterKeyProblem("k\r"))
}

func TestMessageNamesTheObjectsPath(t *testing.T) {
	cases := map[string]struct {
		reason      string
		g           Guard
		root, block string
		want        string
	}{
		"glance":           {"a Glance's own field, in the reference's words", Guard{FieldServiceUser, "why"}, OnGlance, InExtraConfig, "k is managed via spec.serviceUser.secretRef and must not be set in extraConfig (why)"},
		"controlplane":     {"the same field under services.glance", Guard{FieldServiceUser, "why"}, OnControlPlane, InExtraConfig, "k is managed via spec.services.glance.serviceUser.secretRef and must not be set in extraConfig (why)"},
		"glance only":      {"a field a ControlPlane lacks is the Glance's", Guard{FieldMiddleware, "why"}, OnControlPlane, InExtraConfig, "k is managed via a Glance's spec.middleware (a ControlPlane does not set it) and must not be set in extraConfig (why)"},
		"plugin":           {"a plugin's config is named as such", Guard{FieldServiceUser, "why"}, OnGlance, InPluginConfig, "k is managed via spec.serviceUser.secretRef and must not be set in a plugin's config (why)"},
		"nobody's on a cp": {"no field, no path", Guard{"", "why"}, OnControlPlane, InExtraConfig, "[s] k cannot be set here: why"},
	}
	for name, tc := range cases {
		assert.Equal(t, tc.want, tc.g.Message("s", "k", tc.root, tc.block), "%s: %s", name, tc.reason)
	}
}
