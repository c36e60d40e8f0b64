package render

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/contenthash"
	"github.com/c5c3/glance-hooks/hooks/contract/glancestatus"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/contract/release"
	"github.com/c5c3/glance-hooks/hooks/glance/decide"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/observe"
)

// renderSync renders what the decision calls for: the config and everything
// around it, or the last-good children as they are. A spec that holds a
// value that cannot be written safely keeps the last-good ones too.
func Render(o *observe.Observed, d *decide.Decision, p Parts) (*Outcome, error) {
	var out *Outcome
	var err error
	if d.Keep.Reason != "" {
		out, err = keepLastGood(o, d.Keep, p.LastGood)
		if out != nil {
			out.Waiting = d.Hold
		}
	} else {
		out, err = renderNew(o, d, p)
		if model.IsSpecError(err) {
			out, err = keepLastGood(o, decide.LastGood{Reason: model.ReasonInvalidSpec, Why: "the Glance spec cannot be rendered: " + err.Error()}, p.LastGood)
		}
	}
	if err != nil {
		return nil, err
	}
	out.ServiceUser = o.Creds.User
	if !out.Rendered.Status {
		// Nothing ran: the schema status stays, and so does what the
		// database condition said, unless the credentials are the reason.
		st := o.Glance.Status
		out.Installed = api.GlanceStatus{InstalledRelease: st.InstalledRelease, InstalledImage: st.InstalledImage, Upgrade: st.Upgrade,
			LastUpgrade: st.LastUpgrade}
		out.Database = carriedDatabase(st.Conditions, o.Creds.DBProblem)
	}
	return out, nil
}

// carriedDatabase is DatabaseReady when nothing is re-rendered: the
// credentials problem if there is one, else what it said before, in this
// release's words.
func carriedDatabase(observed []metav1.Condition, problem *hook.Condition) hook.Condition {
	if problem != nil {
		return *problem
	}
	if c, ok := hook.FindCondition(observed, model.CondDatabaseReady); ok {
		return hook.Condition{Type: model.CondDatabaseReady, Status: c.Status == metav1.ConditionTrue, Reason: glancestatus.CurrentReason(c.Reason), Message: c.Message}
	}
	return hook.Condition{Type: model.CondDatabaseReady, Reason: model.ReasonWaitingForBackends,
		Message: "no config is rendered yet; the schema Job mounts it, so it starts once there is one"}
}

// renderNew renders the hashed ConfigMap and Secret, the credential
// Secrets, the schema Jobs the schema's state calls for, the Deployment that
// mounts the config (once glance-api may run) and the Service, and keeps
// what running pods may still mount.
func renderNew(o *observe.Observed, d *decide.Decision, p Parts) (*Outcome, error) {
	g, spec := o.Glance, o.Spec
	rel, err := release.Parse(spec.OpenStackRelease)
	if err != nil {
		return nil, model.InvalidSpec("spec.openStackRelease: %w", err)
	}
	if db := spec.Database; (db.ClusterRef == nil) == (db.Host == "") {
		return nil, model.InvalidSpec("spec.database needs exactly one of clusterRef and host")
	}
	jobName := JobNamer(g.Name, spec.MetadefsPath)
	plan := decide.PlanSchema(schemaInputsOf(o, rel, jobName))
	// The config is rendered for the release glance-api runs; the schema
	// Jobs read only its [database] part.
	runs := rel
	if plan.Run != nil {
		runs = plan.Run.Release
	}
	mode := LaunchModeOf(runs)
	stores := decide.WithRetired(d.Stores, d.Retired)
	cfgData, err := RenderFiles(ConfInput{Glance: g, Spec: spec, Rel: runs, Mode: mode, Stores: stores, Def: d.Def, Files: p.Files, Observed: o})
	if err != nil {
		return nil, err
	}
	out := &Outcome{Database: plan.Cond, InConfig: make(map[string]bool, len(stores)),
		Installed: api.GlanceStatus{InstalledRelease: plan.InstalledRelease, InstalledImage: plan.InstalledImage, Upgrade: plan.Upgrade,
			LastUpgrade: plan.LastUpgrade}}
	out.Children = configChildren(g, out, cfgData, RenderBackends(stores))
	out.Children = append(out.Children, credentialChildren(g, o.Creds.Creds)...)
	out.Children = append(out.Children, Service(g))
	if plan.Job != nil {
		out.SchemaJob = jobName(*plan.Job)
	}
	for _, s := range stores {
		out.InConfig[s.ID] = s.State.Rendered()
	}
	pod := PodInputs{Mounts: Mounts{ConfigMap: out.ConfigName, BackendsSecret: out.BackendsName}, Digest: o.Creds.Creds.Digest, EveryPod: p.EveryPod, JobPod: p.JobPod}
	if plan.Run != nil {
		out.RunImage = plan.Run.Image
		deploy := Deployment(g, spec, *plan.Run, pod, DesiredReplicas(spec, o.Deployment))
		mountAPIPod(p, PodInput{Glance: g, Spec: spec, Stores: stores, ProcessWideCA: d.ProcessWideCA}, deploy)
		out.Children = append(out.Children, deploy)
		out.Children = append(out.Children, childrenWithDeployment(p, DeploymentInput{Glance: g, Spec: spec, Run: *plan.Run, Pod: pod})...)
	}
	jobChildren, err := SchemaJobs(o, plan, jobName, pod)
	if err != nil {
		return nil, err
	}
	out.Children = append(out.Children, jobChildren...)
	kept, err := history(o, out)
	if err != nil {
		return nil, err
	}
	out.Children = append(out.Children, kept...)
	out.Rendered = hook.Condition{Type: model.CondConfigRendered, Status: true, Reason: model.ReasonRendered,
		Message: fmt.Sprintf("rendered ConfigMap %q and Secret %q with default store %q", out.ConfigName, out.BackendsName, d.Def.ID)}
	return out, nil
}

