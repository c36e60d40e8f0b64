package glance

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/glance/decide"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/observe"
	"github.com/c5c3/glance-hooks/hooks/glance/render"
	"github.com/c5c3/glance-hooks/hooks/glance/report"
)

// feature is one feature of a Glance as one value: what it contributes to
// each step of a sync, every field optional. The steps loop over features
// in their order, so adding a feature is its file and one line in
// features (docs/hooks.md, "Adding a feature").
type feature struct {
	// name is the feature's name in docs/hooks.md's list of features.
	name string
	// related asks the customize hook for what its sync reads beside the
	// backends, the Secrets and the pods (customize.go), none when its
	// field is unset.
	related func(spec api.GlanceSpec, namespace string) []metacontroller.RelatedResource
	// gate reads what it asked for and returns its condition, nil when its
	// field is unset. A False one keeps the last-good config and says why
	// (decide.go), and Ready waits for it (report.go).
	gate func(o *observe.Observed, related metacontroller.ObjectMap) (*hook.Condition, error)
	// observe reads its children into its typed fields of observed, so
	// nothing after observe reads the request's maps.
	observe func(o *observe.Observed, children metacontroller.ObjectMap) error
	// observeRelated reads what customize asked for into its typed fields
	// of observed, when that is no gate.
	observeRelated func(o *observe.Observed, related metacontroller.ObjectMap)
	// decide makes its decision from what was observed, into d; it
	// changes nothing of o (decide.go).
	decide func(o *observe.Observed, d *decide.Decision)
	// conf adds to glance-api.conf: [DEFAULT] holds the features' options
	// in their order, and their sections follow it in their order.
	conf func(render.ConfInput) (render.ConfPart, error)
	// paste puts filters into the paste pipeline (paste.go).
	paste func(api.GlanceSpec) []render.PasteFilter
	// file writes its files beside glance-api.conf into the config
	// ConfigMap's data.
	file func(in render.ConfInput, data map[string]string) error
	// everyPod changes every pod template the Glance renders: the
	// Deployment's, the schema Jobs' and the purge CronJob's.
	everyPod func(pod *corev1.PodSpec, spec api.GlanceSpec)
	// jobPod changes the pod template of every glance-manage Job: the
	// schema Jobs' and the purge CronJob's.
	jobPod func(pod *corev1.PodSpec, spec api.GlanceSpec)
	// apiPod changes the glance-api pod template of the Deployment: where
	// the pods run, volumes, mounts, environment, annotations.
	apiPod func(render.PodInput, *render.DeploymentChild)
	// withDeployment are its children that come with the Deployment, once
	// glance-api may run.
	withDeployment func(render.DeploymentInput) []any
	// reach are its children rendered whatever the config decision, with
	// their condition (reachChildren, sync.go).
	reach func(o *observe.Observed, stores []*model.Store) ([]any, *hook.Condition, error)
	// events are the Events its part of the observed status calls for
	// (report/events.go).
	events func(api.GlanceStatus) []report.Occurrence
	// lastGood are the kinds of children kept as last applied when nothing
	// is re-rendered, in the order they are returned.
	lastGood []string
	// status are its conditions, in the order the status lists them.
	status []report.StatusFeature
}

// features are the features of a Glance, each once, in the order their
// contributions are made: glance-api.conf's options and sections, the
// paste filters, the pod changes, what customize asks for, the kinds kept
// as last applied, and the conditions in the order the status lists them;
// Ready follows the last condition it waits for (report.go). Each line
// names the file of its feature. It is set by init: a contribution (the
// purge CronJob's pod) runs every feature's change to every pod template,
// which a variable's own initializer cannot refer to.
var features []feature

func init() {
	features = registered()
	files = filesOf(features)
	everyPod = everyPodOf(features)
	parts = partsOf(features)
	decisions = deciders()
	for _, f := range features {
		statuses = append(statuses, f.status...)
		if f.events != nil {
			eventSources = append(eventSources, f.events)
		}
	}
}

// eventSources are the features' Events, in their order, gathered once.
var eventSources []func(api.GlanceStatus) []report.Occurrence

// statuses are the features' conditions, in the order the status lists
// them, gathered once.
var statuses []report.StatusFeature

