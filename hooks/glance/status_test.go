package glance

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/glance/decide"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/observe"
	"github.com/c5c3/glance-hooks/hooks/glance/render"
	"github.com/c5c3/glance-hooks/hooks/glance/report"
	"github.com/c5c3/glance-hooks/hooks/glance/storestate"
)

// mounting is a rolled-out Deployment mounting the given config.
func mounting(configMap, secret string) *appsv1.Deployment {
	one := int32(1)
	d := &appsv1.Deployment{}
	d.Spec.Replicas = &one
	d.Status.UpdatedReplicas, d.Status.Replicas, d.Status.AvailableReplicas = 1, 1, 1
	d.Spec.Template.Spec.Volumes = []corev1.Volume{
		{Name: names.VolumeConfig, VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: configMap}}}},
		{Name: names.VolumeBackends, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: secret}}},
	}
	return d
}

// rollingOut is d with no replica available yet.
func rollingOut(d *appsv1.Deployment) *appsv1.Deployment {
	d.Status.AvailableReplicas = 0
	return d
}

// coreConditions are the conditions TestBuildStatus follows: the stores,
// the config, the schema, the credentials, the rollout and Ready.
var coreConditions = map[string]bool{model.CondBackendsReady: true, model.CondConfigRendered: true, model.CondDatabaseReady: true,
	model.CondServiceUserReady: true, model.CondDeploymentReady: true, hook.ConditionReady: true}