// schemaInputsOf is what the schema decision reads of the observed request.
func schemaInputsOf(o *observe.Observed, rel release.Release, jobName func(observe.SchemaJob) string) decide.SchemaInputs {
	g, spec := o.Glance, o.Spec
	in := decide.SchemaInputs{
		Release: rel, Image: spec.Image.Reference(), Tag: spec.Image.Tag,
		InstalledRelease: g.Status.InstalledRelease, InstalledImage: g.Status.InstalledImage, Upgrade: g.Status.Upgrade,
		LastUpgrade: g.Status.LastUpgrade, Jobs: o.Jobs, JobName: jobName, Namespace: g.Namespace,
	}
	if o.Deployment != nil {
		in.Deployment = &decide.Deployed{Image: RunningImage(o.Deployment), RolledOut: RolledOut(o.Deployment)}
	}
	return in
}

// configChildren are the hashed config ConfigMap and backends Secret; their
// names go to out.
func configChildren(g *api.Glance, out *Outcome, cfgData map[string]string, backends []byte) []any {
	out.ConfigName = contenthash.Name(names.ConfigBase(g.Name), cfgData)
	// The Secret's one key hashed as Of hashes its data (OfOne), without a
	// map or a copy of the file.
	out.BackendsName = names.BackendsBase(g.Name) + "-" + contenthash.OfOne(names.BackendsFile, backends)
	immutable := true
	backendsLabels := familyLabels(g, names.BackendsBase(g.Name))
	backendsLabels[names.LabelBackendsOf] = g.Name
	return []any{
		&corev1.ConfigMap{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: metav1.ObjectMeta{Name: out.ConfigName, Namespace: g.Namespace, Labels: familyLabels(g, names.ConfigBase(g.Name))},
			Immutable:  &immutable,
			Data:       cfgData,
		},
		&corev1.Secret{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
			ObjectMeta: metav1.ObjectMeta{Name: out.BackendsName, Namespace: g.Namespace, Labels: backendsLabels},
			Immutable:  &immutable,
			Type:       corev1.SecretTypeOpaque,
			Data:       map[string][]byte{names.BackendsFile: backends},
		},
	}
}

// familyLabels are the labels of a hashed object of the family base: the
// Glance's own and the reference's family label. The family label is left
// off when base is longer than a label value may be (a Glance name admitted
// before admission bounded it): the API server would refuse the object, and
// with it the whole sync.
func familyLabels(g *api.Glance, base string) map[string]string {
	l := model.ObjectLabels(g)
	if len(validation.IsValidLabelValue(base)) == 0 {
		l[names.LabelConfigBase] = base
	}
	return l
}

// credentialChildren are the database URL's and the service user's
// Secrets. Not hashed and not immutable: a hashed name in the pod template
// would be a plain hash of the password; the keyed digest rolls the pods
// instead. The password is escaped for oslo.config.
func credentialChildren(g *api.Glance, creds *observe.Credentials) []any {
	secret := func(name, key, value string) *corev1.Secret {
		return &corev1.Secret{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: g.Namespace, Labels: model.ObjectLabels(g)},
			Type:       corev1.SecretTypeOpaque,
			Data:       map[string][]byte{key: []byte(value)},
		}
	}
	return []any{
		secret(names.DBConnectionSecretName(g.Name), names.DBConnectionKey, creds.Connection),
		secret(names.AuthtokenSecretName(g.Name), names.AuthtokenPasswordKey, creds.ServicePassword),
	}
}

