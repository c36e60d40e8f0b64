package glance

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/glance/decide"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/observe"
	"github.com/c5c3/glance-hooks/hooks/glance/render"
	"github.com/c5c3/glance-hooks/hooks/glance/report"
	"github.com/c5c3/glance-hooks/test/docsection"
)

// referenceStatus is a Glance that runs: two stores, the config rendered,
// the schema in place, the Deployment rolled out on it, the Secrets
// complete, no optional field set. Each case of TestReferenceConditions
// changes one thing of it.
func referenceStatus() report.StatusInput {
	g := &api.Glance{ObjectMeta: metav1.ObjectMeta{Name: "glance", Namespace: "openstack"}}
	a, b := attached("a", true, ""), attached("b", false, "")
	out := &render.Outcome{ConfigName: "glance-config-1", BackendsName: "glance-backends-1", InConfig: map[string]bool{"a": true, "b": true},
		Rendered:    hook.Condition{Type: model.CondConfigRendered, Status: true, Reason: model.ReasonRendered},
		Database:    hook.Condition{Type: model.CondDatabaseReady, Status: true, Reason: model.ReasonDatabaseSynced},
		ServiceUser: hook.Condition{Type: model.CondServiceUserReady, Status: true, Reason: model.ReasonCredentialsAvailable}}
	return report.StatusInput{
		Observed: &observe.Observed{Glance: g, Spec: g.Spec.WithDefaults(g.Namespace), Now: time.Unix(0, 0),
			Deployment: mounting("glance-config-1", "glance-backends-1"), Creds: observe.CredentialsRead{Creds: &observe.Credentials{}},
			Applied: observe.Applied(metacontroller.ObjectMap{})},
		Decision: &decide.Decision{Stores: []*model.Store{a, b}, Def: a},
		Out:      out,
	}
}

// purgeCronJob is the observed purge CronJob with a status.
func purgeCronJob(t *testing.T, st batchv1.CronJobStatus) metacontroller.ObjectMap {
	raw, err := json.Marshal(map[string]any{"apiVersion": "batch/v1", "kind": "CronJob",
		"metadata": map[string]any{"name": "glance-db-purge"}, "status": st})
	require.NoError(t, err)
	return metacontroller.ObjectMap{names.CronJobsKey: {"glance-db-purge": raw}}
}

