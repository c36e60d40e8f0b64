package glance

import (
	"cmp"
	"errors"
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/contenthash"
	"github.com/c5c3/glance-hooks/hooks/contract/excerpt"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/contract/release"
)

// Conditions of a Glance.
const (
	CondBackendsReady   = "BackendsReady"
	CondConfigRendered  = "ConfigRendered"
	CondDeploymentReady = "DeploymentReady"

	ReasonAllBackendsProjected = "AllBackendsProjected"
	ReasonWaitingForBackends   = "WaitingForBackends"
	ReasonNoDefaultBackend     = "NoDefaultBackend"
	ReasonRendered             = "Rendered"
	ReasonLastGoodKept         = "LastGoodKept"
	ReasonNotRendered          = "NotRendered"
	ReasonInvalidSpec          = "InvalidSpec"
	ReasonDeploymentAvailable  = "DeploymentAvailable"
	ReasonDeploymentMissing    = "DeploymentMissing"
	ReasonRollingOut           = "RollingOut"
	// ReasonNotInRunningConfig marks a usable store left out because the
	// config is not re-rendered while there is no valid default.
	ReasonNotInRunningConfig = "NotInRunningConfig"
	// ReasonStorePending marks a store on its way: its backend has not
	// reported yet, or its store Secret is not there yet. Not a fault.
	ReasonStorePending = "StorePending"
)

// outcome is what a sync returns besides status.
type outcome struct {
	children     []any
	configName   string
	backendsName string
	rendered     hook.Condition
	// inConfig holds the store ids in the backends Secret the returned
	// Deployment mounts.
	inConfig map[string]bool
	// database and serviceUser are the credentials and schema conditions.
	database, serviceUser hook.Condition
	// installed is the status of the schema: what is installed and the
	// upgrade in progress.
	installed api.GlanceStatus
	// runImage is the image the returned Deployment runs, "" when nothing
	// was re-rendered.
	runImage string
	// schemaJob is the Job of the current schema step, "" when no step is
	// due: its pods explain DatabaseReady.
	schemaJob string
	// waiting is set while the first render waits for stores on their way.
	waiting bool
}

