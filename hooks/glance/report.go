package glance

import (
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/excerpt"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
)

// report is the answer: the children rendered and the status built from
// the observed request, the decision and what was rendered, in one place.
// It adds what the pods of the rollout and of the current schema Job show,
// and when to look again.
func report(o *observed, d *decision, out *outcome) (*metacontroller.SyncResponse, error) {
	var pods, jobPods podsVerdict
	if o.deployment != nil && !rolledOut(o.deployment) {
		pods = rolloutPods(o.deployment, o.pods.rollout, o.now)
	}
	if out.schemaJob != "" {
		jobPods = summarizePods(o.pods.byJob[out.schemaJob], podDeadline{now: o.now, after: schemaPodDeadline})
		out.database = explainSchemaJob(out.database, jobPods)
	}
	purge, err := dbPurgeReady(o.glance, o.children)
	if err != nil {
		return nil, err
	}
	resp := &metacontroller.SyncResponse{
		Status:             buildStatus(o.glance, o.now, d, out, statusInputs{current: o.deployment, pods: pods, purge: purge, gates: o.gates}),
		Children:           out.children,
		ResyncAfterSeconds: resyncAfter(pods, jobPods),
	}
	if d.hold {
		if r := resyncSeconds(o.now, d.until); resp.ResyncAfterSeconds == 0 || r < resp.ResyncAfterSeconds {
			resp.ResyncAfterSeconds = r
		}
	}
	return resp, nil
}

// statusInputs is what the status reads of the running Deployment: the
// Deployment and what its pods show.
type statusInputs struct {
	current *appsv1.Deployment
	pods    podsVerdict
	// purge is DBPurgeReady, nil without spec.dbPurge.
	purge *hook.Condition
	// gates are the gateFeatures' conditions; Ready waits for them.
	gates []hook.Condition
}

// buildStatus reports the stores (the retiring ones too), the config and
// the Deployment with what its pods show.
func buildStatus(g *api.Glance, now time.Time, d *decision, out *outcome, run statusInputs) api.GlanceStatus {
	status := api.GlanceStatus{ConfigMapName: out.configName, BackendsSecretName: out.backendsName,
		InstalledRelease: out.installed.InstalledRelease, InstalledImage: out.installed.InstalledImage, Upgrade: out.installed.Upgrade,
		Endpoint: statusEndpoint(g, g.Spec)}
	if d.invalid {
		status.Endpoint = g.Status.Endpoint // the last good one: the spec's is not reported
	}
	if up := out.installed.Upgrade; up != nil {
		status.TargetRelease, status.UpgradePhase = up.TargetRelease, up.Phase
	}
	var retiring []string
	for _, s := range d.retired {
		kept := out.inConfig[s.id]
		status.RetiringStores = append(status.RetiringStores, api.RetiringStore{StoreID: s.id, Kept: kept, Message: s.skipped})
		if kept {
			retiring = append(retiring, fmt.Sprintf("%q", s.id))
		}
	}
	var skipped []string
	status.Backends, skipped = backendStatuses(d.stores, out)
	backends := backendsReady(d, out, skipped)
	if len(retiring) > 0 {
		backends.Message += fmt.Sprintf("; retiring, kept readable until spec.dropRetiredStores lists them: %s", strings.Join(retiring, ", "))
	}
	if out.rendered.Status {
		status.DefaultBackend = d.def.id
	}
	deploy := explainRollout(deploymentReady(run.current, out.configName, out.backendsName, out.runImage), run.pods)
	conds := append(append([]hook.Condition{backends, out.rendered, out.database, out.serviceUser, deploy}, out.reach...), run.gates...)
	ready := hook.Ready("every store is projected, the schema is in place and glance-api runs the current config", conds...)
	conds = append(conds, ready)
	_, seen := hook.FindCondition(g.Status.Conditions, CondExtraConfigHealthy)
	if c := extraConfigHealthy(g.Spec, withRetired(d.stores, d.retired), seen); c != nil {
		conds = append(conds, *c)
	}
	if run.purge != nil {
		conds = append(conds, *run.purge)
	}
	status.Conditions = hook.Conditions(g.Status.Conditions, g.Generation, now, conds...)
	return status
}