// everyPod are the features' changes to every pod template, gathered once.
var everyPod []func(*corev1.PodSpec, api.GlanceSpec)

// everyPodOf gathers the features' changes to every pod template, in
// their order.
func everyPodOf(fs []feature) []func(*corev1.PodSpec, api.GlanceSpec) {
	var changes []func(*corev1.PodSpec, api.GlanceSpec)
	for _, f := range fs {
		if f.everyPod != nil {
			changes = append(changes, f.everyPod)
		}
	}
	return changes
}

// files are the features' contributions to the config's files, gathered
// once.
var files render.FileParts

// filesOf gathers the features' contributions to the config's files, in
// their order.
func filesOf(fs []feature) render.FileParts {
	var p render.FileParts
	for _, f := range fs {
		if f.conf != nil {
			p.Conf = append(p.Conf, f.conf)
		}
		if f.paste != nil {
			p.Paste = append(p.Paste, f.paste)
		}
		if f.file != nil {
			p.Data = append(p.Data, f.file)
		}
	}
	return p
}

// registered is the list features holds: those that shape the config and
// the pods first, then those whose children and conditions follow the
// Deployment.
func registered() []feature {
	return append(shapingFeatures(), followingFeatures()...)
}

// shapingFeatures shape glance-api.conf, the paste pipeline and the pods.
func shapingFeatures() []feature {
	return []feature{
		{name: "launch", conf: render.LaunchConf}, // render/config.go: the port, the eventlet server's workers
		// backends.go, config.go, report.go: an outdated store held, enabled_backends, the default store
		{name: "stores", decide: decide.HoldOutdatedStores, conf: render.StoresConf, events: report.SkippedBackends,
			status: holds(model.CondBackendsReady, report.BackendsCondition)},
		{name: "retirement", decide: decide.RetireStores}, // decide/stores.go: the retiring stores the running config holds
		// report.go: what render said of the config
		{name: "config", status: holds(model.CondConfigRendered, report.RenderedCondition),
			lastGood: []string{names.ConfigMapsKey, names.SecretsKey, names.DeploymentsKey, names.ServicesKey, names.JobsKey}},
		{name: "imports", conf: importsConf},        // imports.go: import methods, staging and tasks areas
		{name: "uri-filter", conf: uriFilterConf},   // imports.go: the URI filter of web-download
		{name: "import-plugins", conf: pluginsConf}, // imports.go: the import plugins and their sections
		{name: "locations", conf: locationsConf},    // locations.go: image locations hidden
		// credentials.go: [database]; report.go: the schema Job's step and its pods
		{name: "database", conf: databaseConf, events: report.SchemaOccurrences,
			status: holds(model.CondDatabaseReady, report.DatabaseCondition)},
		// databasetls.go: the database TLS files in every pod
		{name: "database-tls", everyPod: mountDatabaseTLS},
		// keystone.go: [keystone_authtoken]; report.go: the service user's Secret
		{name: "keystone", conf: keystoneConf, status: holds(model.CondServiceUserReady, report.ServiceUserCondition)},
		{name: "runtime", conf: render.RuntimeConf},             // config.go: locks, notifications, paste pipeline
		{name: "logging", conf: loggingConf, file: loggingFile}, // logging.go: oslo.log's options, the logging config
		{name: "token-cache", conf: cacheConf},                  // keystone.go: oslo.cache on the token cache's memcached
		{name: "middleware", paste: middlewareFilters},          // middleware.go: spec.middleware
		// policy.go: [oslo_policy], secure RBAC, the ConfigMap spec.policyOverrides names, the policy file
		{name: "policy", conf: policyConf, file: writePolicyFile, related: policyRelated, observeRelated: observePolicy},
		// placement.go: node selection, spreading, priority of glance-api's pods and the Jobs'
		{name: "placement", apiPod: placeAPIPods, jobPod: placeJobPods},
		// cabundles.go: the stores' CA bundles
		{name: "ca-bundles", decide: chooseProcessWideCA, apiPod: mountCABundles},
		// imagecache.go: the per-pod cache, its filter last before the app, its volume and sidecar
		{name: "image-cache", conf: imageCacheConf, paste: imageCacheFilters, apiPod: mountImageCache},
	}
}

