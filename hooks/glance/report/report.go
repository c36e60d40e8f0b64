package report

import (
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/excerpt"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/glance/decide"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/observe"
	"github.com/c5c3/glance-hooks/hooks/glance/render"
)

// Respond is the answer: the children rendered and the status built from
// the observed request, the decision and what was rendered, in one place.
// It adds what the pods of the rollout and of the current schema Job show,
// and when to look again.
func Respond(o *observe.Observed, d *decide.Decision, out *render.Outcome, statuses []StatusFeature) (*metacontroller.SyncResponse, error) {
	var pods, jobPods PodsVerdict
	if o.Deployment != nil && !render.RolledOut(o.Deployment) {
		pods = RolloutPods(o.Deployment, o.Pods.Rollout, o.Now)
	}
	if out.SchemaJob != "" {
		jobPods = SummarizePods(o.Pods.ByJob[out.SchemaJob], PodDeadline{Now: o.Now, After: SchemaPodDeadline})
		out.Database = ExplainSchemaJob(out.Database, jobPods)
	}
	status, err := BuildStatus(StatusInput{Observed: o, Decision: d, Out: out, Pods: pods}, statuses)
	if err != nil {
		return nil, err
	}
	resp := &metacontroller.SyncResponse{
		Status:             status,
		Children:           out.Children,
		ResyncAfterSeconds: ResyncAfter(pods, jobPods),
	}
	if d.Hold {
		if r := decide.ResyncSeconds(o.Now, d.Until); resp.ResyncAfterSeconds == 0 || r < resp.ResyncAfterSeconds {
			resp.ResyncAfterSeconds = r
		}
	}
	return resp, nil
}

// StatusInput is what the conditions are reported from: the observed
// request, the decision, what was rendered, and what the pods of the
// rollout show. skipped and retiring are BackendsReady's lines for the
// stores not projected as specified and the retiring ones kept.
type StatusInput struct {
	Observed *observe.Observed
	Decision *decide.Decision
	Out      *render.Outcome
	Pods     PodsVerdict

	skipped, retiring []string
}

// BuildStatus reports the stores (the retiring ones too), the config, the
// schema and the Deployment, and the condition of every statusFeature.
func BuildStatus(in StatusInput, statuses []StatusFeature) (api.GlanceStatus, error) {
	g, d, out := in.Observed.Glance, in.Decision, in.Out
	status := api.GlanceStatus{ConfigMapName: out.ConfigName, BackendsSecretName: out.BackendsName,
		InstalledRelease: out.Installed.InstalledRelease, InstalledImage: out.Installed.InstalledImage, Upgrade: out.Installed.Upgrade,
		Endpoint: StatusEndpoint(g, g.Spec)}
	if d.Invalid {
		status.Endpoint = g.Status.Endpoint // the last good one: the spec's is not reported
	}
	if up := out.Installed.Upgrade; up != nil {
		status.TargetRelease, status.UpgradePhase = up.TargetRelease, up.Phase
	}
	for _, s := range d.Retired {
		kept := out.InConfig[s.ID]
		status.RetiringStores = append(status.RetiringStores, api.RetiringStore{StoreID: s.ID, Kept: kept, Message: s.Skipped})
		if kept {
			in.retiring = append(in.retiring, fmt.Sprintf("%q", s.ID))
		}
	}
	status.Backends, in.skipped = backendStatuses(d.Stores, out)
	if out.Rendered.Status {
		status.DefaultBackend = d.Def.ID
	}
	conds, err := ReportConditions(in, statuses)
	if err != nil {
		return status, err
	}
	status.Conditions = hook.Conditions(g.Status.Conditions, g.Generation, in.Observed.Now, conds...)
	status.LastUpgrade = upgradeEndedAt(out.Installed.LastUpgrade, status.Conditions)
	return status, nil
}

// upgradeEndedAt stamps an upgrade that ended in this sync with
// DatabaseReady's transition, the time its Event carries; one ended
// before keeps its own.
func upgradeEndedAt(end *api.UpgradeEnd, conds []metav1.Condition) *api.UpgradeEnd {
	if end == nil || !end.EndedAt.IsZero() {
		return end
	}
	stamped := *end
	if c, ok := hook.FindCondition(conds, model.CondDatabaseReady); ok {
		stamped.EndedAt = c.LastTransitionTime
	}
	return &stamped
}

