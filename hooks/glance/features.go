package glance

import (
	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
)

// The features of a Glance, each in a file of its own, registered here in
// the order their lines are rendered. Adding a feature is its file and one
// line in each list it contributes to (docs/hooks.md, "Adding a feature").

// confFeatures render glance-api.conf: [DEFAULT] holds their options in
// this order, and their sections follow it in this order.
var confFeatures = []func(confInput) (confPart, error){
	launchConf,     // launch.go: the port, the eventlet server's workers
	storesConf,     // config.go: enabled_backends, the default store
	importsConf,    // config.go: import methods, staging and tasks areas
	uriFilterConf,  // imports.go: the URI filter of web-download
	pluginsConf,    // imports.go: the import plugins and their sections
	locationsConf,  // config.go: image locations hidden
	databaseConf,   // credentials.go: [database]
	keystoneConf,   // keystone.go: [keystone_authtoken]
	runtimeConf,    // config.go: locks, notifications, paste pipeline
	loggingConf,    // logging.go: oslo.log's options
	cacheConf,      // keystone.go: oslo.cache on the token cache's memcached
	policyConf,     // policy.go: [oslo_policy], secure RBAC and the policy file
	imageCacheConf, // imagecache.go: the per-pod image cache
}

// pasteFeatures put filters into the paste pipeline (paste.go).
var pasteFeatures = []func(api.GlanceSpec) []pasteFilter{
	middlewareFilters, // middleware.go: spec.middleware
	imageCacheFilters, // imagecache.go: the cache, last before the app
}

// podInput is what the pod features read: the Glance, its spec with
// defaults, every store the config renders and the process-wide CA bundle.
type podInput struct {
	glance        *api.Glance
	spec          api.GlanceSpec
	stores        []*store
	processWideCA string
}

// podFeatures add to the glance-api pod template of the Deployment: where
// the pods run, volumes, mounts, environment, annotations.
var podFeatures = []func(podInput, *deploymentChild){
	placeAPIPods,   // placement.go: node selection, spreading, priority
	mountCABundles, // cabundles.go: the stores' CA bundles

	// imagecache.go: the cache volume and its maintenance sidecar
	mountImageCache,
}

// relatedFeatures ask the customize hook for what their sync reads beside
// the backends, the Secrets and the pods (customize.go): each returns the
// related resources the spec calls for, none when its field is unset.
var relatedFeatures = []func(spec api.GlanceSpec, namespace string) []metacontroller.RelatedResource{
	policyRelated,      // policy.go: the ConfigMap spec.policyOverrides names
	secretStoreRelated, // secretstore.go: the store spec.secretStoreRef names
}

// gateFeatures are the features whose condition can hold the render: each
// reads what it asked for in relatedFeatures and returns its condition,
// nil when its field is unset. A False one keeps the last-good config and
// says why (decide.go), and Ready waits for it (report.go).
var gateFeatures = []func(o *observed) (*hook.Condition, error){
	secretStoreGate, // secretstore.go: SecretsReady, the store is Ready
}

// statusFeature is one condition of a Glance: its type, how it is reported
// from what a sync observed, decided and rendered, and whether Ready waits
// for it. Every one is reported on every sync: a feature whose field is
// unset says so under a reason of its own (True: nothing is required), so a
// script waiting for a condition by name never waits for nothing.
type statusFeature struct {
	condType string
	report   func(statusInput) (hook.Condition, error)
	ready    readiness
}

// readiness says whether Ready waits for a condition.
type readiness bool

const (
	// holdsReady: Ready is False while the condition is.
	holdsReady readiness = true
	// besideReady: reported, but a False one does not stop glance-api
	// from serving the current config, so Ready does not wait for it.
	besideReady readiness = false
)

// statusFeatures are the conditions of a Glance, in the order the status
// lists them; Ready follows the last one it waits for (report.go). A gate
// (gateFeatures) reports through the condition of its type here.
var statusFeatures = []statusFeature{
	{CondBackendsReady, backendsCondition, holdsReady},          // report.go: the stores and the default
	{CondConfigRendered, renderedCondition, holdsReady},         // report.go: what render said of the config
	{CondDatabaseReady, databaseCondition, holdsReady},          // report.go: the schema Job's step and its pods
	{CondServiceUserReady, serviceUserCondition, holdsReady},    // report.go: the service user's Secret
	{CondDeploymentReady, deploymentCondition, holdsReady},      // report.go: the rollout and its pods
	{CondHTTPRouteReady, httpRouteReady, holdsReady},            // gateway.go: spec.gateway's route
	{CondNetworkPolicyReady, networkPolicyReady, holdsReady},    // networkpolicy.go: spec.networkPolicy
	{CondSecretsReady, secretsReady, holdsReady},                // secretstore.go: the store, then the Secrets
	{CondGlanceAPIReady, glanceAPIReady, holdsReady},            // apistatus.go: the pods' /healthcheck
	{CondHPAReady, hpaReady, holdsReady},                        // hpastatus.go: spec.autoscaling
	{CondExtraConfigHealthy, extraConfigCondition, besideReady}, // extraconfig.go: spec.extraConfig
	{CondDBPurgeReady, dbPurgeCondition, besideReady},           // report.go: dbpurgestatus.go's, or the purge is off
	{CondStoresReachable, storesReachable, besideReady},         // storereach.go: the backends' checks of their stores
}