// followingFeatures report on the rollout and add the children that come
// with it or beside it.
func followingFeatures() []feature {
	return []feature{
		// report.go: the rollout and its pods
		{name: "deployment", status: holds(model.CondDeploymentReady, report.DeploymentCondition)},
		// gateway.go: spec.gateway's route
		{name: "gateway", observe: observeGatewayRoute, reach: gatewayReach,
			status: holds(model.CondHTTPRouteReady, httpRouteReady)},
		// networkpolicy.go: spec.networkPolicy
		{name: "network-policy", observe: observeEgress, decide: awaitStoreEgress,
			reach: networkPolicyReach, status: holds(model.CondNetworkPolicyReady, networkPolicyReady)},
		// secretstore.go: the store spec.secretStoreRef names, SecretsReady
		{name: "secret-store", related: secretStoreRelated, gate: secretStoreGate,
			status: holds(model.CondSecretsReady, secretsReady)},
		// apistatus.go: the pods' /healthcheck
		{name: "api-health", status: holds(model.CondGlanceAPIReady, glanceAPIReady)},
		// disruptionbudget.go: the PodDisruptionBudget of glance-api's pods
		{name: "disruption-budget", withDeployment: disruptionBudgetWithDeployment, lastGood: []string{names.PodDisruptionBudgetsKey}},
		// autoscaling.go: spec.autoscaling, its HorizontalPodAutoscaler, HPAReady
		{name: "autoscaling", observe: observeAutoscaler, withDeployment: autoscalerWithDeployment,
			status: holds(model.CondHPAReady, hpaReady), lastGood: []string{names.HorizontalPodAutoscalersKey}},
		// extraconfig.go: spec.extraConfig
		{name: "extra-config", events: extraConfigOccurrences,
			status: beside(model.CondExtraConfigHealthy, extraConfigCondition)},
		// dbpurge.go: the purge CronJob and DBPurgeReady
		{name: "db-purge", observe: observePurgeCronJob, events: purgeOccurrences,
			status: beside(model.CondDBPurgeReady, dbPurgeCondition), withDeployment: dbPurgeWithDeployment,
			lastGood: []string{names.CronJobsKey}},
		// storereach.go: the backends' checks of their stores
		{name: "store-reach", events: unreachableOccurrences,
			status: beside(model.CondStoresReachable, storesReachable)},
	}
}

// holds is one condition Ready waits for.
func holds(condType string, condition func(report.StatusInput) (hook.Condition, error)) []report.StatusFeature {
	return []report.StatusFeature{{CondType: condType, Report: condition, Ready: report.HoldsReady}}
}

// beside is one condition reported beside Ready.
func beside(condType string, condition func(report.StatusInput) (hook.Condition, error)) []report.StatusFeature {
	return []report.StatusFeature{{CondType: condType, Report: condition, Ready: report.BesideReady}}
}

// deciders are the features' decisions, in the features' order.
func deciders() []func(*observe.Observed, *decide.Decision) {
	var steps []func(*observe.Observed, *decide.Decision)
	for _, f := range features {
		if f.decide != nil {
			steps = append(steps, f.decide)
		}
	}
	return steps
}

// decisions are the features' decisions, gathered once.
var decisions []func(*observe.Observed, *decide.Decision)

// parts are what the render stage runs of the features, gathered once.
var parts render.Parts

// partsOf gathers what the render stage runs of the features, in their
// order: the config's files, the changes to every pod and to glance-api's,
// the children that come with the Deployment, the kinds kept as last
// applied.
func partsOf(fs []feature) render.Parts {
	p := render.Parts{Files: files, EveryPod: everyPod}
	for _, f := range fs {
		if f.apiPod != nil {
			p.APIPod = append(p.APIPod, f.apiPod)
		}
		if f.jobPod != nil {
			p.JobPod = append(p.JobPod, f.jobPod)
		}
		if f.withDeployment != nil {
			p.WithDeployment = append(p.WithDeployment, f.withDeployment)
		}
		p.LastGood = append(p.LastGood, f.lastGood...)
	}
	return p
}
