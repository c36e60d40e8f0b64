package glance

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/contract/problem"
	"github.com/c5c3/glance-hooks/hooks/contract/rules"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/observe"
)

// observed is a /sync/glance request decoded once: the Glance, its attached
// stores as their backends and store Secrets show them, the credentials,
// the schema Jobs and their pods, and the running Deployment with the
// backends.conf it mounts and, during a rollout, its pods. The decisions
// (decide.go), render and report read this value only: every child and
// related object is decoded here, once, into a typed field, and nothing
// after observe reads the request's maps.
type observed struct {
	glance *api.Glance
	spec   api.GlanceSpec
	now    time.Time
	// stores are the attached backends, sorted by store id, each
	// evaluated against its store Secret.
	stores []*model.Store
	// deployment is the running Deployment, nil before there is one;
	// running the backends.conf its pods mount, "" when there is none.
	deployment *appsv1.Deployment
	running    string
	// pods are the Deployment's pods and the schema Jobs'.
	pods observedPods
	// hasConfig says a config ConfigMap was ever rendered.
	hasConfig bool
	creds     credentialsRead
	jobs      []observe.ObservedJob
	// mounted are what the running Deployment and the unfinished schema
	// Jobs mount: the history keeps them (sync.go).
	mounted mountedNamesList
	// configs and backendsSecrets are the observed hashed ConfigMaps and
	// backends Secrets, for the history.
	configs, backendsSecrets []observe.HashedChild
	// policy is spec.policyOverrides' rules, or why they cannot be read.
	policy    map[string]string
	policyErr error
	// applied are the children, returned as last applied when nothing is
	// re-rendered, or kept while a pod may mount them; nothing reads
	// their content (lastapplied.go).
	applied observe.LastApplied
	// route, purge and events are the observed HTTPRoute, purge CronJob
	// and Events; autoscalerObserved says an autoscaler is observed.
	route              observedRoute
	purge              observedPurge
	events             observedEvents
	autoscalerObserved bool
	// allowedEgress is the egress of the observed glance-api
	// NetworkPolicy, by rule key (networkpolicy.go).
	allowedEgress map[string]bool
	// gates are the conditions of the features' gates whose field is set.
	gates []hook.Condition
	// invalid are the rules of hooks/contract/rules the Glance breaks,
	// the same admission refuses it for: nothing new is rendered from it.
	invalid problem.List
}

// credentialsRead is what the database and service-user Secrets give: the
// credentials when both are complete, and the two conditions.
type credentialsRead struct {
	creds     *credentials
	dbProblem *hook.Condition
	user      hook.Condition
}

// mountedNamesList are the hashed ConfigMaps and backends Secrets pods
// mount.
type mountedNamesList struct{ configMaps, backendsSecrets []string }

// observeRequest decodes the request. A request that is not a Glance's, or holds an
// object that does not decode, is an input error and nothing is decided.
func observeRequest(req *metacontroller.SyncRequest, now time.Time) (*observed, error) {
	var g api.Glance
	if err := hook.DecodeParent(req.Parent, api.GlanceAPIVersion, api.KindGlance, &g); err != nil {
		return nil, err
	}
	o := &observed{glance: &g, spec: g.Spec.WithDefaults(g.Namespace), now: now,
		hasConfig: len(req.Children[names.ConfigMapsKey]) > 0}
	var err error
	if o.stores, err = attachedStores(&g, req.Related); err != nil {
		return nil, err
	}
	if err := o.observeDeployment(req); err != nil {
		return nil, err
	}
	if o.creds.creds, o.creds.dbProblem, o.creds.user, err = readCredentials(&g, o.spec, req.Related); err != nil {
		return nil, err
	}
	if err := o.observeChildren(req.Children); err != nil {
		return nil, err
	}
	o.policy, o.policyErr = policyRules(o.spec, req.Related)
	if o.pods, err = readPods(req.Related, g.Name); err != nil {
		return nil, err
	}
	o.invalid, _ = rules.Glance(g.Name, g.Namespace, g.Spec, req.Parent)
	o.gates, err = observeGates(o, req.Related)
	return o, err
}

// observeChildren reads the children besides the Deployment: the schema
// Jobs and what they mount, the hashed history and the Events, then what
// each feature observes of them (its observe: the NetworkPolicy, the
// route, the autoscaler, the purge CronJob).
func (o *observed) observeChildren(children metacontroller.ObjectMap) error {
	var err error
	var jobMounts []mounts
	if o.jobs, jobMounts, err = observedJobs(children); err != nil {
		return err
	}
	for _, jm := range jobMounts {
		o.mounted.configMaps = append(o.mounted.configMaps, jm.configMap)
		o.mounted.backendsSecrets = append(o.mounted.backendsSecrets, jm.backendsSecret)
	}
	g := o.glance
	o.configs = observe.ObserveHashed(children, names.ConfigMapsKey, g.Name+"-config-", o.mounted.configMaps)
	o.backendsSecrets = observe.ObserveHashed(children, names.SecretsKey, g.Name+"-backends-", o.mounted.backendsSecrets)
	o.applied = observe.Applied(children)
	o.events = observeEvents(children)
	for _, f := range features {
		if f.observe == nil {
			continue
		}
		if err := f.observe(o, children); err != nil {
			return err
		}
	}
	return nil
}

// observeGates runs the features' gates, in their order.
func observeGates(o *observed, related metacontroller.ObjectMap) ([]hook.Condition, error) {
	var gates []hook.Condition
	for _, f := range features {
		if f.gate == nil {
			continue
		}
		c, err := f.gate(o, related)
		if err != nil {
			return nil, err
		}
		if c != nil {
			gates = append(gates, *c)
		}
	}
	return gates, nil
}

// observeDeployment reads the running Deployment, the backends.conf it
// mounts.
func (o *observed) observeDeployment(req *metacontroller.SyncRequest) error {
	d, found, err := metacontroller.DecodeOne[appsv1.Deployment](req.Children, names.DeploymentsKey, o.glance.Name)
	if err != nil {
		return hook.Invalid("observed %v", err)
	}
	if !found {
		return nil
	}
	o.deployment = &d
	mountedConfig, mountedBackends := mountedNames(&d)
	o.mounted.configMaps = append(o.mounted.configMaps, mountedConfig)
	o.mounted.backendsSecrets = append(o.mounted.backendsSecrets, mountedBackends)
	o.running = backendsText(req.Children, mountedBackends)
	return nil
}