// Sync answers /sync/glance.
func Sync(req *metacontroller.SyncRequest, now time.Time) (*metacontroller.SyncResponse, error) {
	var g api.Glance
	if err := hook.DecodeParent(req.Parent, api.GlanceAPIVersion, api.KindGlance, &g); err != nil {
		return nil, err
	}
	stores, err := attachedStores(&g, req.Related)
	if err != nil {
		return nil, err
	}
	observed, deployFound, err := metacontroller.DecodeOne[appsv1.Deployment](req.Children, names.DeploymentsKey, g.Name)
	if err != nil {
		return nil, hook.Invalid("observed %v", err)
	}
	spec := g.Spec.WithDefaults(g.Namespace)
	var current *appsv1.Deployment
	var pods, jobPods podsVerdict
	var retired []*store
	if deployFound {
		current = &observed
		_, mountedBackends := mountedNames(current)
		running := backendsText(req.Children, mountedBackends)
		holdOutdated(stores, func() string { return running }, current)
		retired = retiringStores(stores, running, spec.DropRetiredStores, current)
		if !rolledOut(current) {
			observedPods, err := deploymentPods(req.Related, current.Name)
			if err != nil {
				return nil, err
			}
			pods = rolloutPods(current, observedPods, now)
		}
	}
	// A release whose glance_store has one process-wide CA bundle may have
	// to leave stores out, attached or retiring, which decides the default
	// too.
	processWideCA := ""
	if rel, ok := oldestRunRelease(spec.OpenStackRelease, g.Status.InstalledRelease); ok && !rel.AtLeast(StoreCACertFrom) {
		processWideCA = processWideCABundle(stores, retired, rel)
	}
	creds, dbProblem, userCond, err := readCredentials(&g, spec, req.Related)
	if err != nil {
		return nil, err
	}
	jobs, jobMounts, err := observedJobs(req.Children)
	if err != nil {
		return nil, err
	}

	// Before anything is rendered, the first render waits for the stores
	// on their way (firstRenderHold).
	var hold bool
	var until time.Time
	if current == nil && len(req.Children[names.ConfigMapsKey]) == 0 {
		hold, until = firstRenderHold(&g, stores, now)
	}
	def, noDefault := chooseDefault(stores)
	var out *outcome
	switch {
	case hold:
		out, err = keepLastGood(req.Children, current, ReasonNotRendered, "the attached GlanceBackends are rendering their stores")
		if out != nil {
			out.waiting = true
		}
	case def == nil:
		out, err = keepLastGood(req.Children, current, ReasonNoDefaultBackend, noDefault)
	case creds == nil:
		why := "the service user's password is missing"
		if dbProblem != nil {
			why = "the database credentials are not complete"
		}
		out, err = keepLastGood(req.Children, current, ReasonLastGoodKept, why)
	default:
		out, err = renderNew(&g, spec, req.Children, withRetired(stores, retired), def, current, creds, jobs, jobMounts, processWideCA)
		if err != nil && !hook.IsInputError(err) {
			// The spec holds a value that cannot be written safely.
			out, err = keepLastGood(req.Children, current, ReasonInvalidSpec, "the Glance spec cannot be rendered: "+err.Error())
		}
	}
	if err != nil {
		return nil, err
	}
	out.serviceUser = userCond
	if !out.rendered.Status {
		// Nothing ran: the schema status stays, and so does what the
		// database condition said, unless the credentials are the reason.
		out.installed = api.GlanceStatus{InstalledRelease: g.Status.InstalledRelease, InstalledImage: g.Status.InstalledImage, Upgrade: g.Status.Upgrade}
		out.database = carriedDatabase(g.Status.Conditions, dbProblem)
	}
	if out.schemaJob != "" {
		observedPods, err := schemaJobPods(req.Related, out.schemaJob)
		if err != nil {
			return nil, err
		}
		jobPods = summarizePods(observedPods, podDeadline{now: now, after: schemaPodDeadline})
		out.database = explainSchemaJob(out.database, jobPods)
	}
	resp := &metacontroller.SyncResponse{
		Status:             buildStatus(&g, now, stores, retired, def, noDefault, out, current, pods),
		Children:           out.children,
		ResyncAfterSeconds: resyncAfter(pods, jobPods),
	}
	if hold {
		if r := resyncSeconds(now, until); resp.ResyncAfterSeconds == 0 || r < resp.ResyncAfterSeconds {
			resp.ResyncAfterSeconds = r
		}
	}
	return resp, nil
}

// carriedDatabase is DatabaseReady when nothing is re-rendered: the
// credentials problem if there is one, else what it said before.
func carriedDatabase(observed []metav1.Condition, problem *hook.Condition) hook.Condition {
	if problem != nil {
		return *problem
	}
	if c, ok := hook.FindCondition(observed, CondDatabaseReady); ok {
		return hook.Condition{Type: CondDatabaseReady, Status: c.Status == metav1.ConditionTrue, Reason: c.Reason, Message: c.Message}
	}
	return hook.Condition{Type: CondDatabaseReady, Reason: ReasonWaitingForConfig,
		Message: "no config is rendered yet; the schema Job mounts it, so it starts once there is one"}
}