// ReportConditions runs the features' status: the conditions Ready waits for,
// Ready, then the ones beside it.
func ReportConditions(in StatusInput, statuses []StatusFeature) ([]hook.Condition, error) {
	var held, beside []hook.Condition
	for _, f := range statuses {
		c, err := f.Report(in)
		if err != nil {
			return nil, err
		}
		if f.Ready == HoldsReady {
			held = append(held, c)
		} else {
			beside = append(beside, c)
		}
	}
	ready := hook.Ready("every store is projected, the schema is in place and glance-api runs the current config", held...)
	return append(append(held, ready), beside...), nil
}

// FindCondition is the condition of a type among conds, if there is one.
func FindCondition(conds []hook.Condition, condType string) (hook.Condition, bool) {
	for _, c := range conds {
		if c.Type == condType {
			return c, true
		}
	}
	return hook.Condition{}, false
}

// RenderedCondition is ConfigRendered, as render said it.
func RenderedCondition(in StatusInput) (hook.Condition, error) { return in.Out.Rendered, nil }

// DatabaseCondition is DatabaseReady: the schema step, explained by the
// pods of its Job (report).
func DatabaseCondition(in StatusInput) (hook.Condition, error) { return in.Out.Database, nil }

// ServiceUserCondition is ServiceUserReady, from the service user's Secret.
func ServiceUserCondition(in StatusInput) (hook.Condition, error) { return in.Out.ServiceUser, nil }

// DeploymentCondition is DeploymentReady, explained by the pods of the
// rollout.
func DeploymentCondition(in StatusInput) (hook.Condition, error) {
	out := in.Out
	return ExplainRollout(DeploymentReady(in.Observed.Deployment, out.ConfigName, out.BackendsName, out.RunImage), in.Pods), nil
}

// backendStatuses are status.backends[] and, for BackendsReady, a line for
// each store not projected as specified. While the first render waits, the
// status names no backend, so it stays the same while they arrive; each
// one's own status says where it is.
func backendStatuses(stores []*model.Store, out *render.Outcome) (listed []api.BackendStatus, skipped []string) {
	if out.Waiting {
		return nil, nil
	}
	if len(stores) > 0 {
		listed = make([]api.BackendStatus, 0, len(stores)) // sized once; nil when there is none, as before
	}
	for _, s := range stores {
		bs := api.BackendStatus{Name: s.Backend.Name, StoreID: s.ID, IsDefault: s.Backend.Spec.IsDefault, Projected: out.InConfig[s.ID]}
		bs.Reason, bs.Message = s.BackendStatus(bs.Projected)
		if bs.Reason != "" && bs.Reason != model.ReasonNotInRunningConfig {
			skipped = append(skipped, fmt.Sprintf("%q (store %s): %s", s.Backend.Name, s.ID, bs.Message))
		}
		listed = append(listed, bs)
	}
	return listed, skipped
}

// BackendsCondition is BackendsReady, naming the retiring stores kept.
func BackendsCondition(in StatusInput) (hook.Condition, error) {
	c := backendsReady(in.Decision, in.Out, in.skipped)
	if len(in.retiring) > 0 {
		c.Message += fmt.Sprintf("; retiring, kept readable until spec.dropRetiredStores lists them: %s", strings.Join(in.retiring, ", "))
	}
	return c, nil
}

