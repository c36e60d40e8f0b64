package api

import "github.com/c5c3/glance-hooks/hooks/contract/problem"

// SpecPart is a feature's part of a Glance spec: the defaults it fills in
// and the rules it is held to, each optional. It lives here, beside the
// types, and not with the feature's behaviour in hooks/glance, because the
// Glance and ControlPlane sync hooks and admission all run it: admission
// and the ControlPlane hook may not import the Glance hook. The rules report through hooks/contract/problem
// and check values with hooks/contract/inivalue, leaves of the contract
// that import nothing of this package, so a part needs no package above
// this one.
type SpecPart struct {
	// Name is the feature's name, as the Glance hook registers it and
	// docs/hooks.md lists it.
	Name string
	// Defaults fills in what the spec leaves out of the part. It runs in
	// the order of glanceParts, on a spec the parts before it have
	// filled.
	Defaults func(s *GlanceSpec, namespace string)
	// Rules checks the part on a spec with every default filled in, as
	// the sync hooks use it. Its paths are relative to the Glance settings
	// (a Glance's spec, a ControlPlane's spec.services.glance); the caller
	// re-roots them. Admission and every sync hook run the same function,
	// so both gates refuse the same thing in the same words.
	Rules func(s GlanceSpec) problem.List
	// WrittenRules checks the part on the spec as written, before any
	// default: for a rule that asks for a field the defaults would fill
	// in, so that the spec with them can no longer tell whether it was
	// set (decompression asks for a staging bound chosen by hand). Its
	// paths are as Rules's; the gates run it right after Rules.
	WrittenRules func(written GlanceSpec) problem.List
}

// GlanceParts are the parts of a Glance spec, in the order their defaults
// are filled in and their rules run.
func GlanceParts() []SpecPart { return glanceParts }

// WithDefaults returns the spec with every unset field filled in, so what a
// Glance runs is fully spelled out in one place: each part's defaults, in
// the order of glanceParts.
func (s GlanceSpec) WithDefaults(namespace string) GlanceSpec {
	for _, part := range glanceParts {
		if part.Defaults != nil {
			part.Defaults(&s, namespace)
		}
	}
	return s
}

// glanceParts are the parts of a Glance spec, one line per feature with
// defaults or rules, in order: the image's tag follows the release, so the
// launch part goes first. A feature with defaults or rules of its own adds
// its line here; its file holds its types, defaults and rules.
var glanceParts = []SpecPart{
	{Name: "launch", Defaults: launchDefaults, Rules: launchRules},                             // launch.go: the release, its image, the server's sizes
	{Name: "deployment", Defaults: deploymentDefault, Rules: deploymentRules},                  // deployment.go: replicas, resources; the grace period, preStop, the strategy
	{Name: "database", Defaults: databaseDefault, Rules: databaseRules},                        // database.go: the conventional cluster, the Secret's key, the port; where it is, TLS
	{Name: "token-cache", Defaults: cacheDefault, Rules: cacheRules},                           // tokencache.go: the conventional memcached; where it is, its backend
	{Name: "keystone", Defaults: keystoneDefaults, Rules: keystoneRules},                       // keystone.go: the endpoints, the region, the service user
	{Name: "secret-store", Rules: secretStoreRules},                                            // secretstore.go: the External Secrets store's name and kind
	{Name: "logging", Defaults: loggingDefault, Rules: loggingRules},                           // logging.go: format and level of a set logging; the loggers' names and levels
	{Name: "imports", Defaults: importDefaults, Rules: importRules},                            // imports.go: metadefs, import methods, staging
	{Name: "uri-filter", Rules: uriFilterRules},                                                // imports.go: web-download's URI filter
	{Name: "import-plugins", Rules: importPluginRules, WrittenRules: importPluginWrittenRules}, // imports.go: the plugins' settings; decompression's staging bound
	{Name: "image-cache", Rules: imageCacheRules},                                              // imagecache.go: the cache volume's and the pass's floors, the filter's name kept free
	{Name: "gateway", Rules: gatewayRules},                                                     // gateway.go: the HTTPRoute's host, Gateway, path and annotations
	{Name: "db-purge", Defaults: dbPurgeDefault, Rules: dbPurgeRules},                          // dbpurge.go: the purge, on by default; retention and schedule
	{Name: "autoscaling", Defaults: autoscalingDefault, WrittenRules: autoscalingProblems},     // autoscaling.go: the autoscaler, its minimum and target; its bounds as written
	{Name: "middleware", Rules: middlewareRules},                                               // middleware.go: the filters' names, factories, positions and settings
	{Name: "policy", Rules: policyRules},                                                       // policy.go: rules or a ConfigMap; the rules' names and values
}