// TestReferenceConditions names every condition type and reason the
// reference's Glance reports (its reconciler's Conditions table, and
// ExtraConfigHealthy) and shows when each is set here: a case that
// changes the running Glance so the condition says it, or, for a reason
// reported under another name or not at all, the row of docs/conditions.md
// that says so.
func TestReferenceConditions(t *testing.T) {
	type setHere func(t *testing.T, in *report.StatusInput)
	same := func(t *testing.T, in *report.StatusInput) {}
	cases := map[string]struct {
		reason string
		status bool
		set    setHere // nil: not reported under this name here
	}{
		"SecretsReady/SecretsAvailable": {"the Secrets are complete, without a store as with a Ready one", true, same},
		"SecretsReady/SecretStoreNotReady": {"spec.secretStoreRef names a store that is not there: the gate holds the render", false,
			func(t *testing.T, in *report.StatusInput) {
				in.Observed.Spec.SecretStoreRef = &api.SecretStoreRefSpec{Name: "openbao"}
				var err error
				in.Observed.Gates, err = observeGates(in.Observed, metacontroller.ObjectMap{})
				require.NoError(t, err)
			}},
		"SecretsReady/WaitingForDBCredentials": {"the database Secret is incomplete", false, func(t *testing.T, in *report.StatusInput) {
			in.Observed.Creds = observe.CredentialsRead{DBProblem: &hook.Condition{Type: model.CondDatabaseReady, Reason: model.ReasonWaitingForDBCredentials}}
		}},
		"SecretsReady/WaitingForServiceUserCredentials": {"the service user's Secret is incomplete", false, func(t *testing.T, in *report.StatusInput) {
			in.Observed.Creds = observe.CredentialsRead{}
		}},
		"SecretsReady/TargetClusterUnavailable": {reason: "no target clusters here"},
		"SecretsReady/ConfigError":              {reason: "ConfigRendered=False/InvalidSpec says it"},

		"BackendsReady/AllBackendsProjected": {"every store projected, one default", true, same},
		"BackendsReady/WaitingForBackends": {"the first render waits for stores on their way", false, func(t *testing.T, in *report.StatusInput) {
			in.Out.Waiting = true
		}},
		"BackendsReady/NoDefaultBackend": {"no store is the default", false, func(t *testing.T, in *report.StatusInput) {
			in.Decision.Def, in.Decision.NoDefault = nil, "no attached backend is marked isDefault"
		}},

		"DatabaseReady/DatabaseSynced":        {"the schema Job succeeded", true, same},
		"DatabaseReady/ClusterNotReady":       {reason: "the hooks read no database cluster object"},
		"DatabaseReady/WaitingForDatabase":    {reason: "DBSyncInProgress while the Job waits for the database"},
		"DatabaseReady/DBSyncFailed":          {"the schema Job failed", false, databaseSaid(model.ReasonDBSyncFailed)},
		"DatabaseReady/DBSyncInProgress":      {"the schema Job runs", false, databaseSaid(model.ReasonDBSyncInProgress)},
		"DatabaseReady/WaitingForBackends":    {"no config was ever rendered for the schema Job (render/children.go)", false, databaseSaid(model.ReasonWaitingForBackends)},
		"DatabaseReady/ImageReleaseMismatch":  {"the schema decision says it (schema_test.go)", false, databaseSaid(model.ReasonImageReleaseMismatch)},
		"DatabaseReady/VersionParseError":     {reason: "admission refuses a release that does not parse"},
		"DatabaseReady/DowngradeNotSupported": {"the schema decision says it (schema_test.go)", false, databaseSaid(model.ReasonDowngradeNotSupported)},
		"DatabaseReady/UpgradePathInvalid":    {"the schema decision says it (schema_test.go)", false, databaseSaid(model.ReasonUpgradePathInvalid)},
		"DatabaseReady/UpgradeTargetChanged":  {"the schema decision says it (schema_test.go)", false, databaseSaid(model.ReasonUpgradeTargetChanged)},
		"DatabaseReady/ExpandInProgress":      {"the schema decision says it (schema_test.go)", false, databaseSaid(model.ReasonExpandInProgress)},
		"DatabaseReady/MigrateInProgress":     {"the schema decision says it (schema_test.go)", false, databaseSaid(model.ReasonMigrateInProgress)},
		"DatabaseReady/UpgradeRollingUpdate":  {"the schema decision says it (schema_test.go)", false, databaseSaid(model.ReasonUpgradeRollingUpdate)},
		"DatabaseReady/ContractInProgress":    {"the schema decision says it (schema_test.go)", false, databaseSaid(model.ReasonContractInProgress)},
		"DatabaseReady/ExpandFailed":          {"the schema decision says it (schema_test.go)", false, databaseSaid(model.ReasonExpandFailed)},
		"DatabaseReady/MigrateFailed":         {"the schema decision says it (schema_test.go)", false, databaseSaid(model.ReasonMigrateFailed)},
		"DatabaseReady/ContractFailed":        {"the schema decision says it (schema_test.go)", false, databaseSaid(model.ReasonContractFailed)},

		"DeploymentReady/DeploymentReady": {"every replica runs the current template", true, same},
		"DeploymentReady/WaitingForDeployment": {"the Deployment has not rolled the current template out yet (a pod at fault says why instead: rolloutpods_test.go)", false,
			func(t *testing.T, in *report.StatusInput) {
				in.Observed.Deployment.Status.ObservedGeneration = in.Observed.Deployment.Generation - 1
			}},
		"DeploymentReady/WaitingForBackends": {"no config was ever rendered, so no Deployment", false, func(t *testing.T, in *report.StatusInput) {
			in.Observed.Deployment, in.Out.ConfigName, in.Out.RunImage = nil, "", ""
		}},

		"GlanceAPIReady/APIHealthy": {"a pod passes its readiness probe, GET /healthcheck", true, same},
		"GlanceAPIReady/APIUnhealthy": {"no pod passes it", false, func(t *testing.T, in *report.StatusInput) {
			in.Observed.Deployment.Status.AvailableReplicas = 0
		}},
		"GlanceAPIReady/EndpointNotReady": {"no Deployment yet", false, func(t *testing.T, in *report.StatusInput) {
			in.Observed.Deployment = nil
		}},
		"GlanceAPIReady/HealthCheckTimeout": {reason: "the hooks dial nothing: APIUnhealthy"},
		"GlanceAPIReady/ConnectionFailed":   {reason: "the hooks dial nothing: APIUnhealthy"},
		"GlanceAPIReady/HealthCheckFailed":  {reason: "the hooks dial nothing: APIUnhealthy"},

		"HPAReady/HPANotRequired": {"spec.autoscaling unset", true, same},
		"HPAReady/HPAReady": {"the autoscaler is returned with the Deployment", true, func(t *testing.T, in *report.StatusInput) {
			min := int32(2)
			in.Observed.Spec.Autoscaling = &api.AutoscalingSpec{MinReplicas: &min, MaxReplicas: 4}
			in.Out.Children = append(in.Out.Children, horizontalPodAutoscaler(in.Observed.Glance, *in.Observed.Spec.Autoscaling))
		}},

		"NetworkPolicyReady/NetworkPolicyNotRequired": {"spec.networkPolicy unset", true, same},
		"NetworkPolicyReady/NetworkPolicyReady": {"the observed policy allows every derived endpoint (networkpolicy_test.go)", true,
			func(t *testing.T, in *report.StatusInput) {
				in.Out.Reach = []hook.Condition{{Type: model.CondNetworkPolicyReady, Status: true, Reason: model.ReasonNetworkPolicyApplied}}
			}},

		"HTTPRouteReady/HTTPRouteNotRequired":   {"spec.gateway unset", true, same},
		"HTTPRouteReady/HTTPRouteAccepted":      {"the Gateway's controller accepted the route", true, gateway(true, "True")},
		"HTTPRouteReady/HTTPRouteNotAccepted":   {"it refused the route", false, gateway(true, "False")},
		"HTTPRouteReady/GatewayAPINotInstalled": {"the CompositeController does not manage HTTPRoutes", false, gateway(false, "")},
		"HTTPRouteReady/CapabilityProbeFailed":  {reason: "no target clusters here"},

		"DBPurgeReady/DBPurgeScheduled": {"the CronJob is there", true, func(t *testing.T, in *report.StatusInput) {
			in.Observed.Glance.Spec.DBPurge, in.Observed.Spec.DBPurge = &api.DBPurgeSpec{}, &api.DBPurgeSpec{}
			in.Observed.Purge = observePurge(purgeCronJob(t, batchv1.CronJobStatus{}), in.Observed.Glance)
		}},
		"DBPurgeReady/DBPurgeSuspended": {"the purge is suspended", true, func(t *testing.T, in *report.StatusInput) {
			in.Observed.Glance.Spec.DBPurge, in.Observed.Spec.DBPurge = &api.DBPurgeSpec{Suspend: true}, &api.DBPurgeSpec{Suspend: true}
			in.Observed.Purge = observePurge(purgeCronJob(t, batchv1.CronJobStatus{}), in.Observed.Glance)
		}},
		"DBPurgeReady/DBPurgeJobFailed": {"the last run failed", false, func(t *testing.T, in *report.StatusInput) {
			in.Observed.Glance.Spec.DBPurge, in.Observed.Spec.DBPurge = &api.DBPurgeSpec{}, &api.DBPurgeSpec{}
			at := metav1.Unix(3600, 0)
			in.Observed.Purge = observePurge(purgeCronJob(t, batchv1.CronJobStatus{LastScheduleTime: &at}), in.Observed.Glance)
		}},

		"ExtraConfigHealthy/NoOwnedKeysOverridden": {"no extraConfig", true, same},
		"ExtraConfigHealthy/OwnedKeysOverridden": {"extraConfig sets a key the hooks render", false, func(t *testing.T, in *report.StatusInput) {
			in.Observed.Spec.ExtraConfig = map[string]map[string]string{"DEFAULT": {"enabled_backends": "x:s3"}}
		}},

		"Ready/AllReady": {"every condition Ready waits for is True", true, same},
		"Ready/NotAllReady": {"one is not: no Deployment yet", false, func(t *testing.T, in *report.StatusInput) {
			in.Observed.Deployment = nil
		}},
	}
	differences := referenceDifferences(t)
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			condType, reason, _ := strings.Cut(name, "/")
			if tc.set == nil {
				assert.Contains(t, differences, reason, "%s: %s is not reported here (%s); docs/conditions.md's table of the reference's words says so", name, reason, tc.reason)
				return
			}
			in := referenceStatus()
			tc.set(t, &in)
			conds, err := report.ReportConditions(in, statuses)
			require.NoError(t, err)
			c, ok := report.FindCondition(conds, condType)
			require.True(t, ok, "%s: %s is reported", tc.reason, condType)
			assert.Equal(t, reason, c.Reason, "%s: %s", tc.reason, c.Message)
			assert.Equal(t, tc.status, c.Status, "%s: %s", tc.reason, c.Message)
		})
	}
}