// renderNew renders the hashed ConfigMap and Secret, the database URL's
// Secret, the schema Jobs the schema's state calls for, the Deployment that
// mounts the config (once glance-api may run) and the Service, and keeps
// what running pods may still mount.
func renderNew(g *api.Glance, spec api.GlanceSpec, observed metacontroller.ObjectMap, stores []*store, def *store,
	current *appsv1.Deployment, creds *credentials, jobs []observedJob, jobMounts []mounts, processWideCA string) (*outcome, error) {
	rel, err := release.Parse(spec.OpenStackRelease)
	if err != nil {
		return nil, fmt.Errorf("spec.openStackRelease: %w", err)
	}
	if d := spec.Database; (d.ClusterRef == nil) == (d.Host == "") {
		return nil, errors.New("spec.database needs exactly one of clusterRef and host")
	}
	jobName := jobNamer(g.Name, spec.MetadefsPath)
	in := schemaInputs{
		release: rel, image: spec.Image.Reference(), tag: spec.Image.Tag,
		installedRelease: g.Status.InstalledRelease, installedImage: g.Status.InstalledImage, upgrade: g.Status.Upgrade,
		jobs: jobs, jobName: jobName, namespace: g.Namespace,
	}
	if current != nil {
		in.deployment = &deployed{image: runningImage(current), rolledOut: rolledOut(current)}
	}
	plan := planSchema(in)
	// The config is rendered for the release glance-api runs; the schema
	// Jobs read only its [database] part.
	mode := LaunchModeOf(rel)
	if plan.run != nil {
		mode = LaunchModeOf(plan.run.release)
	}
	conf, err := renderConfig(g, spec, mode, stores, def)
	if err != nil {
		return nil, err
	}
	cfgData := configData(conf, spec, mode)
	backendsData := map[string]string{names.BackendsFile: renderBackends(stores)}
	out := &outcome{
		configName:   contenthash.Name(g.Name+"-config", cfgData),
		backendsName: contenthash.Name(g.Name+"-backends", backendsData),
		inConfig:     map[string]bool{},
		database:     plan.cond,
		installed:    api.GlanceStatus{InstalledRelease: plan.installedRelease, InstalledImage: plan.installedImage, Upgrade: plan.upgrade},
	}
	if plan.job != nil {
		out.schemaJob = jobName(*plan.job)
	}
	for _, s := range stores {
		out.inConfig[s.id] = s.rendered
	}
	m := mounts{out.configName, out.backendsName}
	immutable := true
	backendsLabels := objectLabels(g)
	backendsLabels[names.LabelBackendsOf] = g.Name
	out.children = []any{
		&corev1.ConfigMap{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: metav1.ObjectMeta{Name: out.configName, Namespace: g.Namespace, Labels: objectLabels(g)},
			Immutable:  &immutable,
			Data:       cfgData,
		},
		&corev1.Secret{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
			ObjectMeta: metav1.ObjectMeta{Name: out.backendsName, Namespace: g.Namespace, Labels: backendsLabels},
			Immutable:  &immutable,
			Type:       corev1.SecretTypeOpaque,
			Data:       map[string][]byte{names.BackendsFile: []byte(backendsData[names.BackendsFile])},
		},
		// Not hashed and not immutable: a hashed name in the pod template
		// would be a plain hash of the password; the keyed digest rolls
		// the pods instead.
		&corev1.Secret{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
			ObjectMeta: metav1.ObjectMeta{Name: names.DBConnectionSecretName(g.Name), Namespace: g.Namespace, Labels: objectLabels(g)},
			Type:       corev1.SecretTypeOpaque,
			Data:       map[string][]byte{names.DBConnectionKey: []byte(creds.connection)},
		},
		// The service user's password, escaped for oslo.config; like the
		// URL's Secret, neither hashed nor immutable.
		&corev1.Secret{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
			ObjectMeta: metav1.ObjectMeta{Name: names.AuthtokenSecretName(g.Name), Namespace: g.Namespace, Labels: objectLabels(g)},
			Type:       corev1.SecretTypeOpaque,
			Data:       map[string][]byte{names.AuthtokenPasswordKey: []byte(creds.servicePassword)},
		},
		service(g),
	}
	if plan.run != nil {
		out.runImage = plan.run.image
		deploy := deployment(g, spec, *plan.run, m, creds.digest, desiredReplicas(spec, current))
		addCABundles(deploy, stores, processWideCA)
		out.children = append(out.children, deploy)
		out.children = append(out.children, scalingChildren(g, spec)...)
	}
	jobChildren, err := schemaJobs(g, spec, observed, jobs, plan, jobName, m, creds.digest)
	if err != nil {
		return nil, err
	}
	out.children = append(out.children, jobChildren...)

	var mountedConfigs, mountedSecrets []string
	rolling := false
	if current != nil {
		cm, sec := mountedNames(current)
		mountedConfigs, mountedSecrets = append(mountedConfigs, cm), append(mountedSecrets, sec)
		rolling = !rolledOut(current)
	}
	for _, jm := range jobMounts {
		mountedConfigs, mountedSecrets = append(mountedConfigs, jm.configMap), append(mountedSecrets, jm.backendsSecret)
	}
	for _, h := range []struct {
		key, prefix, desired string
		mounted              []string
	}{
		{names.ConfigMapsKey, g.Name + "-config-", out.configName, mountedConfigs},
		{names.SecretsKey, g.Name + "-backends-", out.backendsName, mountedSecrets},
	} {
		kept, err := retained(observed, h.key, h.prefix, h.desired, h.mounted, rolling)
		if err != nil {
			return nil, err
		}
		out.children = append(out.children, kept...)
	}
	out.rendered = hook.Condition{Type: CondConfigRendered, Status: true, Reason: ReasonRendered,
		Message: fmt.Sprintf("rendered ConfigMap %q and Secret %q with default store %q", out.configName, out.backendsName, def.id)}
	return out, nil
}

