package render

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/excerpt"
	"github.com/c5c3/glance-hooks/hooks/contract/extraconf"
	"github.com/c5c3/glance-hooks/hooks/contract/inivalue"
	"github.com/c5c3/glance-hooks/hooks/contract/storeconf"
)

// PasteIni is glance-api's paste file, rendered into the config ConfigMap
// because the image carries no config files. Only the keystone flavour
// exists ([paste_deploy] flavor = keystone): glance-api loads
// glance-api-keystone, a map of paths, as Glance ships it from 2025.1 on.
// /healthcheck goes to oslo.middleware's healthcheck application, outside
// the pipeline: it answers 200 without a token and without touching the
// database or Keystone, which is what the probes need, and no filter of
// spec.middleware can stand in its way. Every other path goes through the
// pipeline. The healthcheck must be an application: oslo.middleware as
// 2026.1 ships it refuses to build it as a filter (NotImplementedError when
// the pipeline is loaded), and every glance-api process exits before it
// listens; from 2025.1 it warned. The pipeline is paste's own [pipeline:],
// not Glance's pipeline_factory (2025.1 on), so glance 25.1, which the
// real-component tests run, loads the same file; it also parses this file
// as an oslo.config file (wsgi_app reads it from OS_GLANCE_CONFIG_DIR),
// which it can. The healthcheck has no disable_by_file backend: the
// liveness probe asks the same path, so a file that takes a pod out of
// rotation would restart it.
const PasteIni = `[composite:glance-api-keystone]
paste.composite_factory = glance.api:root_app_factory
/: api
/healthcheck: healthcheck

[pipeline:api]
pipeline = cors http_proxy_to_wsgi versionnegotiation osprofiler authtoken context rootapp

[composite:rootapp]
paste.composite_factory = glance.api:root_app_factory
/: apiversions
/v2: apiv2app

[app:apiversions]
paste.app_factory = glance.api.versions:create_resource

[app:apiv2app]
paste.app_factory = glance.api.v2.router:API.factory

[app:healthcheck]
paste.app_factory = oslo_middleware:Healthcheck.app_factory

[filter:versionnegotiation]
paste.filter_factory = glance.api.middleware.version_negotiation:VersionNegotiationFilter.factory

[filter:context]
paste.filter_factory = glance.api.middleware.context:ContextMiddleware.factory

[filter:authtoken]
paste.filter_factory = keystonemiddleware.auth_token:filter_factory
delay_auth_decision = true

[filter:osprofiler]
paste.filter_factory = osprofiler.web:WsgiMiddleware.factory

[filter:cors]
paste.filter_factory = oslo_middleware.cors:filter_factory
oslo_config_project = glance
oslo_config_program = glance-api

[filter:http_proxy_to_wsgi]
paste.filter_factory = oslo_middleware:HTTPProxyToWSGI.factory
`

// PasteFlavor selects [composite:glance-api-<flavor>] in PasteIni.
const PasteFlavor = "keystone"

// PasteBasePipeline is PasteIni's pipeline line, filter by filter, and
// PasteApp the application it ends in.
var PasteBasePipeline = []string{"cors", "http_proxy_to_wsgi", "versionnegotiation", "osprofiler", "authtoken", "context"}

const PasteApp = "rootapp"

// PastePipeline names PasteIni's [pipeline:] section, which the root map
// sends every path but HealthPath to.
const PastePipeline = "api"

// PasteFilter is a filter a feature puts into the pipeline: before every
// filter of PasteIni (api.MiddlewareBefore) or after them, just before the
// application (api.MiddlewareAfter). Filters of one position keep the
// order of the features, then the order each feature gives.
type PasteFilter struct {
	Name, Factory, Position string
	Options                 []storeconf.Option
}

// RenderPaste is the paste file with the features' filters: PasteIni,
// byte for byte, when there are none.
func RenderPaste(spec api.GlanceSpec, filters []func(api.GlanceSpec) []PasteFilter) (string, error) {
	var before, after, sections []string
	seen := map[string]bool{}
	for _, filtersOf := range filters {
		for _, f := range filtersOf(spec) {
			if p := extraconf.FilterNameProblem(f.Name); p != "" || seen[f.Name] {
				return "", fmt.Errorf("paste filter %s: %s", excerpt.Name(f.Name), cmp.Or(p, "is put into the pipeline twice"))
			}
			seen[f.Name] = true
			section, err := pasteFilterSection(f)
			if err != nil {
				return "", err
			}
			sections = append(sections, section)
			switch f.Position {
			case api.MiddlewareBefore:
				before = append(before, f.Name)
			case api.MiddlewareAfter:
				after = append(after, f.Name)
			default:
				return "", fmt.Errorf("paste filter %s: position must be before or after", f.Name)
			}
		}
	}
	if len(sections) == 0 {
		return PasteIni, nil
	}
	line := "pipeline = " + strings.Join(PasteBasePipeline, " ") + " " + PasteApp + "\n"
	pipeline := slices.Concat(before, PasteBasePipeline, after, []string{PasteApp})
	out := strings.Replace(PasteIni, line, "pipeline = "+strings.Join(pipeline, " ")+"\n", 1)
	return out + "\n" + strings.Join(sections, "\n"), nil
}

// pasteFilterSection is a filter's [filter:<name>] section. PasteDeploy
// reads the file with Python's ConfigParser and its %(name)s
// interpolation, so '%' is doubled; what cannot be written is refused.
func pasteFilterSection(f PasteFilter) (string, error) {
	if p := extraconf.FilterFactoryProblem(f.Factory); p != "" {
		return "", fmt.Errorf("paste filter %s: filterFactory %s", f.Name, p)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[filter:%s]\npaste.filter_factory = %s\n", f.Name, f.Factory)
	for _, o := range f.Options {
		if p := extraconf.FilterKeyProblem(o.Key); p != "" {
			return "", fmt.Errorf("paste filter %s: setting %s %s", f.Name, excerpt.Name(o.Key), p)
		}
		if p := inivalue.ValueProblem(o.Value); p != "" {
			return "", fmt.Errorf("paste filter %s: setting %s %s", f.Name, o.Key, p)
		}
		fmt.Fprintf(&b, "%s = %s\n", o.Key, strings.ReplaceAll(o.Value, "%", "%%"))
	}
	return b.String(), nil
}