// databaseSaid is a schema decision that says reason: DatabaseReady
// reports what the schema decision and its Job's pods said.
func databaseSaid(reason string) func(*testing.T, *report.StatusInput) {
	return func(_ *testing.T, in *report.StatusInput) {
		in.Out.Database = hook.Condition{Type: model.CondDatabaseReady, Reason: reason}
	}
}

// gateway sets spec.gateway and the route's condition as the route's
// children make it: managed or not, and its Gateway's Accepted.
func gateway(managed bool, accepted string) func(*testing.T, *report.StatusInput) {
	return func(t *testing.T, in *report.StatusInput) {
		gw := &api.GatewaySpec{Hostname: "glance.example.com", ParentRef: api.GatewayParentRef{Name: "edge"}}
		in.Observed.Spec.Gateway = gw
		observed := metacontroller.ObjectMap{}
		if managed {
			observed[names.HTTPRoutesKey] = map[string]json.RawMessage{}
		}
		if accepted != "" {
			raw, err := json.Marshal(map[string]any{"status": map[string]any{"parents": []any{map[string]any{
				"parentRef":  map[string]any{"name": "edge"},
				"conditions": []any{map[string]any{"type": "Accepted", "status": accepted, "reason": "R", "message": "m"}}}}}})
			require.NoError(t, err)
			observed = metacontroller.ObjectMap{names.HTTPRoutesKey: {"glance": raw}}
		}
		_, c := gatewayChildren(in.Observed.Glance, in.Observed.Spec, observeRoute(observed, in.Observed.Glance, in.Observed.Spec))
		require.NotNil(t, c)
		in.Out.Reach = []hook.Condition{*c}
	}
}

// referenceDifferences is the table of docs/conditions.md that names the
// reference's words this project does not report.
func referenceDifferences(t *testing.T) string {
	return docsection.After(t, "../../docs/conditions.md", "## The reference's words that differ")
}