// keepLastGood re-renders nothing: every observed child is returned exactly
// as last applied, so running pods keep their last-good config and no
// schema Job starts. On first install there is nothing to keep and nothing
// is created.
func keepLastGood(observed metacontroller.ObjectMap, current *appsv1.Deployment, reason, why string) (*outcome, error) {
	kept, err := observed.KeepAsLastApplied(names.ConfigMapsKey, names.SecretsKey, names.DeploymentsKey, names.ServicesKey, names.JobsKey,
		names.PodDisruptionBudgetsKey, names.HorizontalPodAutoscalersKey)
	if err != nil {
		return nil, hook.Invalid("%v", err)
	}
	out := &outcome{children: kept, inConfig: map[string]bool{}}
	// An invalid spec is its own reason; otherwise the reason says whether
	// there is a last-good config to keep.
	out.rendered = hook.Condition{Type: CondConfigRendered, Reason: reason}
	if current == nil {
		if reason != ReasonInvalidSpec {
			out.rendered.Reason = ReasonNotRendered
		}
		out.rendered.Message = "no config is rendered and no Deployment is created: " + why
		return out, nil
	}
	if reason != ReasonInvalidSpec {
		out.rendered.Reason = ReasonLastGoodKept
	}
	out.configName, out.backendsName = mountedNames(current)
	out.rendered.Message = fmt.Sprintf("nothing is re-rendered (%s); the Deployment keeps mounting the last-good ConfigMap %q and Secret %q",
		why, out.configName, out.backendsName)
	for _, line := range strings.Split(backendsText(observed, out.backendsName), "\n") {
		if strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") {
			out.inConfig[line[1:len(line)-1]] = true
		}
	}
	return out, nil
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
	text, err := decodeBase64(sec.Data[names.BackendsFile])
	if err != nil {
		return ""
	}
	return text
}

