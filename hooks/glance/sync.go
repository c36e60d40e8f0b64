package glance

import (
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/contenthash"
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
	var current *appsv1.Deployment
	if deployFound {
		current = &observed
		_, mountedBackends := mountedNames(current)
		holdOutdated(stores, func() string { return backendsText(req.Children, mountedBackends) })
	}

	def, noDefault := chooseDefault(stores)
	var out *outcome
	if def != nil {
		out, err = renderNew(&g, req.Children, stores, def, current)
		if err != nil && !hook.IsInputError(err) {
			// The spec holds a value that cannot be written safely.
			out, err = keepLastGood(req.Children, current, ReasonInvalidSpec, "the Glance spec cannot be rendered: "+err.Error())
		}
	} else {
		out, err = keepLastGood(req.Children, current, ReasonNoDefaultBackend, noDefault)
	}
	if err != nil {
		return nil, err
	}
	return &metacontroller.SyncResponse{
		Status:   buildStatus(&g, now, stores, def, noDefault, out, current),
		Children: out.children,
	}, nil
}

// renderNew renders the hashed ConfigMap and Secret, the Deployment that
// mounts them and the Service, and keeps what running pods may still mount.
func renderNew(g *api.Glance, observed metacontroller.ObjectMap, stores []*store, def *store, current *appsv1.Deployment) (*outcome, error) {
	spec := g.Spec.WithDefaults(g.Namespace)
	rel, err := release.Parse(spec.OpenStackRelease)
	if err != nil {
		return nil, fmt.Errorf("spec.openStackRelease: %w", err)
	}
	mode := LaunchModeOf(rel)
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
	}
	for _, s := range stores {
		out.inConfig[s.id] = s.rendered
	}
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
		deployment(g, spec, mode, out.configName, out.backendsName),
		service(g),
	}
	mountedConfig, mountedBackends, rolling := "", "", false
	if current != nil {
		mountedConfig, mountedBackends = mountedNames(current)
		rolling = !rolledOut(current)
	}
	for _, h := range []struct{ key, desired, mounted string }{
		{names.ConfigMapsKey, out.configName, mountedConfig},
		{names.SecretsKey, out.backendsName, mountedBackends},
	} {
		kept, err := retained(observed, h.key, h.desired, h.mounted, rolling)
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
// as last applied, so running pods keep their last-good config. On first
// install there is nothing to keep and no Deployment is created.
func keepLastGood(observed metacontroller.ObjectMap, current *appsv1.Deployment, reason, why string) (*outcome, error) {
	kept, err := observed.KeepAsLastApplied(names.ConfigMapsKey, names.SecretsKey, names.DeploymentsKey, names.ServicesKey)
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

// buildStatus reports the stores, the config and the Deployment.
func buildStatus(g *api.Glance, now time.Time, stores []*store, def *store, noDefault string, out *outcome, current *appsv1.Deployment) api.GlanceStatus {
	status := api.GlanceStatus{ConfigMapName: out.configName, BackendsSecretName: out.backendsName}
	var skipped []string
	for _, s := range stores {
		bs := api.BackendStatus{Name: s.backend.Name, StoreID: s.id, IsDefault: s.backend.Spec.IsDefault, Projected: out.inConfig[s.id]}
		switch {
		case !s.rendered:
			bs.Reason, bs.Message = ReasonBackendSkipped, s.skipped
			skipped = append(skipped, fmt.Sprintf("%q (store %s): %s", s.backend.Name, s.id, s.skipped))
		case s.held:
			bs.Reason, bs.Message = ReasonStoreOutdated, s.skipped
			skipped = append(skipped, fmt.Sprintf("%q (store %s): %s", s.backend.Name, s.id, s.skipped))
		case !bs.Projected:
			// Not the ConfigRendered message itself, which names every
			// candidate default: repeated per store it grew with n².
			bs.Reason, bs.Message = ReasonNotInRunningConfig, "usable, but the config is not re-rendered: see condition "+CondConfigRendered
		}
		status.Backends = append(status.Backends, bs)
	}

	backends := hook.Condition{Type: CondBackendsReady}
	switch {
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
	if out.rendered.Status {
		status.DefaultBackend = def.id
	}

	deploy := deploymentReady(current, out.configName, out.backendsName)
	ready := hook.Ready("every store is projected and glance-api runs the current config", backends, out.rendered, deploy)
	status.Conditions = hook.Conditions(g.Status.Conditions, g.Generation, now, backends, out.rendered, deploy, ready)
	return status
}

// deploymentReady reports the observed Deployment: present, mounting the
// config it should, and fully rolled out and available.
func deploymentReady(d *appsv1.Deployment, configName, backendsName string) hook.Condition {
	c := hook.Condition{Type: CondDeploymentReady, Reason: ReasonDeploymentMissing}
	if d == nil {
		c.Message = "the glance-api Deployment does not exist yet"
		return c
	}
	c.Reason = ReasonRollingOut
	want := int32(1)
	if d.Spec.Replicas != nil {
		want = *d.Spec.Replicas
	}
	cm, sec := mountedNames(d)
	switch {
	case cm != configName || sec != backendsName:
		c.Message = fmt.Sprintf("the Deployment is being updated to ConfigMap %q and Secret %q", configName, backendsName)
	case !rolledOut(d):
		c.Message = fmt.Sprintf("%d of %d replicas run the current config and are available",
			min(d.Status.UpdatedReplicas, d.Status.AvailableReplicas), want)
	default:
		c.Status, c.Reason = true, ReasonDeploymentAvailable
		c.Message = fmt.Sprintf("%d of %d replicas available", d.Status.AvailableReplicas, want)
	}
	return c
}
