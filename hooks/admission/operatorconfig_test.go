package admission

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/extraconf"
)

// TestOperatorConfig: what spec.extraConfig, spec.plugins,
// spec.middleware and spec.policyOverrides may say, with the refusal or the
// warnings each gets.
func TestOperatorConfig(t *testing.T) {
	ec := func(section, key, value string) func(*api.Glance) {
		return func(g *api.Glance) {
			g.Spec.ExtraConfig = map[string]map[string]string{section: {key: value}}
		}
	}
	cases := map[string]struct {
		reason   string
		mod      func(*api.Glance)
		refused  string
		warnings []string
	}{
		"known option": {reason: "an option of the release's glance-api is taken as it is",
			mod: ec("DEFAULT", "allow_anonymous_access", "true")},
		"owned key": {reason: "a key the hooks render may be overridden; the sync hook reports it",
			mod: ec("DEFAULT", "enabled_backends", "a:s3")},
		"secure RBAC off": {reason: "the switch that turns off the new policy defaults",
			mod: ec("oslo_policy", "enforce_new_defaults", "false")},
		"reserved store section": {reason: "the staging store is a file store; its driver's options are known",
			mod: ec("os_glance_staging_store", "filesystem_store_datadir", "/srv")},
		"unknown option": {reason: "a misspelt option would be ignored by glance-api",
			mod:     ec("DEFAULT", "allow_anonymus_access", "true"),
			refused: `spec.extraConfig[DEFAULT][allow_anonymus_access]: no such option in the glance 2025.2 option catalog`},
		"unknown section": {reason: "an S3 store's section is in backends.conf, out of reach",
			mod:     ec("secondary", "s3_store_bucket", "b"),
			refused: `spec.extraConfig[secondary][s3_store_bucket]: no such section in the glance 2025.2 option catalog (sections registered by a loaded plugin must be declared via spec.plugins): an S3 store's options go in its GlanceBackend's spec.extraOptions`},
		"deprecated name": {reason: "an old name still works; the warning names the new one",
			mod:      ec("keystone_authtoken", "memcache_servers", "m:11211"),
			warnings: []string{"spec.extraConfig [keystone_authtoken] memcache_servers: deprecated option in glance 2025.2, replaced by [keystone_authtoken] memcached_servers"}},
		"deprecated for removal": {reason: "an option on its way out, with no new name to move to",
			mod: func(g *api.Glance) {
				g.Spec.OpenStackRelease, g.Spec.Image.Tag = "2026.1", "2026.1"
				ec("DEFAULT", "digest_algorithm", "sha256")(g)
			},
			warnings: []string{"spec.extraConfig [DEFAULT] digest_algorithm: deprecated option in glance 2026.1 with no replacement"}},
		"release without a catalog": {reason: "nothing can be checked, and the warning says so",
			mod: func(g *api.Glance) {
				g.Spec.OpenStackRelease, g.Spec.Image.Tag = "2030.1", "2030.1"
				ec("DEFAULT", "anything", "x")(g)
			},
			warnings: []string{`spec.extraConfig was not validated against an option catalog: no catalog for release "2030.1" is embedded in this operator build`}},
		"service password": {reason: "the password stays in its Secret",
			mod:     ec("keystone_authtoken", "password", "x"),
			refused: `spec.extraConfig[keystone_authtoken][password]: password is managed via spec.serviceUser.secretRef and must not be set in extraConfig (`},
		"database password": {reason: "a connection URL with a password is a credential",
			mod:     ec("database", "connection", "mysql+pymysql://u:p@db/glance"),
			refused: `connection is managed via spec.database.secretRef and must not be set in extraConfig`},
		"import filtering": {reason: "its own field sets it",
			mod: ec("import_filtering_opts", "allowed_ports", "[80]"), refused: `allowed_ports is managed via spec.importFiltering and must not be set in extraConfig`},
		"image cache": {reason: "its own field sets it",
			mod: ec("DEFAULT", "image_cache_dir", "/c"), refused: `image_cache_dir is managed via spec.imageCache and must not be set in extraConfig`},
		"import plugins": {reason: "its own field sets it",
			mod: ec("image_conversion", "output_format", "raw"), refused: `output_format is managed via spec.importPlugins and must not be set in extraConfig`},
		"task work dir": {reason: "the tasks volume is sized by the staging field",
			mod: ec("task", "work_dir", "/w"), refused: `spec.extraConfig[task][work_dir]: work_dir is managed via spec.staging and must not be set in extraConfig (`},
		"python interpreter": {reason: "conversion under uWSGI needs the hooks' value",
			mod: ec("wsgi", "python_interpreter", "/usr/bin/uwsgi"), refused: `python_interpreter is managed via spec.importPlugins and must not be set in extraConfig (`},
		"image locations": {reason: "locations carry the S3 keys",
			mod: ec("DEFAULT", "show_multiple_locations", "true"), refused: `[DEFAULT] show_multiple_locations cannot be set here`},
		"newline in a value": {reason: "a newline would inject a line",
			mod: ec("DEFAULT", "debug", "true\n[database]"), refused: `spec.extraConfig[DEFAULT][debug]: extraConfig key and value must not contain a newline or carriage return: the rendered INI writes them verbatim, so a newline injects arbitrary config lines`},
		"carriage return in a key": {reason: "a carriage return would end the line",
			mod: ec("DEFAULT", "debug\r", "true"), refused: `spec.extraConfig[DEFAULT][debug\r]: extraConfig key and value must not contain a newline or carriage return`},
		"newline in a section": {reason: "a newline would open another section",
			mod: ec("DEFAULT]\n[database", "connection", "x"), refused: `spec.extraConfig: extraConfig section name must not contain a newline or carriage return`},
		"empty section name": {reason: "the reference's rule, in its words",
			mod: ec("", "debug", "true"), refused: `spec.extraConfig: extraConfig section name must not be empty`},
		"empty key": {reason: "the reference's rule, in its words",
			mod: ec("DEFAULT", "", "true"), refused: `spec.extraConfig[DEFAULT]: extraConfig key must not be empty`},
		"empty section": {reason: "a section with no option says nothing",
			mod:     func(g *api.Glance) { g.Spec.ExtraConfig = map[string]map[string]string{"DEFAULT": {}} },
			refused: `spec.extraConfig[DEFAULT] is empty`},
		"plugin section": {reason: "a plugin's section is its own, not held to the catalog",
			mod: func(g *api.Glance) {
				g.Spec.Plugins = []api.PluginSpec{{Name: "p", ConfigSection: "my_driver", Config: map[string]string{"opt": "1"}}}
			}},
		"plugin guarded key": {reason: "a plugin cannot set what extraConfig may not",
			mod: func(g *api.Glance) {
				g.Spec.Plugins = []api.PluginSpec{{Name: "p", ConfigSection: "keystone_authtoken", Config: map[string]string{"password": "x"}}}
			},
			refused: `spec.plugins[0].config[password]: password is managed via spec.serviceUser.secretRef and must not be set in a plugin's config (`},
		"plugin sections twice": {reason: "one entry per section",
			mod: func(g *api.Glance) {
				g.Spec.Plugins = []api.PluginSpec{{Name: "a", ConfigSection: "s"}, {Name: "b", ConfigSection: "s"}}
			},
			refused: `spec.plugins[1].configSection names a section another entry has`},
		"middleware": {reason: "glance's own unauthenticated context filter, after the hooks' filters, named as the reference's token-less example names it",
			mod: func(g *api.Glance) {
				g.Spec.Middleware = []api.MiddlewareSpec{{Name: "unauthenticated-context", FilterFactory: "glance.api.middleware.context:UnauthenticatedContextMiddleware.factory", Position: api.MiddlewareAfter}}
			}},
		"middleware name with '_'": {reason: "the name this project asked for before stays accepted",
			mod: func(g *api.Glance) {
				g.Spec.Middleware = []api.MiddlewareSpec{{Name: "unauthenticated_context", FilterFactory: "glance.api.middleware.context:UnauthenticatedContextMiddleware.factory", Position: api.MiddlewareAfter}}
			}},
		"middleware name a URI": {reason: "PasteDeploy would load egg:x as a package's entry point, not the filter's section",
			mod: func(g *api.Glance) {
				g.Spec.Middleware = []api.MiddlewareSpec{{Name: "egg:x", FilterFactory: "a:b", Position: api.MiddlewareAfter}}
			},
			refused: `spec.middleware[0].name must not contain ':'`},
		"middleware name two words": {reason: "the pipeline line would list two filters",
			mod: func(g *api.Glance) {
				g.Spec.Middleware = []api.MiddlewareSpec{{Name: "a b", FilterFactory: "a:b", Position: api.MiddlewareAfter}}
			},
			refused: `spec.middleware[0].name must not contain whitespace`},
		"plugin without a name": {reason: "a plugin's name is rendered nowhere; the reference takes any",
			mod: func(g *api.Glance) {
				g.Spec.Plugins = []api.PluginSpec{{Name: "", ConfigSection: "s", Config: map[string]string{"k": "v"}}}
			}},
		"logger name with a colon": {reason: "the reference takes any non-empty logger name; ':' breaks neither file",
			mod: func(g *api.Glance) {
				g.Spec.Logging = &api.LoggingSpec{Format: api.LogFormatText, Level: api.DefaultLogLevel, PerLoggerLevels: map[string]string{"glance-store:s3": "DEBUG"}}
			}},
		"logger name with '='": {reason: "oslo.log would split the pair there",
			mod: func(g *api.Glance) {
				g.Spec.Logging = &api.LoggingSpec{Format: api.LogFormatText, Level: api.DefaultLogLevel, PerLoggerLevels: map[string]string{"a=b": "DEBUG"}}
			},
			refused: `spec.logging.perLoggerLevels[a=b]: a logger name must not contain '=', ',' or '%'`},
		"empty logger name": {reason: "the reference's rule, in its words",
			mod: func(g *api.Glance) {
				g.Spec.Logging = &api.LoggingSpec{Format: api.LogFormatText, Level: api.DefaultLogLevel, PerLoggerLevels: map[string]string{"": "DEBUG"}}
			},
			refused: `spec.logging.perLoggerLevels[]: logger name must not be empty`},
		"middleware of the hooks": {reason: "a filter named like the hooks' own would replace it",
			mod: func(g *api.Glance) {
				g.Spec.Middleware = []api.MiddlewareSpec{{Name: "context", FilterFactory: "a:b", Position: api.MiddlewareAfter}}
			},
			refused: `spec.middleware[0].name is a filter or application of the pipeline the hooks render`},
		"middleware twice": {reason: "names are unique",
			mod: func(g *api.Glance) {
				g.Spec.Middleware = []api.MiddlewareSpec{{Name: "a", FilterFactory: "a:b", Position: "before"}, {Name: "a", FilterFactory: "a:b", Position: "after"}}
			},
			refused: `spec.middleware[1].name is the name of another entry`},
		"middleware position": {reason: "before or after",
			mod: func(g *api.Glance) {
				g.Spec.Middleware = []api.MiddlewareSpec{{Name: "a", FilterFactory: "a:b", Position: "middle"}}
			},
			refused: `spec.middleware[0].position must be before or after`},
		"middleware setting": {reason: "the factory is set from filterFactory",
			mod: func(g *api.Glance) {
				g.Spec.Middleware = []api.MiddlewareSpec{{Name: "a", FilterFactory: "a:b", Position: "before", Config: map[string]string{"paste.filter_factory": "x:y"}}}
			},
			refused: `spec.middleware[0].config: setting "paste.filter_factory" is set from filterFactory`},
		"policy": {reason: "rules and a ConfigMap together",
			mod: func(g *api.Glance) {
				g.Spec.PolicyOverrides = &api.PolicySpec{Rules: map[string]string{"delete_image": "!"}, ConfigMapRef: &api.LocalObjectReference{Name: "p"}}
			}},
		"empty policy": {reason: "rules or a ConfigMap",
			mod:     func(g *api.Glance) { g.Spec.PolicyOverrides = &api.PolicySpec{} },
			refused: `spec.policyOverrides: at least one of rules or configMapRef must be set`},
		"empty rule": {reason: "an empty rule is refused; \"@\" allows everyone",
			mod: func(g *api.Glance) {
				g.Spec.PolicyOverrides = &api.PolicySpec{Rules: map[string]string{"get_images": ""}}
			},
			refused: `spec.policyOverrides: policy rule value must not be empty: rule "get_images" (write "@" to allow everyone`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			req := create(t, guideGlance(tc.mod))
			resp := Review(context.Background(), req, &fakeLister{})
			if tc.refused == "" {
				allowed(t, req, resp)
				if diff := cmp.Diff(tc.warnings, resp.Warnings); diff != "" {
					t.Errorf("%s: warnings (-want +got):\n%s", tc.reason, diff)
				}
				return
			}
			msg := denied(t, req, resp, 422)
			assert.Contains(t, msg, tc.refused, tc.reason)
		})
	}
}

// TestGuardFieldsOnControlPlane holds extraconf's list of the guarding
// fields a ControlPlane lacks to the ControlPlane's type: a refusal on a
// ControlPlane must name a path it has.
func TestGuardFieldsOnControlPlane(t *testing.T) {
	has := map[string]bool{}
	typ := reflect.TypeFor[api.GlanceService]()
	for i := range typ.NumField() {
		has[strings.Split(typ.Field(i).Tag.Get("json"), ",")[0]] = true
	}
	for _, f := range []string{extraconf.FieldServiceUser, extraconf.FieldDatabase, extraconf.FieldImportFiltering, extraconf.FieldImageCache,
		extraconf.FieldImportPlugins, extraconf.FieldPolicyOverrides, extraconf.FieldMiddleware, extraconf.FieldStaging} {
		top := strings.Split(f, ".")[0]
		assert.Equal(t, !has[top], extraconf.NotOnControlPlane[f], "%s: spec.services.glance has it: %v", f, has[top])
	}
}
