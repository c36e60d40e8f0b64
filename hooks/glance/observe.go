package glance

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/contract/rules"
	"github.com/c5c3/glance-hooks/hooks/glance/observe"
	"github.com/c5c3/glance-hooks/hooks/glance/render"
)

// observeRequest decodes the request. A request that is not a Glance's, or holds an
// object that does not decode, is an input error and nothing is decided.
func observeRequest(req *metacontroller.SyncRequest, now time.Time) (*observe.Observed, error) {
	var g api.Glance
	if err := hook.DecodeParent(req.Parent, api.GlanceAPIVersion, api.KindGlance, &g); err != nil {
		return nil, err
	}
	o := &observe.Observed{Glance: &g, Spec: g.Spec.WithDefaults(g.Namespace), Now: now,
		HasConfig: len(req.Children[names.ConfigMapsKey]) > 0}
	var err error
	if o.Stores, err = observe.AttachedStores(&g, req.Related); err != nil {
		return nil, err
	}
	if err := observeDeployment(o, req); err != nil {
		return nil, err
	}
	if o.Creds.Creds, o.Creds.DBProblem, o.Creds.User, err = readCredentials(&g, o.Spec, req.Related); err != nil {
		return nil, err
	}
	if err := observeChildren(o, req.Children); err != nil {
		return nil, err
	}
	for _, f := range features {
		if f.observeRelated != nil {
			f.observeRelated(o, req.Related)
		}
	}
	if o.Pods, err = observe.ReadPods(req.Related, g.Name); err != nil {
		return nil, err
	}
	o.Invalid, _ = rules.Glance(g.Name, g.Namespace, g.Spec, req.Parent)
	o.Gates, err = observeGates(o, req.Related)
	return o, err
}

// observeChildren reads the children besides the Deployment: the schema
// Jobs and what they mount, the hashed history and the Events, then what
// each feature observes of them (its observe: the NetworkPolicy, the
// route, the autoscaler, the purge CronJob).
func observeChildren(o *observe.Observed, children metacontroller.ObjectMap) error {
	var err error
	var jobMounts []render.Mounts
	if o.Jobs, jobMounts, err = render.ObservedJobs(children); err != nil {
		return err
	}
	for _, jm := range jobMounts {
		o.Mounted.ConfigMaps = append(o.Mounted.ConfigMaps, jm.ConfigMap)
		o.Mounted.BackendsSecrets = append(o.Mounted.BackendsSecrets, jm.BackendsSecret)
	}
	g := o.Glance
	o.Configs = observe.ObserveHashed(children, names.ConfigMapsKey, names.ConfigBase(g.Name)+"-", o.Mounted.ConfigMaps)
	o.BackendsSecrets = observe.ObserveHashed(children, names.SecretsKey, names.BackendsBase(g.Name)+"-", o.Mounted.BackendsSecrets)
	o.Applied = observe.Applied(children)
	o.Events = observeEvents(children)
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
func observeGates(o *observe.Observed, related metacontroller.ObjectMap) ([]hook.Condition, error) {
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
func observeDeployment(o *observe.Observed, req *metacontroller.SyncRequest) error {
	d, found, err := metacontroller.DecodeOne[appsv1.Deployment](req.Children, names.DeploymentsKey, o.Glance.Name)
	if err != nil {
		return hook.Invalid("observed %v", err)
	}
	if !found {
		return nil
	}
	o.Deployment = &d
	mountedConfig, mountedBackends := render.MountedNames(&d)
	o.Mounted.ConfigMaps = append(o.Mounted.ConfigMaps, mountedConfig)
	o.Mounted.BackendsSecrets = append(o.Mounted.BackendsSecrets, mountedBackends)
	o.Running = backendsText(req.Children, mountedBackends)
	return nil
}

// backendsText is the backends.conf of an observed backends Secret, or "".
func backendsText(observed metacontroller.ObjectMap, name string) string {
	// Only the data: the metadata of the backends Secret holds a last-applied
	// record as long as the data, and nothing in it is read.
	sec, found, err := metacontroller.DecodeOne[struct {
		Data map[string]string `json:"data"`
	}](observed, names.SecretsKey, name)
	if err != nil || !found {
		return ""
	}
	text, err := observe.DecodeBase64(sec.Data[names.BackendsFile])
	if err != nil {
		return ""
	}
	return text
}

// observeEvents lists the observed Events.
func observeEvents(children metacontroller.ObjectMap) observe.ObservedEvents {
	return observe.ObservedEvents{Listed: observe.ObserveListed(children, names.EventsKey), Applied: observe.Applied(children)}
}