// buildStatus reports the stores (the retiring ones too), the config and
// the Deployment with what its pods show.
func buildStatus(g *api.Glance, now time.Time, stores, retired []*store, def *store, noDefault string, out *outcome, current *appsv1.Deployment, pods podsVerdict) api.GlanceStatus {
	status := api.GlanceStatus{ConfigMapName: out.configName, BackendsSecretName: out.backendsName,
		InstalledRelease: out.installed.InstalledRelease, InstalledImage: out.installed.InstalledImage, Upgrade: out.installed.Upgrade,
		Endpoint: serviceEndpoint(g)}
	if up := out.installed.Upgrade; up != nil {
		status.TargetRelease, status.UpgradePhase = up.TargetRelease, up.Phase
	}
	var retiring []string
	for _, s := range retired {
		kept := out.inConfig[s.id]
		status.RetiringStores = append(status.RetiringStores, api.RetiringStore{StoreID: s.id, Kept: kept, Message: s.skipped})
		if kept {
			retiring = append(retiring, fmt.Sprintf("%q", s.id))
		}
	}
	var skipped []string
	// While the first render waits, the status names no backend, so it stays
	// the same while they arrive; each one's own status says where it is.
	listed := stores
	if out.waiting {
		listed = nil
	}
	for _, s := range listed {
		bs := api.BackendStatus{Name: s.backend.Name, StoreID: s.id, IsDefault: s.backend.Spec.IsDefault, Projected: out.inConfig[s.id]}
		switch {
		case s.pending:
			bs.Reason, bs.Message = ReasonStorePending, s.skipped
			skipped = append(skipped, fmt.Sprintf("%q (store %s): %s", s.backend.Name, s.id, s.skipped))
		case !s.rendered:
			bs.Reason, bs.Message = cmp.Or(s.skipReason, ReasonBackendSkipped), s.skipped
			skipped = append(skipped, fmt.Sprintf("%q (store %s): %s", s.backend.Name, s.id, s.skipped))
		case s.held:
			bs.Reason, bs.Message = ReasonStoreOutdated, s.skipped
			skipped = append(skipped, fmt.Sprintf("%q (store %s): %s", s.backend.Name, s.id, s.skipped))
		case s.defaultIgnored && bs.Projected:
			bs.Reason, bs.Message = ReasonDefaultSetByControlPlane, s.ignored
			skipped = append(skipped, fmt.Sprintf("%q (store %s): %s", s.backend.Name, s.id, s.ignored))
		case !bs.Projected:
			// Not the ConfigRendered message itself, which names every
			// candidate default: repeated per store it grew with n².
			bs.Reason, bs.Message = ReasonNotInRunningConfig, "usable, but the config is not re-rendered: see condition "+CondConfigRendered
		}
		status.Backends = append(status.Backends, bs)
	}

	backends := hook.Condition{Type: CondBackendsReady}
	switch {
	case out.waiting:
		backends.Reason = ReasonWaitingForBackends
		backends.Message = "the first config is rendered once the attached GlanceBackends have rendered their stores; " +
			"each one's status says where it is"
	case def == nil:
		backends.Reason = ReasonNoDefaultBackend
		backends.Message = noDefault + "; nothing is re-rendered and the last-good config is kept"
	case len(skipped) > 0:
		backends.Reason = ReasonWaitingForBackends
		backends.Message = hook.Plural(len(skipped), "backend is", "backends are") + " not projected as specified: " +
			strings.Join(skipped, "; ")
	default:
		backends.Status, backends.Reason = true, ReasonAllBackendsProjected
		backends.Message = fmt.Sprintf("%s projected, default store %q", hook.Plural(len(stores), "store", "stores"), def.id)
	}
	if len(retiring) > 0 {
		backends.Message += fmt.Sprintf("; retiring, kept readable until spec.dropRetiredStores lists them: %s", strings.Join(retiring, ", "))
	}
	if out.rendered.Status {
		status.DefaultBackend = def.id
	}

	deploy := explainRollout(deploymentReady(current, out.configName, out.backendsName, out.runImage), pods)
	ready := hook.Ready("every store is projected, the schema is in place and glance-api runs the current config",
		backends, out.rendered, out.database, out.serviceUser, deploy)
	status.Conditions = hook.Conditions(g.Status.Conditions, g.Generation, now, backends, out.rendered, out.database, out.serviceUser, deploy, ready)
	return status
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