// history keeps the hashed ConfigMaps and backends Secrets a pod may still
// mount: the running Deployment's and the unfinished schema Jobs'.
func history(o *observe.Observed, out *Outcome) ([]any, error) {
	rolling := o.Deployment != nil && !RolledOut(o.Deployment)
	var kept []any
	for _, h := range []HashedKind{
		{Key: names.ConfigMapsKey, Observed: o.Configs, Desired: out.ConfigName, Mounted: o.Mounted.ConfigMaps},
		{Key: names.SecretsKey, Observed: o.BackendsSecrets, Desired: out.BackendsName, Mounted: o.Mounted.BackendsSecrets},
	} {
		objs, err := Retained(o.Applied, h, rolling)
		if err != nil {
			return nil, err
		}
		kept = append(kept, objs...)
	}
	return kept, nil
}

// keepLastGood re-renders nothing: every observed child is returned exactly
// as last applied, so running pods keep their last-good config and no
// schema Job starts. On first install there is nothing to keep and nothing
// is created.
func keepLastGood(o *observe.Observed, keep decide.LastGood, kinds []string) (*Outcome, error) {
	current, reason, why := o.Deployment, keep.Reason, keep.Why
	kept, err := o.Applied.Keep(kinds...)
	if err != nil {
		return nil, err
	}
	out := &Outcome{Children: kept, InConfig: map[string]bool{}}
	// An invalid spec is its own reason; otherwise the reason says whether
	// there is a last-good config to keep.
	out.Rendered = hook.Condition{Type: model.CondConfigRendered, Reason: reason}
	if current == nil {
		if reason != model.ReasonInvalidSpec {
			out.Rendered.Reason = model.ReasonNotRendered
		}
		out.Rendered.Message = "no config is rendered and no Deployment is created: " + why
		return out, nil
	}
	if reason != model.ReasonInvalidSpec {
		out.Rendered.Reason = model.ReasonLastGoodKept
	}
	out.ConfigName, out.BackendsName = MountedNames(current)
	out.Rendered.Message = fmt.Sprintf("nothing is re-rendered (%s); the Deployment keeps mounting the last-good ConfigMap %q and Secret %q",
		why, out.ConfigName, out.BackendsName)
	for _, line := range strings.Split(o.Running, "\n") {
		if strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") {
			out.InConfig[line[1:len(line)-1]] = true
		}
	}
	return out, nil
}

// Parts are what the render stage runs of the features, in their order:
// the hook gathers them once from its list of features, so render never
// reads that list.
type Parts struct {
	// Files are the contributions to the config's files.
	Files FileParts
	// EveryPod changes every pod template, APIPod glance-api's, JobPod
	// every glance-manage Job's.
	EveryPod []func(*corev1.PodSpec, api.GlanceSpec)
	APIPod   []func(PodInput, *DeploymentChild)
	JobPod   []func(*corev1.PodSpec, api.GlanceSpec)
	// WithDeployment are the children that come with the Deployment.
	WithDeployment []func(DeploymentInput) []any
	// LastGood are the kinds of children kept as last applied when
	// nothing is re-rendered.
	LastGood []string
}

// childrenWithDeployment are the features' children that come with the
// Deployment, in the features' order.
func childrenWithDeployment(p Parts, in DeploymentInput) []any {
	var out []any
	for _, with := range p.WithDeployment {
		out = append(out, with(in)...)
	}
	return out
}

// mountAPIPod runs the features' changes to the glance-api pod template.
func mountAPIPod(p Parts, in PodInput, d *DeploymentChild) {
	for _, change := range p.APIPod {
		change(in, d)
	}
}

// PodInput is what the pod features read: the Glance, its spec with
// defaults, every store the config renders and the process-wide CA bundle.
type PodInput struct {
	Glance        *api.Glance
	Spec          api.GlanceSpec
	Stores        []*model.Store
	ProcessWideCA string
}

// DeploymentInput is what the children that come with the Deployment
// read: the Glance, its spec with defaults, what glance-api runs and what
// its pods mount.
type DeploymentInput struct {
	Glance *api.Glance
	Spec   api.GlanceSpec
	Run    decide.RunTarget
	Pod    PodInputs
}

// Outcome is what a sync returns besides status.
type Outcome struct {
	Children     []any
	ConfigName   string
	BackendsName string
	Rendered     hook.Condition
	// InConfig holds the store ids in the backends Secret the returned
	// Deployment mounts.
	InConfig map[string]bool
	// Database and serviceUser are the credentials and schema conditions.
	Database, ServiceUser hook.Condition
	// Installed is the status of the schema: what is installed and the
	// upgrade in progress.
	Installed api.GlanceStatus
	// RunImage is the image the returned Deployment runs, "" when nothing
	// was re-rendered.
	RunImage string
	// SchemaJob is the Job of the current schema step, "" when no step is
	// due: its pods explain DatabaseReady.
	SchemaJob string
	// Waiting is set while the first render waits for stores on their way.
	Waiting bool
	// Reach are the conditions of the route and the NetworkPolicies.
	Reach []hook.Condition
}