func TestBuildStatus(t *testing.T) {
	synced := hook.Condition{Type: model.CondDatabaseReady, Status: true, Reason: model.ReasonDatabaseSynced, Message: "synced"}
	userReady := hook.Condition{Type: model.CondServiceUserReady, Status: true, Reason: model.ReasonCredentialsAvailable, Message: "available"}
	rendered := func(stores ...*model.Store) *render.Outcome {
		out := &render.Outcome{ConfigName: "g-config-1", BackendsName: "g-backends-1", InConfig: map[string]bool{},
			Rendered: hook.Condition{Type: model.CondConfigRendered, Status: true, Reason: model.ReasonRendered, Message: "rendered"},
			Database: synced, ServiceUser: userReady}
		for _, s := range stores {
			out.InConfig[s.ID] = s.State.Rendered()
		}
		return out
	}
	kept := &render.Outcome{ConfigName: "g-config-0", BackendsName: "g-backends-0", InConfig: map[string]bool{"a": true},
		Rendered: hook.Condition{Type: model.CondConfigRendered, Reason: model.ReasonLastGoodKept, Message: "kept"},
		Database: synced, ServiceUser: userReady}
	syncing := rendered(attached("a", true, ""))
	syncing.Database = hook.Condition{Type: model.CondDatabaseReady, Reason: model.ReasonDBSyncInProgress, Message: "Job j syncs"}
	syncing.RunImage = "glance:old"
	newImage := rendered(attached("a", true, ""))
	newImage.RunImage = "glance:new"
	withImage := func(d *appsv1.Deployment, image string) *appsv1.Deployment {
		d.Spec.Template.Spec.Containers = []corev1.Container{{Name: render.ContainerName, Image: image}}
		return d
	}
	held := attached("b", false, "")
	held.State, held.Skipped = storestate.Held, "its store Secret was rendered from an older spec; the running [b] section is kept until it is re-rendered"
	pending := attached("b", false, observe.PendingMessage)
	pending.State = storestate.Pending
	notCaughtUp := withImage(mounting("g-config-1", "g-backends-1"), "glance:new")
	notCaughtUp.Generation, notCaughtUp.Status.ObservedGeneration = 2, 1
	waiting := &render.Outcome{InConfig: map[string]bool{}, Waiting: true,
		Rendered: hook.Condition{Type: model.CondConfigRendered, Reason: model.ReasonNotRendered, Message: "not rendered"},
		Database: hook.Condition{Type: model.CondDatabaseReady, Reason: model.ReasonWaitingForBackends, Message: "no config"}, ServiceUser: userReady}

	type args struct {
		stores    []*model.Store
		def       string
		noDefault string
		out       *render.Outcome
		current   *appsv1.Deployment
		pods      report.PodsVerdict
	}
	type want struct {
		conditions     []string
		backends       []api.BackendStatus
		defaultBackend string
	}
	cases := map[string]struct {
		reason string
		args   args
		want   want
	}{
		"AllProjected": {
			reason: "every store rendered and the Deployment on the current config: everything is ready",
			args: args{stores: []*model.Store{attached("a", true, ""), attached("b", false, "")}, def: "a",
				current: mounting("g-config-1", "g-backends-1")},
			want: want{
				conditions: []string{
					`BackendsReady True AllBackendsProjected: 2 stores projected, default store "a"`,
					"ConfigRendered True Rendered: rendered",
					"DatabaseReady True DatabaseSynced: synced",
					"ServiceUserReady True CredentialsAvailable: available",
					"DeploymentReady True DeploymentReady: 1 of 1 replicas available",
					"Ready True AllReady: every store is projected, the schema is in place and glance-api runs the current config",
				},
				backends: []api.BackendStatus{
					{Name: "a", StoreID: "a", IsDefault: true, Projected: true},
					{Name: "b", StoreID: "b", Projected: true},
				},
				defaultBackend: "a",
			},
		},
		"SkippedStore": {
			reason: "a faulted store is named with why; its siblings stay projected",
			args: args{stores: []*model.Store{attached("a", true, ""), attached("b", false, "its credentials are not ready")}, def: "a",
				current: mounting("g-config-1", "g-backends-1")},
			want: want{
				conditions: []string{
					`BackendsReady False WaitingForBackends: 1 backend is not projected as specified: "b" (store b): its credentials are not ready`,
					"ConfigRendered True Rendered: rendered",
					"DatabaseReady True DatabaseSynced: synced",
					"ServiceUserReady True CredentialsAvailable: available",
					"DeploymentReady True DeploymentReady: 1 of 1 replicas available",
					"Ready False NotAllReady: waiting for BackendsReady (WaitingForBackends)",
				},
				backends: []api.BackendStatus{
					{Name: "a", StoreID: "a", IsDefault: true, Projected: true},
					{Name: "b", StoreID: "b", Reason: model.ReasonBackendSkipped, Message: "its credentials are not ready"},
				},
				defaultBackend: "a",
			},
		},
		"HeldStore": {
			reason: "a store kept on its running section is projected, and says it is outdated",
			args: args{stores: []*model.Store{attached("a", true, ""), held}, def: "a",
				current: mounting("g-config-1", "g-backends-1")},
			want: want{
				conditions: []string{
					`BackendsReady False WaitingForBackends: 1 backend is not projected as specified: "b" (store b): ` + held.Skipped,
					"ConfigRendered True Rendered: rendered",
					"DatabaseReady True DatabaseSynced: synced",
					"ServiceUserReady True CredentialsAvailable: available",
					"DeploymentReady True DeploymentReady: 1 of 1 replicas available",
					"Ready False NotAllReady: waiting for BackendsReady (WaitingForBackends)",
				},
				backends: []api.BackendStatus{
					{Name: "a", StoreID: "a", IsDefault: true, Projected: true},
					{Name: "b", StoreID: "b", Projected: true, Reason: model.ReasonStoreOutdated, Message: held.Skipped},
				},
				defaultBackend: "a",
			},
		},
		"NoDefault": {
			reason: "without a default the last-good config is kept: no default is reported, usable stores not in it say why",
			args: args{stores: []*model.Store{attached("a", false, ""), attached("c", false, "")},
				noDefault: "no attached backend is marked isDefault", out: kept,
				current: mounting("g-config-0", "g-backends-0")},
			want: want{
				conditions: []string{
					"BackendsReady False NoDefaultBackend: no attached backend is marked isDefault; nothing is re-rendered and the last-good config is kept",
					"ConfigRendered False LastGoodKept: kept",
					"DatabaseReady True DatabaseSynced: synced",
					"ServiceUserReady True CredentialsAvailable: available",
					"DeploymentReady True DeploymentReady: 1 of 1 replicas available",
					"Ready False NotAllReady: waiting for BackendsReady (NoDefaultBackend), ConfigRendered (LastGoodKept)",
				},
				backends: []api.BackendStatus{
					{Name: "a", StoreID: "a", Projected: true},
					{Name: "c", StoreID: "c", Reason: model.ReasonNotInRunningConfig, Message: "usable, but the config is not re-rendered: see condition ConfigRendered"},
				},
			},
		},
		"DBSyncInProgress": {
			reason: "while a schema Job runs glance-api keeps its image and Ready waits for the database",
			args: args{stores: []*model.Store{attached("a", true, "")}, def: "a", out: syncing,
				current: withImage(mounting("g-config-1", "g-backends-1"), "glance:old")},
			want: want{
				conditions: []string{
					`BackendsReady True AllBackendsProjected: 1 store projected, default store "a"`,
					"ConfigRendered True Rendered: rendered",
					"DatabaseReady False DBSyncInProgress: Job j syncs",
					"ServiceUserReady True CredentialsAvailable: available",
					"DeploymentReady True DeploymentReady: 1 of 1 replicas available",
					"Ready False NotAllReady: waiting for DatabaseReady (DBSyncInProgress)",
				},
				backends:       []api.BackendStatus{{Name: "a", StoreID: "a", IsDefault: true, Projected: true}},
				defaultBackend: "a",
			},
		},
		"ImageRollingOut": {
			reason: "a Deployment on the current config but still the old image is rolling out",
			args: args{stores: []*model.Store{attached("a", true, "")}, def: "a", out: newImage,
				current: withImage(mounting("g-config-1", "g-backends-1"), "glance:old")},
			want: want{
				conditions: []string{
					`BackendsReady True AllBackendsProjected: 1 store projected, default store "a"`,
					"ConfigRendered True Rendered: rendered",
					"DatabaseReady True DatabaseSynced: synced",
					"ServiceUserReady True CredentialsAvailable: available",
					`DeploymentReady False WaitingForDeployment: the Deployment rolls out ConfigMap "g-config-1" and Secret "g-backends-1" with image "glance:new"`,
					"Ready False NotAllReady: waiting for DeploymentReady (WaitingForDeployment)",
				},
				backends:       []api.BackendStatus{{Name: "a", StoreID: "a", IsDefault: true, Projected: true}},
				defaultBackend: "a",
			},
		},
		"PendingStore": {
			reason: "a store on its way is left out and says so, without being called skipped",
			args: args{stores: []*model.Store{attached("a", true, ""), pending}, def: "a",
				current: mounting("g-config-1", "g-backends-1")},
			want: want{
				conditions: []string{
					`BackendsReady False WaitingForBackends: 1 backend is not projected as specified: "b" (store b): its store is not rendered yet`,
					"ConfigRendered True Rendered: rendered",
					"DatabaseReady True DatabaseSynced: synced",
					"ServiceUserReady True CredentialsAvailable: available",
					"DeploymentReady True DeploymentReady: 1 of 1 replicas available",
					"Ready False NotAllReady: waiting for BackendsReady (WaitingForBackends)",
				},
				backends: []api.BackendStatus{
					{Name: "a", StoreID: "a", IsDefault: true, Projected: true},
					{Name: "b", StoreID: "b", Reason: model.ReasonStorePending, Message: "its store is not rendered yet"},
				},
				defaultBackend: "a",
			},
		},
		"FirstRenderWaits": {
			reason: "while the first render waits, the status names no backend: it stays the same while they arrive",
			args:   args{stores: []*model.Store{attached("a", true, ""), pending}, out: waiting},
			want: want{
				conditions: []string{
					"BackendsReady False WaitingForBackends: the first config is rendered once the attached GlanceBackends have rendered their stores; each one's status says where it is",
					"ConfigRendered False NotRendered: not rendered",
					"DatabaseReady False WaitingForBackends: no config",
					"ServiceUserReady True CredentialsAvailable: available",
					"DeploymentReady False WaitingForBackends: no config is rendered yet: the glance-api Deployment is created once there is one",
					"Ready False NotAllReady: waiting for BackendsReady (WaitingForBackends), ConfigRendered (NotRendered), DatabaseReady (WaitingForBackends), " +
						"DeploymentReady (WaitingForBackends), GlanceAPIReady (EndpointNotReady)",
				},
			},
		},
		"Creating": {
			reason: "the answer that creates the Deployment says it rolls out, as the next syncs will until the Deployment controller reports",
			args:   args{stores: []*model.Store{attached("a", true, "")}, def: "a", out: newImage},
			want: want{
				conditions: []string{
					`BackendsReady True AllBackendsProjected: 1 store projected, default store "a"`,
					"ConfigRendered True Rendered: rendered",
					"DatabaseReady True DatabaseSynced: synced",
					"ServiceUserReady True CredentialsAvailable: available",
					`DeploymentReady False WaitingForDeployment: the Deployment rolls out ConfigMap "g-config-1" and Secret "g-backends-1" with image "glance:new"`,
					"Ready False NotAllReady: waiting for DeploymentReady (WaitingForDeployment), GlanceAPIReady (APIUnhealthy)",
				},
				backends:       []api.BackendStatus{{Name: "a", StoreID: "a", IsDefault: true, Projected: true}},
				defaultBackend: "a",
			},
		},
		"NotObservedYet": {
			reason: "a Deployment whose new template the Deployment controller has not seen yet still rolls out, " +
				"whatever its status from the template before says",
			args: args{stores: []*model.Store{attached("a", true, "")}, def: "a", out: newImage, current: notCaughtUp},
			want: want{
				conditions: []string{
					`BackendsReady True AllBackendsProjected: 1 store projected, default store "a"`,
					"ConfigRendered True Rendered: rendered",
					"DatabaseReady True DatabaseSynced: synced",
					"ServiceUserReady True CredentialsAvailable: available",
					`DeploymentReady False WaitingForDeployment: the Deployment rolls out ConfigMap "g-config-1" and Secret "g-backends-1" with image "glance:new"`,
					"Ready False NotAllReady: waiting for DeploymentReady (WaitingForDeployment)",
				},
				backends:       []api.BackendStatus{{Name: "a", StoreID: "a", IsDefault: true, Projected: true}},
				defaultBackend: "a",
			},
		},
		"WaitingForDeployment": {
			reason: "a Deployment still on the previous config is rolling out",
			args: args{stores: []*model.Store{attached("a", true, "")}, def: "a",
				current: mounting("g-config-0", "g-backends-0")},
			want: want{
				conditions: []string{
					`BackendsReady True AllBackendsProjected: 1 store projected, default store "a"`,
					"ConfigRendered True Rendered: rendered",
					"DatabaseReady True DatabaseSynced: synced",
					"ServiceUserReady True CredentialsAvailable: available",
					`DeploymentReady False WaitingForDeployment: the Deployment rolls out ConfigMap "g-config-1" and Secret "g-backends-1"`,
					"Ready False NotAllReady: waiting for DeploymentReady (WaitingForDeployment)",
				},
				backends:       []api.BackendStatus{{Name: "a", StoreID: "a", IsDefault: true, Projected: true}},
				defaultBackend: "a",
			},
		},
		"PodsCrashLooping": {
			reason: "a rollout whose pods crash: their reason replaces WaitingForDeployment, their summary follows what it rolls out (no counts: each pod that comes up would rewrite the status), and Ready names it",
			args: args{stores: []*model.Store{attached("a", true, "")}, def: "a",
				current: rollingOut(mounting("g-config-1", "g-backends-1")),
				pods:    report.PodsVerdict{Reason: model.ReasonPodsCrashLooping, Message: `1 of 1 pod is crash-looping: pod "g-1" ...`}},
			want: want{
				conditions: []string{
					`BackendsReady True AllBackendsProjected: 1 store projected, default store "a"`,
					"ConfigRendered True Rendered: rendered",
					"DatabaseReady True DatabaseSynced: synced",
					"ServiceUserReady True CredentialsAvailable: available",
					`DeploymentReady False PodsCrashLooping: the Deployment rolls out ConfigMap "g-config-1" and Secret "g-backends-1"; 1 of 1 pod is crash-looping: pod "g-1" ...`,
					"Ready False NotAllReady: waiting for DeploymentReady (PodsCrashLooping), GlanceAPIReady (APIUnhealthy)",
				},
				backends:       []api.BackendStatus{{Name: "a", StoreID: "a", IsDefault: true, Projected: true}},
				defaultBackend: "a",
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			out := tc.args.out
			if out == nil {
				out = rendered(tc.args.stores...)
			}
			var def *model.Store
			for _, s := range tc.args.stores {
				if s.ID == tc.args.def {
					def = s
				}
			}
			g := &api.Glance{}
			d := &decide.Decision{Stores: tc.args.stores, Def: def, NoDefault: tc.args.noDefault}
			o := &observe.Observed{Glance: g, Spec: g.Spec.WithDefaults("ns"), Now: time.Unix(0, 0), Deployment: tc.args.current, Creds: observe.CredentialsRead{Creds: &observe.Credentials{}}}
			status, err := report.BuildStatus(report.StatusInput{Observed: o, Decision: d, Out: out, Pods: tc.args.pods}, statuses)
			require.NoError(t, err)
			got := want{backends: status.Backends, defaultBackend: status.DefaultBackend}
			for _, c := range status.Conditions {
				// The features' own conditions have tests of their own.
				if !coreConditions[c.Type] {
					continue
				}
				got.conditions = append(got.conditions, fmt.Sprintf("%s %s %s: %s", c.Type, c.Status, c.Reason, c.Message))
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nbuildStatus(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// From the answer that changes the Deployment until its rollout is done,
// DeploymentReady says one thing, however many of its pods are up: each
// pod that comes up must not rewrite the Glance's status.
func TestDeploymentReadyHoldsThroughARollout(t *testing.T) {
	stage := func(updated, available int32, observedGen int64) *appsv1.Deployment {
		d := mounting("g-config-2", "g-backends-1")
		three := int32(3)
		d.Spec.Replicas, d.Generation, d.Status.ObservedGeneration = &three, 2, observedGen
		d.Status.Replicas, d.Status.UpdatedReplicas, d.Status.AvailableReplicas = 3, updated, available
		return d
	}
	answered := report.DeploymentReady(mounting("g-config-1", "g-backends-1"), "g-config-2", "g-backends-1", "")
	cases := map[string]struct {
		reason string
		d      *appsv1.Deployment
	}{
		"observed":     {"the Deployment controller saw the change, no pod updated yet", stage(0, 3, 2)},
		"one updated":  {"one new pod is up, two old ones serve", stage(1, 3, 2)},
		"two updated":  {"two new pods, one of them not available yet", stage(2, 2, 2)},
		"all, one old": {"every pod updated, an old one still terminating", stage(3, 3, 2)},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			tc.d.Status.Replicas = 4 // an old pod left
			got := report.DeploymentReady(tc.d, "g-config-2", "g-backends-1", "")
			if diff := cmp.Diff(answered, got); diff != "" {
				t.Errorf("%s: -the answer's, +this stage's:\n%s", tc.reason, diff)
			}
		})
	}
	done := report.DeploymentReady(stage(3, 3, 2), "g-config-2", "g-backends-1", "")
	require.True(t, done.Status, "rolled out once every replica is updated and available and no old one is left")
}

// An upgrade that ends in a sync takes DatabaseReady's transition of that
// sync as its EndedAt, the time its Event carries; the next syncs keep
// both as they are.
func TestUpgradeEndTakesTheTransition(t *testing.T) {
	a := attached("a", true, "")
	build := func(observed api.GlanceStatus, end *api.UpgradeEnd, now time.Time) api.GlanceStatus {
		t.Helper()
		g := &api.Glance{Status: observed}
		out := &render.Outcome{ConfigName: "g-config-1", BackendsName: "g-backends-1", InConfig: map[string]bool{"a": true},
			Rendered:    hook.Condition{Type: model.CondConfigRendered, Status: true, Reason: model.ReasonRendered, Message: "rendered"},
			Database:    hook.Condition{Type: model.CondDatabaseReady, Status: true, Reason: model.ReasonDatabaseSynced, Message: "in place"},
			ServiceUser: hook.Condition{Type: model.CondServiceUserReady, Status: true, Reason: model.ReasonCredentialsAvailable},
			Installed:   api.GlanceStatus{InstalledRelease: "2026.1", LastUpgrade: end}}
		o := &observe.Observed{Glance: g, Spec: g.Spec.WithDefaults("ns"), Now: now, Deployment: mounting("g-config-1", "g-backends-1"),
			Creds: observe.CredentialsRead{Creds: &observe.Credentials{}}}
		st, err := report.BuildStatus(report.StatusInput{Observed: o, Decision: &decide.Decision{Stores: []*model.Store{a}, Def: a}, Out: out}, statuses)
		require.NoError(t, err)
		return st
	}
	upgrading := api.GlanceStatus{Conditions: hook.Conditions(nil, 1, time.Unix(100, 0),
		hook.Condition{Type: model.CondDatabaseReady, Reason: model.ReasonContractInProgress, Message: "contract runs"})}
	end := &api.UpgradeEnd{Result: api.UpgradeComplete, FromRelease: "2025.2", ToRelease: "2026.1"}
	ended := build(upgrading, end, time.Unix(200, 0))
	c, _ := hook.FindCondition(ended.Conditions, model.CondDatabaseReady)
	require.NotNil(t, ended.LastUpgrade)
	require.True(t, ended.LastUpgrade.EndedAt.Equal(&c.LastTransitionTime), "ended at %v, DatabaseReady turned True at %v", ended.LastUpgrade.EndedAt, c.LastTransitionTime)
	require.Equal(t, time.Unix(200, 0).UTC(), c.LastTransitionTime.UTC())
	require.True(t, end.EndedAt.IsZero(), "the plan's record is not written to")

	later := build(ended, ended.LastUpgrade, time.Unix(900, 0))
	require.Equal(t, ended.LastUpgrade, later.LastUpgrade, "a later sync keeps the end's time")
}
