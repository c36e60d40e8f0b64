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