// backendStatuses are status.backends[] and, for BackendsReady, a line for
// each store not projected as specified. While the first render waits, the
// status names no backend, so it stays the same while they arrive; each
// one's own status says where it is.
func backendStatuses(stores []*store, out *outcome) (listed []api.BackendStatus, skipped []string) {
	if out.waiting {
		return nil, nil
	}
	for _, s := range stores {
		bs := api.BackendStatus{Name: s.backend.Name, StoreID: s.id, IsDefault: s.backend.Spec.IsDefault, Projected: out.inConfig[s.id]}
		bs.Reason, bs.Message = s.backendStatus(bs.Projected)
		if bs.Reason != "" && bs.Reason != ReasonNotInRunningConfig {
			skipped = append(skipped, fmt.Sprintf("%q (store %s): %s", s.backend.Name, s.id, bs.Message))
		}
		listed = append(listed, bs)
	}
	return listed, skipped
}

// backendsReady is BackendsReady.
func backendsReady(d *decision, out *outcome, skipped []string) hook.Condition {
	c := hook.Condition{Type: CondBackendsReady}
	switch {
	case out.waiting:
		c.Reason = ReasonWaitingForBackends
		c.Message = "the first config is rendered once the attached GlanceBackends have rendered their stores; " +
			"each one's status says where it is"
	case d.def == nil:
		c.Reason = ReasonNoDefaultBackend
		c.Message = d.noDefault + "; nothing is re-rendered and the last-good config is kept"
	case len(skipped) > 0:
		c.Reason = ReasonWaitingForBackends
		c.Message = hook.Plural(len(skipped), "backend is", "backends are") + " not projected as specified: " +
			strings.Join(skipped, "; ")
	default:
		c.Status, c.Reason = true, ReasonAllBackendsProjected
		c.Message = fmt.Sprintf("%s projected, default store %q", hook.Plural(len(d.stores), "store", "stores"), d.def.id)
	}
	return c
}

// deploymentReady reports the observed Deployment: present, mounting the
// config and running the image it should (image "": any), and fully rolled
// out and available. From the answer that creates or changes the
// Deployment until the Deployment controller has seen that change, it says
// one thing, so the status is not written again in between.
func deploymentReady(d *appsv1.Deployment, configName, backendsName, image string) hook.Condition {
	c := hook.Condition{Type: CondDeploymentReady, Reason: ReasonDeploymentMissing}
	rollsOut := func(img string) {
		c.Reason = ReasonRollingOut
		c.Message = fmt.Sprintf("the Deployment rolls out ConfigMap %q and Secret %q", configName, backendsName)
		if img != "" {
			c.Message += " with image " + excerpt.Name(img)
		}
	}
	if d == nil {
		if image != "" { // this answer creates it
			rollsOut(image)
			return c
		}
		c.Message = "the glance-api Deployment does not exist yet"
		return c
	}
	c.Reason = ReasonRollingOut
	want := int32(1)
	if d.Spec.Replicas != nil {
		want = *d.Spec.Replicas
	}
	if image == "" {
		image = runningImage(d)
	}
	cm, sec := mountedNames(d)
	switch {
	case cm != configName || sec != backendsName || runningImage(d) != image || d.Status.ObservedGeneration < d.Generation:
		rollsOut(image)
	case !rolledOut(d):
		// Two counts: during a rollout the available replicas may all be
		// old ones, so neither count says how many updated ones serve.
		c.Message = fmt.Sprintf("%d of %d replicas are updated to the current config, %d available",
			d.Status.UpdatedReplicas, want, d.Status.AvailableReplicas)
	default:
		c.Status, c.Reason = true, ReasonDeploymentAvailable
		c.Message = fmt.Sprintf("%d of %d replicas available", d.Status.AvailableReplicas, want)
	}
	return c
}

// serviceEndpoint is status.endpoint: the glance-api Service's URL inside
// the cluster, which the reference reports where it has no gateway.
func serviceEndpoint(g *api.Glance) string {
	return fmt.Sprintf("http://%s.%s.svc.cluster.local:%d", g.Name, g.Namespace, APIPort)
}