// backendsReady is BackendsReady.
func backendsReady(d *decide.Decision, out *render.Outcome, skipped []string) hook.Condition {
	c := hook.Condition{Type: model.CondBackendsReady}
	switch {
	case out.Waiting:
		c.Reason = model.ReasonWaitingForBackends
		c.Message = "the first config is rendered once the attached GlanceBackends have rendered their stores; " +
			"each one's status says where it is"
	case d.Def == nil:
		c.Reason = model.ReasonNoDefaultBackend
		c.Message = d.NoDefault + "; nothing is re-rendered and the last-good config is kept"
	case len(skipped) > 0:
		c.Reason = model.ReasonWaitingForBackends
		c.Message = hook.Plural(len(skipped), "backend is", "backends are") + " not projected as specified: " +
			strings.Join(skipped, "; ")
	default:
		c.Status, c.Reason = true, model.ReasonAllBackendsProjected
		c.Message = fmt.Sprintf("%s projected, default store %q", hook.Plural(len(d.Stores), "store", "stores"), d.Def.ID)
	}
	return c
}

// DeploymentReady reports the observed Deployment: present, mounting the
// config and running the image it should (image "": any), and fully rolled
// out and available. From the answer that creates or changes the
// Deployment until the Deployment controller has seen that change, it says
// one thing, so the status is not written again in between.
func DeploymentReady(d *appsv1.Deployment, configName, backendsName, image string) hook.Condition {
	c := hook.Condition{Type: model.CondDeploymentReady, Reason: model.ReasonDeploymentMissing}
	rollsOut := func(img string) {
		c.Reason = model.ReasonWaitingForDeployment
		c.Message = fmt.Sprintf("the Deployment rolls out ConfigMap %q and Secret %q", configName, backendsName)
		if img != "" {
			c.Message += " with image " + excerpt.Name(img)
		}
	}
	if d == nil {
		switch {
		case image != "": // this answer creates it
			rollsOut(image)
		case configName == "": // the reference's reason: no store has made a config yet
			c.Reason = model.ReasonWaitingForBackends
			c.Message = "no config is rendered yet: the glance-api Deployment is created once there is one"
		default:
			c.Message = "the glance-api Deployment does not exist yet"
		}
		return c
	}
	c.Reason = model.ReasonWaitingForDeployment
	want := int32(1)
	if d.Spec.Replicas != nil {
		want = *d.Spec.Replicas
	}
	if image == "" {
		image = render.RunningImage(d)
	}
	cm, sec := render.MountedNames(d)
	switch {
	case cm != configName || sec != backendsName || render.RunningImage(d) != image || d.Status.ObservedGeneration < d.Generation,
		!render.RolledOut(d):
		// No counts while it rolls: each pod that comes up would rewrite
		// the status (docs/performance.md, "API writes per converge");
		// the pods that keep it from finishing are named
		// (explainRollout), and the Deployment's own status counts.
		rollsOut(image)
	default:
		c.Status, c.Reason = true, model.ReasonDeploymentReady
		c.Message = fmt.Sprintf("%d of %d replicas available", d.Status.AvailableReplicas, want)
	}
	return c
}

// ServiceEndpoint is status.endpoint: the glance-api Service's URL inside
// the cluster, which the reference reports where it has no gateway, with
// its trailing "/" as the reference writes it (and as the gateway's URL
// ends).
func ServiceEndpoint(g *api.Glance) string {
	return fmt.Sprintf("http://%s.%s.svc.cluster.local:%d/", g.Name, g.Namespace, render.APIPort)
}

// StatusFeature is one condition of a Glance: its type, how it is reported
// from what a sync observed, decided and rendered, and whether Ready waits
// for it. Every one is reported on every sync: a feature whose field is
// unset says so under a reason of its own (True: nothing is required), so a
// script waiting for a condition by name never waits for nothing.
type StatusFeature struct {
	CondType string
	Report   func(StatusInput) (hook.Condition, error)
	Ready    readiness
}

// readiness says whether Ready waits for a condition.
type readiness bool

const (
	// HoldsReady: Ready is False while the condition is.
	HoldsReady readiness = true
	// BesideReady: reported, but a False one does not stop glance-api
	// from serving the current config, so Ready does not wait for it.
	BesideReady readiness = false
)

// StatusEndpoint is status.endpoint: the gateway's URL when there is one,
// the Service's inside the cluster otherwise.
func StatusEndpoint(g *api.Glance, spec api.GlanceSpec) string {
	if spec.Gateway != nil {
		return spec.Gateway.URL()
	}
	return ServiceEndpoint(g)
}
